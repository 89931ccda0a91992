package lab

import "github.com/flk-byo/course/kit"

// Step is a point of the job's checkpoint protocol. RunJob reports each
// one to JobConfig.OnStep; the tests crash the job there.
type Step string

// The steps, in protocol order: writes, then for each checkpoint
// before-pre-commit, after-pre-commit, stored, after-commit.
const (
	StepWrite           Step = "write"             // after each Write to the sink
	StepBeforePreCommit Step = "before-pre-commit" // checkpoint begins: offset and processor snapshot taken, sink not yet pre-committed
	StepAfterPreCommit  Step = "after-pre-commit"  // sink pre-committed, checkpoint not yet stored
	StepStored          Step = "stored"            // checkpoint stored on disk (complete), sink not yet committed
	StepAfterCommit     Step = "after-commit"      // sink committed
)

// JobConfig configures RunJob.
type JobConfig struct {
	Processor       Config                              // stage 01's config, for a fresh start
	Dir             string                              // checkpoints and the sink's files live here
	CheckpointEvery int                                 // take a checkpoint after every n source events (n ≥ 1)
	OnStep          func(step Step, checkpointID int64) // called at each step; nil in production; tests crash here
}

// RunJob runs source → Processor → TwoPhaseCommitSink with checkpoints
// stored in cfg.Dir, exactly once, and returns when every result is
// committed. source is a replayable source: the event at offset i is
// source[i], the same in every run.
//
// Start: if cfg.Dir holds a completed checkpoint, resume from the latest
// one: the processor from its snapshot (RestoreProcessor), the sink with
// RecoverTwoPhaseCommitSink(cfg.Dir, its pending ids), and the source from
// its offset. Otherwise start fresh: NewProcessor(cfg.Processor) and
// RecoverTwoPhaseCommitSink(cfg.Dir, nil), which clears what a run that
// crashed before its first checkpoint left behind.
//
// Run: process the events from the offset on, writing every result to the
// sink (late events are not written: they are the processor's side
// output). After the event at offset i, if i+1 is a multiple of
// CheckpointEvery, take a checkpoint; offsets count from the start of the
// source, so a resumed job checkpoints where an uninterrupted one would. At
// the end, Flush the processor, write its results and take a final
// checkpoint. Running the job again on a finished dir changes nothing.
//
// Checkpoint n, in this order, calling cfg.OnStep (if not nil) at each step:
//
//  1. take the source offset and the processor's Snapshot();
//     OnStep(StepBeforePreCommit, n)
//  2. sink.PreCommit(n); OnStep(StepAfterPreCommit, n)
//  3. store the checkpoint (n, offset, snapshot, sink.Pending()) durably
//     and atomically: write a temporary file, fsync it, rename it into
//     place, fsync its folder; it is complete only once renamed, and a
//     crash in the middle of a write must never leave a torn checkpoint as
//     the latest one. OnStep(StepStored, n)
//  4. commit every pending id ≤ n; OnStep(StepAfterCommit, n)
//
// and OnStep(StepWrite, n) after each sink Write, n being the checkpoint
// the write will be pre-committed with. Checkpoint ids increase, also
// across a restart: a resumed job continues after its restored id.
//
// Whatever a crash or a power loss leaves in cfg.Dir, a restart finishes
// with exactly the output of an uninterrupted run: create folders durably
// (fsync the folder that holds a new one), and keep everything the restart
// reads atomic.
//
// Invalid config (CheckpointEvery < 1, an invalid Processor config, an
// empty Dir) and I/O errors are returned as errors.
func RunJob(cfg JobConfig, source []kit.Event) error {
	panic("TODO: resume or start fresh, process with checkpoints (OnStep at each step), Flush, final checkpoint")
}
