package solutions

import (
	"encoding/json"
	"errors"
	"fmt"
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

// sessionCheckpoint is what the sessions job stores at each checkpoint. The
// watermarks are not in it: as in Flink, they are regenerated from the
// sources after a restore (a restored processor keeps its own watermark,
// and ignores a lower one).
type sessionCheckpoint struct {
	Version  int       `json:"version"` // sessionCheckpointVersion
	ID       int64     `json:"id"`
	Offset   int       `json:"offset"`   // the next arrival to read
	Epoch    time.Time `json:"epoch"`    // the clock's time when the job first started
	Sessions []byte    `json:"sessions"` // SessionProcessor.Snapshot()
	Pending  []int64   `json:"pending"`  // the sink's pending transactions after PreCommit(ID)
}

// sessionCheckpointVersion is the version of sessionCheckpoint. Its files
// share stage 05's layout (checkpoints/<id>.json) but not its format: a
// job's Dir holds one kind of job.
const sessionCheckpointVersion = 2

// sessionJob is one run of RunSessionJob.
type sessionJob struct {
	cfg    SessionJobConfig
	clock  *kit.ManualClock
	epoch  time.Time
	wms    *Watermarks
	sp     *SessionProcessor
	out    *output
	offset int
}

// RunSessionJob runs the quiet-partition sessions job, the course's
// capstone:
//
//	arrivals (several partitions) → Watermarks (stage 07) → SessionProcessor → TwoPhaseCommitSink (stage 05)
//
// exactly once, in processing time read from clock and advanced on it: the
// job moves the ManualClock itself, so a replay of hours takes milliseconds
// and never sleeps. It returns when every result is committed.
//
// Start: from the latest checkpoint in cfg.Dir (the session processor
// restored from its snapshot, the sink recovered with its pending ids, the
// arrivals from its offset, its epoch), or fresh (a new processor, the sink
// recovered with no pending ids, offset 0, epoch = clock.Now()). Either way
// the Watermarks are new: they are derived from the sources, not state.
//
// Run: at every emission time epoch + k·EmitInterval (k ≥ 1; the ones that
// passed while the job was down are skipped) it advances the clock there,
// hands Watermarks.Current() to AdvanceWatermark, writes what fires and
// takes a checkpoint, which commits it. Arrival i is read at epoch + At,
// after the emissions due up to that moment: the clock advances to it
// (unless it has passed: a replay after a restart is read at once), the
// partition is Observed, the event Processed and its results written. Late
// events are side output and are not written. After the last arrival it
// Flushes, writes and takes a final checkpoint.
//
// Checkpoints follow stage 05's protocol, with its storage (output and
// storeCheckpoint in job.go): numbered 1, 2, … from a fresh start, stored
// durably and atomically before their transactions are committed, so that
// whatever a crash, a torn write or a power loss leaves, a restart finishes
// exactly once. They report the same steps to cfg.OnStep.
//
// Invalid input is an error before anything is written: a nil clock, an
// empty Dir, EmitInterval ≤ 0, an invalid WatermarkConfig or SessionConfig,
// an arrival on a partition outside [0, Partitions) or earlier than the one
// before it.
func RunSessionJob(cfg SessionJobConfig, arrivals []Arrival, clock *kit.ManualClock) error {
	if err := checkSessionJob(cfg, arrivals, clock); err != nil {
		return err
	}
	j, err := startSessionJob(cfg, clock)
	if err != nil {
		return err
	}

	// The first emission after now: on a fresh start now is the epoch and
	// the first tick is one interval later; after a restart, the ticks that
	// passed while the job was down are not made up. They would write
	// nothing: the new Watermarks hold the combined watermark at
	// math.MinInt64 until the partitions that never speak are idle again,
	// IdleTimeout from now, which is what a restart costs in latency.
	k := int64(1)
	if now := clock.Now(); now.After(j.epoch) {
		k = int64(now.Sub(j.epoch)/cfg.EmitInterval) + 1
	}
	nextTick := j.epoch.Add(time.Duration(k) * cfg.EmitInterval)

	for j.offset < len(arrivals) {
		a := arrivals[j.offset]
		due := j.epoch.Add(a.At)
		// Emit at every tick up to the arrival's time, the clock moving with
		// them: this is Flink's periodic watermark emission
		// (pipeline.auto-watermark-interval), and the idleness timeout is
		// checked against the clock at each.
		for !nextTick.After(due) {
			j.advanceClock(nextTick)
			if err := j.emit(); err != nil {
				return err
			}
			nextTick = nextTick.Add(cfg.EmitInterval)
		}
		j.advanceClock(due)
		// Observe before Process: the partition is active from this moment,
		// and the processor never reads the watermark on an event anyway.
		j.wms.Observe(a.Partition, a.Event.TS)
		j.offset++
		if err := j.write(j.sp.Process(a.Event)); err != nil {
			return err
		}
	}
	// End of the bounded source: close every session. After a restart from
	// the final checkpoint this writes nothing and commits an empty
	// transaction.
	if err := j.write(j.sp.Flush()); err != nil {
		return err
	}
	return j.checkpoint()
}

// checkSessionJob returns an error for an invalid config or source, before
// anything is touched.
func checkSessionJob(cfg SessionJobConfig, arrivals []Arrival, clock *kit.ManualClock) error {
	switch {
	case clock == nil:
		return errors.New("sessions job: a clock is required")
	case cfg.Dir == "":
		return errors.New("sessions job: Dir must not be empty")
	case cfg.EmitInterval <= 0:
		return fmt.Errorf("sessions job: EmitInterval must be positive, got %v", cfg.EmitInterval)
	}
	if _, err := NewWatermarks(cfg.Watermarks, clock); err != nil {
		return fmt.Errorf("sessions job: %w", err)
	}
	if _, err := NewSessionProcessor(cfg.Sessions); err != nil {
		return fmt.Errorf("sessions job: %w", err)
	}
	var prev time.Duration
	for i, a := range arrivals {
		switch {
		case a.Partition < 0 || a.Partition >= cfg.Watermarks.Partitions:
			return fmt.Errorf("sessions job: arrival %d (%v) is on partition %d, outside [0, %d)", i, a.Event, a.Partition, cfg.Watermarks.Partitions)
		case a.At < prev:
			return fmt.Errorf("sessions job: arrival %d (%v) is at %v, before the previous one at %v", i, a.Event, a.At, prev)
		}
		prev = a.At
	}
	return nil
}

// startSessionJob restores the job from the latest checkpoint in cfg.Dir,
// or starts it fresh.
func startSessionJob(cfg SessionJobConfig, clock *kit.ManualClock) (*sessionJob, error) {
	j := &sessionJob{cfg: cfg, clock: clock}
	id, data, err := readLatestCheckpoint(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("sessions job: %w", err)
	}
	var ck sessionCheckpoint
	if id == 0 {
		j.epoch = clock.Now()
		if j.sp, err = NewSessionProcessor(cfg.Sessions); err != nil {
			return nil, fmt.Errorf("sessions job: %w", err)
		}
	} else {
		if err := json.Unmarshal(data, &ck); err != nil {
			return nil, fmt.Errorf("sessions job: checkpoint %d is corrupt: %w", id, err)
		}
		if ck.Version != sessionCheckpointVersion {
			return nil, fmt.Errorf("sessions job: checkpoint %d is not a sessions-job checkpoint (version %d)", id, ck.Version)
		}
		if j.sp, err = RestoreSessionProcessor(ck.Sessions); err != nil {
			return nil, fmt.Errorf("sessions job: restore checkpoint %d: %w", id, err)
		}
		j.epoch, j.offset = ck.Epoch, ck.Offset
	}
	// Fresh watermarks in both cases: they are derived from the sources, not
	// state. Until every partition has spoken again (or gone idle) they are
	// lower than the restored processor's, which ignores them: a watermark
	// never goes back.
	if j.wms, err = NewWatermarks(cfg.Watermarks, clock); err != nil {
		return nil, fmt.Errorf("sessions job: %w", err)
	}
	if j.out, err = recoverOutput(cfg.Dir, cfg.OnStep, id, ck.Pending); err != nil {
		return nil, fmt.Errorf("sessions job: %w", err)
	}
	return j, nil
}

// advanceClock moves the clock to t, if t is later.
func (j *sessionJob) advanceClock(t time.Time) {
	if d := t.Sub(j.clock.Now()); d > 0 {
		j.clock.Advance(d)
	}
}

// emit hands the combined watermark to the session processor, writes what
// fires, and checkpoints, so that it is committed now and not one interval
// later. It does so at every emission, events or not: idleness is
// processing time, and once every partition is idle the watermark jumps to
// the highest partition watermark with the clock alone.
func (j *sessionJob) emit() error {
	if err := j.write(j.sp.AdvanceWatermark(j.wms.Current())); err != nil {
		return err
	}
	return j.checkpoint()
}

// write writes results to the sink's open transaction.
func (j *sessionJob) write(rs []kit.Result) error {
	if err := j.out.write(rs); err != nil {
		return fmt.Errorf("sessions job: %w", err)
	}
	return nil
}

// checkpoint takes the next checkpoint with stage 05's protocol: the
// session processor's snapshot, the arrival offset and the epoch, then
// pre-commit, store, commit every pending id up to it.
func (j *sessionJob) checkpoint() error {
	snap, err := j.sp.Snapshot()
	if err != nil {
		return fmt.Errorf("sessions job: checkpoint %d: %w", j.out.nextID, err)
	}
	ck := sessionCheckpoint{Version: sessionCheckpointVersion, ID: j.out.nextID, Offset: j.offset, Epoch: j.epoch, Sessions: snap}
	if err := j.out.checkpoint(ck.encode); err != nil {
		return fmt.Errorf("sessions job: %w", err)
	}
	return nil
}

// encode returns ck with the sink's pending transactions, as JSON: what
// output.checkpoint stores.
func (ck sessionCheckpoint) encode(pending []int64) ([]byte, error) {
	ck.Pending = pending
	return json.Marshal(ck)
}
