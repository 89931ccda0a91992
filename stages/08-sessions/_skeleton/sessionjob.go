package lab

import (
	"time"

	"github.com/flk-byo/course/kit"
)

// Arrival is one event as a source partition delivers it.
type Arrival struct {
	// Partition is the source partition the event comes from, in
	// [0, WatermarkConfig.Partitions).
	Partition int
	// At is the processing time of delivery, measured from the job's epoch
	// (the clock's time when the job first started). It never decreases
	// along a source.
	At time.Duration
	// Event is the record.
	Event kit.Event
}

// SessionJobConfig configures RunSessionJob.
type SessionJobConfig struct {
	Watermarks   WatermarkConfig                     // stage 07: partitions, out-of-orderness, idleness
	Sessions     SessionConfig                       // the session windows
	Dir          string                              // checkpoints and the sink's files live here
	EmitInterval time.Duration                       // processing time between two watermark emissions (each followed by a checkpoint); > 0
	OnStep       func(step Step, checkpointID int64) // stage 05's steps; nil in production; tests observe and crash here
}

// RunSessionJob runs the quiet-partition sessions job, the capstone:
//
//	arrivals (several partitions) → Watermarks (stage 07) → SessionProcessor → TwoPhaseCommitSink (stage 05)
//
// exactly once, in processing time read from clock and advanced on it (no
// sleeps: the job moves the ManualClock itself). It returns when every
// result is committed.
//
// Start. If cfg.Dir holds a completed checkpoint, resume from the latest
// one: the session processor from its snapshot, the sink with
// RecoverTwoPhaseCommitSink(cfg.Dir, its pending ids), the arrivals from its
// offset, and the epoch it stored. Otherwise start fresh: a new
// SessionProcessor, RecoverTwoPhaseCommitSink(cfg.Dir, nil), offset 0,
// epoch = clock.Now(). Either way, NewWatermarks(cfg.Watermarks, clock):
// watermarks are not checkpointed (as in Flink: they are regenerated from
// the sources, and a restored processor ignores a lower one).
//
// Run, in processing time:
//
//   - Emissions happen at epoch + k·EmitInterval for k = 1, 2, …: advance
//     the clock there, hand Watermarks.Current() to AdvanceWatermark (at
//     every emission, whether an event came since the last one or not:
//     idleness moves the watermark with the clock alone), write every
//     result it returns, then take a checkpoint (which commits them).
//     After a restart, the emission times up to the clock's reading at
//     start already passed: they are skipped, not made up.
//   - Arrival i is read at epoch + At: emit first at every emission time up
//     to and including that moment, then advance the clock to it (if it is
//     later than now; a replayed arrival whose time has passed is read at
//     once), Observe(Partition, Event.TS), Process(Event) and write every
//     result. Late events are side output and are not written.
//   - After the last arrival: Flush, write its results, take a final
//     checkpoint. Running the job again on a finished Dir changes nothing.
//
// Checkpoint n follows stage 05's protocol, calling cfg.OnStep (if not nil):
// store (n, offset, the session processor's Snapshot, the epoch, the sink's
// pending ids) with OnStep(StepBeforePreCommit, n) after the snapshot,
// OnStep(StepAfterPreCommit, n) after PreCommit(n), OnStep(StepStored, n)
// once the checkpoint is durably and atomically stored (a temporary file,
// fsynced, renamed into place, its folder fsynced), OnStep(StepAfterCommit,
// n) after committing every pending id ≤ n; and OnStep(StepWrite, n) after
// each sink Write. A fresh job numbers its checkpoints 1, 2, 3, …, and ids
// increase across restarts too. The job may be killed (SIGKILL: no deferred
// call runs) at any of these steps or in the middle of a write, or lose
// power (only what was fsynced survives), and run again on the same Dir
// after any downtime, the clock reading the restart's time. Whatever that
// leaves, the restart finishes with exactly the output of an uninterrupted
// run, and nothing a reader saw committed is lost. A reader calling
// ReadCommitted at any moment sees the output of whole checkpoints only,
// and none before its checkpoint is stored. Keep every file under cfg.Dir.
//
// Errors, before anything is written: a nil clock, an empty Dir,
// EmitInterval ≤ 0, an invalid WatermarkConfig or SessionConfig, an arrival
// on a partition outside [0, Partitions) or earlier than the one before it.
// I/O errors are returned too.
func RunSessionJob(cfg SessionJobConfig, arrivals []Arrival, clock *kit.ManualClock) error {
	panic("TODO: resume or start fresh; emit watermarks and checkpoint every EmitInterval; Observe and Process each arrival; Flush; final checkpoint")
}
