package lab

import "github.com/flk-byo/course/kit"

// TwoPhaseCommitSink writes results to files under a directory, exactly
// once, with the protocol of Flink's TwoPhaseCommitSinkFunction:
//
//	Write            into the open transaction (not visible)
//	PreCommit(id)    the open transaction becomes checkpoint id's:
//	                 durable on disk, still not visible; the next one opens
//	Commit(id)       checkpoint id completed: its transaction becomes
//	                 visible to ReadCommitted, all at once
//
// The files and their layout under the directory are yours to choose; the
// tests only use this API and ReadCommitted. It is used from one goroutine.
type TwoPhaseCommitSink struct {
	// TODO: your fields here
}

// NewTwoPhaseCommitSink returns a sink writing under dir (create what you
// need in it, durably: a new folder is a name in dir, durable once dir is
// fsynced) with a first, empty transaction open. It need not look at files
// a previous sink left in dir: after a crash, the job calls
// RecoverTwoPhaseCommitSink instead.
func NewTwoPhaseCommitSink(dir string) (*TwoPhaseCommitSink, error) {
	panic("TODO: prepare dir and return a sink with an empty open transaction")
}

// Write adds r to the open transaction. Nothing written is visible to
// ReadCommitted until the transaction is pre-committed and then committed.
func (s *TwoPhaseCommitSink) Write(r kit.Result) error {
	panic("TODO: buffer r in the open transaction")
}

// PreCommit ends the open transaction as checkpoint checkpointID's: its
// results are made durable (written and fsynced, the file and the folder
// holding its name, so they survive a crash or a power loss) but stay
// invisible to ReadCommitted. Then the next transaction opens, and
// checkpointID is pending (see Pending) until it is committed.
//
// Pre-committing an id that is already pre-committed or committed is an
// error, and changes nothing: not that transaction, not the open one, not
// Pending.
func (s *TwoPhaseCommitSink) PreCommit(checkpointID int64) error {
	panic("TODO: write the open transaction durably where readers don't look, remember the id as pending, open a new transaction")
}

// Commit publishes the transaction pre-committed for checkpointID,
// atomically: ReadCommitted shows all of it or none of it, even if it runs
// while Commit does. And durably: once Commit returns, a power loss does not
// take the transaction back. It must work for a transaction pre-committed
// by an earlier sink on the same dir (a crashed one), so it works from what
// is on disk.
//
// Commit is idempotent: committing a committed checkpoint again returns nil
// and changes nothing. Committing an id that was never pre-committed (or
// was aborted) returns an error: there is nothing to publish.
func (s *TwoPhaseCommitSink) Commit(checkpointID int64) error {
	panic("TODO: publish the staged transaction atomically (a rename); already committed → nil; unknown → error")
}

// Abort discards the open transaction: everything written since the last
// PreCommit (or since the sink was opened). Pre-committed transactions are
// not touched, and the sink stays usable: later writes go to a new, empty
// transaction.
func (s *TwoPhaseCommitSink) Abort() error {
	panic("TODO: drop what was written since the last PreCommit")
}

// Pending returns the ids this sink pre-committed and has not committed
// yet, in ascending order (empty when there are none). It is the sink's
// part of a checkpoint: after a crash, RecoverTwoPhaseCommitSink gets it
// back. The slice is the caller's: changing it changes nothing in the sink,
// and the sink never changes it later.
func (s *TwoPhaseCommitSink) Pending() []int64 {
	panic("TODO: return the pre-committed, not yet committed ids, ascending")
}

// RecoverTwoPhaseCommitSink reopens the sink in dir after a crash, given
// the pending ids stored in the last completed checkpoint, as Flink's
// TwoPhaseCommitSinkFunction.initializeState does:
//
//   - every pending transaction is committed (recoverAndCommit): its
//     checkpoint completed, so its results must become visible; committing
//     one that is committed already is a no-op;
//   - every other transaction left in dir that is not committed, whether
//     pre-committed for a checkpoint that never completed or still open,
//     is discarded (recoverAndAbort): the job will produce it again.
//
// Then a new, empty transaction is open and nothing is pending. A pending
// id that cannot be committed is an error.
func RecoverTwoPhaseCommitSink(dir string, pending []int64) (*TwoPhaseCommitSink, error) {
	panic("TODO: commit every pending id, then delete every other staged transaction, then open a new one")
}

// ReadCommitted returns every committed result in dir: the transactions in
// ascending checkpoint id, each in the order its results were written.
// Nothing pre-committed or open is ever shown. A dir in which nothing was
// committed yet gives no results and no error. It may run at any moment,
// from another process, while a job writes and commits in dir, and it must
// then show whole transactions only.
func ReadCommitted(dir string) ([]kit.Result, error) {
	panic("TODO: read the committed transactions in checkpoint-id order")
}
