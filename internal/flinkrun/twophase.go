package flinkrun

// TwoPhaseOp is one operation of a "twophase" scenario, in Flink's terms:
// a result into the sink's writer ("write"), a checkpoint taken ("checkpoint",
// the writer's pre-commit), that checkpoint stored as the latest completed
// one ("complete"), its completion notice delivered ("notify"), or a crash
// ("crash"): both operators lost and restored from the latest completed
// checkpoint. ID is the checkpoint's; a scenario never reuses one, as
// Flink's CheckpointIDCounter does not.
type TwoPhaseOp struct {
	Op     string  `json:"op"`
	Result *Result `json:"result,omitempty"`
	ID     int64   `json:"id"`
}

// WriteOp, CheckpointOp, CompleteOp, NotifyOp and CrashOp make TwoPhaseOps.
func WriteOp(r Result) TwoPhaseOp      { return TwoPhaseOp{Op: "write", Result: &r} }
func CheckpointOp(id int64) TwoPhaseOp { return TwoPhaseOp{Op: "checkpoint", ID: id} }
func CompleteOp(id int64) TwoPhaseOp   { return TwoPhaseOp{Op: "complete", ID: id} }
func NotifyOp(id int64) TwoPhaseOp     { return TwoPhaseOp{Op: "notify", ID: id} }
func CrashOp() TwoPhaseOp              { return TwoPhaseOp{Op: "crash"} }

// TwoPhaseStep is what Flink's sink operators did in answer to one
// TwoPhaseOp.
type TwoPhaseStep struct {
	// Committed is what became visible in the external system: the
	// results of the transactions committed on this op, in commit order.
	Committed []Result `json:"committed"`
	// Pending is the checkpoints whose committables the committer holds
	// uncommitted after the op, ascending.
	Pending []int64 `json:"pending"`
	// AlreadyCommitted is how many commit requests found their transaction
	// committed already (signalAlreadyCommitted): re-commits, which publish
	// nothing.
	AlreadyCommitted int `json:"alreadyCommitted"`
	// Failed is how many commit requests found their transaction neither
	// prepared nor committed.
	Failed int `json:"failed"`
	// Restored is, for a crash, the checkpoint the operators were restored
	// from, 0 when none had completed.
	Restored int64 `json:"restored"`
}

// RunTwoPhase runs a two-phase-commit scenario: Flink's SinkWriterOperator
// and CommitterOperator on a sink into an in-memory external system, one
// TwoPhaseStep per op.
func (r *Runner) RunTwoPhase(ops []TwoPhaseOp) ([]TwoPhaseStep, error) {
	return runSteps[TwoPhaseStep](r, "twophase", struct{}{}, ops)
}
