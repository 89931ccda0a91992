// Package countedtwice is the reference fix of drill 04, "Counted twice
// after a restart": the usage-metering job, fixed. It counts each customer's
// billable API calls in one-minute windows and adds every minute to the
// customer's row of the hourly usage table, which billing and the customer
// dashboard read.
//
//	api-calls log → dedup + 1-minute windows → two-phase-commit sink → usage table (one row per customer and hour)
//
// The job as it was appended every increment to the table the moment its
// minute closed. A restart resumes from the last checkpoint and replays the
// log from its offset, so every increment written after that checkpoint and
// before the crash was written again: those minutes counted twice. Its
// comment called the sink idempotent, which an append is not, and its
// AtLeastOnce field, read by nothing, promised exactly-once. The fix writes
// through stage 05's two-phase-commit sink: each checkpoint pre-commits the
// increments since the one before, stores the pre-committed transaction with
// the offset and the processor's state, and only then commits it; a restart
// commits what its checkpoint lists as pending and aborts the rest, and
// readers see committed transactions only. The drill's EXPLAIN.md works
// through why that is exactly-once and how stale a reader's view can be.
package countedtwice

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flk-byo/course/drills/04-counted-twice/engine"
	"github.com/flk-byo/course/kit"
)

// Record is one record of the api-calls log: a call, and when the log
// delivered it to the job. The log is replayable: the record at offset i is
// the same in every run.
type Record struct {
	// Arrived is when the record reaches the job. A job that starts after it
	// (a restart) finds it waiting, and reads it at once.
	Arrived time.Time
	// Event is the call: ID is the gateway's request ID (a retried delivery
	// repeats it), Key the customer, TS the call's time in milliseconds since
	// the Unix epoch, Value its billable units.
	Event kit.Event
}

// JobConfig configures the job.
type JobConfig struct {
	// Dir holds the job's checkpoints and the usage table.
	Dir string
	// Processor is the minute windows' configuration.
	Processor engine.Config
	// CheckpointInterval is the processing time between two checkpoints.
	CheckpointInterval time.Duration
	// OnStep, when set, is called at each step of the job's checkpoint
	// protocol with the checkpoint's id, as stage 05's RunJob calls it. Nil
	// in production.
	OnStep func(step engine.Step, checkpointID int64)
}

const (
	// Minute is the length of the usage windows.
	Minute = time.Minute
	// Hour is the length of a row of the usage table.
	Hour = time.Hour
	// WatermarkDelay is how far the log's records may arrive out of call
	// order: a minute is complete once a call 10 s past its end has arrived.
	WatermarkDelay = 10 * time.Second
	// CheckpointInterval is how often the job takes a checkpoint.
	CheckpointInterval = 10 * time.Second
)

// Isolation is what a reader of the usage table can see of the job's
// writes.
type Isolation string

// The isolation levels a reader can have.
const (
	// ReadUncommitted: a reader sees every row as soon as the job writes it.
	ReadUncommitted Isolation = "read-uncommitted"
	// ReadCommitted: a reader sees only what completed checkpoints have
	// committed.
	ReadCommitted Isolation = "read-committed"
)

// ReaderIsolation is the isolation billing and the dashboard get from
// ReadTotals: they read committed transactions only (ReadCommitted), never
// the pre-committed ones a crash can still abort. It is what makes the
// table exactly-once for them: a row they read is final, and a replay never
// adds to it what it already holds. (Kafka's consumers get the same with
// isolation.level=read_committed.)
const ReaderIsolation = ReadCommitted

// restartWithin is the platform's promise, from the card: a killed job is
// running again, its backlog read, within 30 s. It is a fact about the
// platform, not a setting: it enters MaxStaleness, not the config.
const restartWithin = 30 * time.Second

// MaxStaleness is the longest a reader of the usage table waits for a
// minute's usage: from the moment the record that closes the minute reaches
// the job to the moment ReadTotals shows it, across a crash and restart.
//
// A minute that closes at t is in the open transaction of the next
// checkpoint, which completes (stored, then committed) at most
// CheckpointInterval later. If the job is killed before that checkpoint is
// stored, the transaction is lost with the process; the restart, at most
// restartWithin after the kill, resumes from the checkpoint before and the
// replay closes the minute again at once, in the first transaction of the
// restarted job, which the first checkpoint after the restart commits: the
// next multiple of CheckpointInterval. Counted in intervals from the
// checkpoint before the minute closed, one to the kill, the whole ones
// inside the restart, and one to that checkpoint:
//
//	(1 + 30 s / 10 s + 1) × 10 s = CheckpointInterval 10 s + restart 30 s + CheckpointInterval 10 s = 50 s ≤ 60 s
//
// The bound is reached when the minute closes just after a checkpoint and
// the job is killed just as the next one begins. It holds for one crash at
// a time: a job killed again before its first checkpoint after a restart
// adds another restart and interval.
const MaxStaleness = (restartWithin/CheckpointInterval + 2) * CheckpointInterval

// Config returns the job's configuration, with its checkpoints and the
// usage table in dir.
func Config(dir string) JobConfig {
	return JobConfig{
		Dir: dir,
		Processor: engine.Config{
			WindowSize:     Minute.Milliseconds(),
			WatermarkDelay: WatermarkDelay.Milliseconds(),
		},
		CheckpointInterval: CheckpointInterval,
	}
}

// Run runs the job over the log, reading and advancing processing time on
// clock, and returns when the whole log is in the usage table. It resumes
// from the latest checkpoint in cfg.Dir, if there is one: the processor as
// it was, and the log from the checkpoint's offset.
func Run(cfg JobConfig, log []Record, clock *kit.ManualClock) error {
	if cfg.CheckpointInterval <= 0 {
		return fmt.Errorf("usage job: CheckpointInterval must be positive, got %v", cfg.CheckpointInterval)
	}
	j, err := start(cfg, len(log))
	if err != nil {
		return err
	}
	next := clock.Now().Truncate(cfg.CheckpointInterval).Add(cfg.CheckpointInterval)
	for j.offset < len(log) {
		rec := log[j.offset]
		for !next.After(rec.Arrived) { // checkpoints due before this record arrives
			clock.Advance(max(0, next.Sub(clock.Now())))
			if err := j.checkpoint(); err != nil {
				return err
			}
			next = next.Add(cfg.CheckpointInterval)
		}
		clock.Advance(max(0, rec.Arrived.Sub(clock.Now())))
		results := j.p.Process(rec.Event)
		j.offset++
		if err := j.write(results); err != nil {
			return err
		}
	}
	if err := j.write(j.p.Flush()); err != nil {
		return err
	}
	return j.checkpoint()
}

// ReadTotals returns the usage table as a reader sees it now: one row per
// customer and hour (Key, Start, End), with the count and units of its
// calls so far, in kit.CompareResults order. Billing and the dashboard read
// it while the job runs. It reads the committed transactions only
// (ReaderIsolation): what it shows is final.
func ReadTotals(dir string) ([]kit.Result, error) {
	lines, err := engine.ReadCommitted(filepath.Join(dir, usageDir))
	if err != nil {
		return nil, fmt.Errorf("usage table: %w", err)
	}
	return sumRows(lines), nil
}

// sumRows adds up increments per row (Key, Start, End).
func sumRows(lines []kit.Result) []kit.Result {
	type row struct {
		key        string
		start, end int64
	}
	sums := map[row]kit.Result{}
	for _, r := range lines {
		k := row{r.Key, r.Start, r.End}
		s := sums[k]
		s.Key, s.Start, s.End = r.Key, r.Start, r.End
		s.Count += r.Count
		s.Sum += r.Sum
		sums[k] = s
	}
	out := make([]kit.Result, 0, len(sums))
	for _, s := range sums {
		out = append(out, s)
	}
	return kit.SortResults(out)
}

// hourly turns a minute's result into its increment of the customer's row
// for that hour.
func hourly(r kit.Result) kit.Result {
	start, _ := hourOf(r.Start)
	return kit.Result{Key: r.Key, Start: start, End: start + Hour.Milliseconds(), Count: r.Count, Sum: r.Sum}
}

// hourOf returns the hour [start, end) that ts is in.
func hourOf(ts int64) (start, end int64) {
	h := Hour.Milliseconds()
	start = ts - ((ts%h)+h)%h
	return start, start + h
}

// The job's files, under Dir.
const (
	usageDir       = "usage"       // the usage table: the two-phase-commit sink's transactions of increments
	checkpointsDir = "checkpoints" // <id>.json, the latest complete one wins
)

// checkpoint is what the job stores: where it is in the log, the
// processor's state there, and the sink's pre-committed transactions that
// this checkpoint's completion commits (its own among them).
type checkpoint struct {
	ID        int64   `json:"id"`
	Offset    int     `json:"offset"`
	Processor []byte  `json:"processor"`
	Pending   []int64 `json:"pending"`
}

// job is one run of the job.
type job struct {
	cfg    JobConfig
	p      *engine.Processor
	sink   *engine.TwoPhaseCommitSink // the usage table
	offset int                        // the next offset of the log to read
	nextID int64                      // the id of the next checkpoint
}

// start restores the job from its latest checkpoint, or starts it fresh.
func start(cfg JobConfig, logLen int) (*job, error) {
	j := &job{cfg: cfg, nextID: 1}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, checkpointsDir), 0o755); err != nil {
		return nil, fmt.Errorf("usage job: %w", err)
	}
	ck, ok, err := latestCheckpoint(cfg.Dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("usage job: %w", err)
	case ok:
		if ck.Offset < 0 || ck.Offset > logLen {
			return nil, fmt.Errorf("usage job: checkpoint %d is at offset %d of a log of %d records", ck.ID, ck.Offset, logLen)
		}
		if j.p, err = engine.RestoreProcessor(ck.Processor); err != nil {
			return nil, fmt.Errorf("usage job: restore checkpoint %d: %w", ck.ID, err)
		}
		j.offset, j.nextID = ck.Offset, ck.ID+1
	default:
		if j.p, err = engine.NewProcessor(cfg.Processor); err != nil {
			return nil, fmt.Errorf("usage job: %w", err)
		}
	}
	// Commit what the checkpoint lists as pending (it completed, and the
	// replay starts after it), abort every other staged transaction (its
	// checkpoint never completed, and the replay writes it again). On a fresh
	// start too: a run killed before its first checkpoint was stored may have
	// left one staged.
	if j.sink, err = engine.RecoverTwoPhaseCommitSink(filepath.Join(cfg.Dir, usageDir), ck.Pending); err != nil {
		return nil, fmt.Errorf("usage job: %w", err)
	}
	return j, nil
}

// step reports a step of the protocol to OnStep, if set.
func (j *job) step(s engine.Step, id int64) {
	if j.cfg.OnStep != nil {
		j.cfg.OnStep(s, id)
	}
}

// write adds the minutes' results to the open transaction, one increment
// each: invisible until the next checkpoint completes.
func (j *job) write(results []kit.Result) error {
	for _, r := range results {
		if err := j.sink.Write(hourly(r)); err != nil {
			return fmt.Errorf("usage job: write the usage table: %w", err)
		}
		j.step(engine.StepWrite, j.nextID)
	}
	return nil
}

// checkpoint takes checkpoint j.nextID: the processor's state and the
// offset, then stage 05's protocol. Pre-commit the open transaction
// (durable, invisible); store the checkpoint with the pending transactions,
// atomically; only then commit them. Killed before the checkpoint is
// stored, the restart resumes from the one before and aborts this
// transaction, whose increments the replay writes again; killed after, it
// resumes from this one and commits the transaction, which nothing will
// write again.
func (j *job) checkpoint() error {
	id := j.nextID
	snap, err := j.p.Snapshot()
	if err != nil {
		return fmt.Errorf("usage job: checkpoint %d: %w", id, err)
	}
	j.step(engine.StepBeforePreCommit, id)
	if err := j.sink.PreCommit(id); err != nil {
		return fmt.Errorf("usage job: checkpoint %d: %w", id, err)
	}
	j.step(engine.StepAfterPreCommit, id)
	pending := j.sink.Pending()
	data, err := json.Marshal(checkpoint{ID: id, Offset: j.offset, Processor: snap, Pending: pending})
	if err != nil {
		return fmt.Errorf("usage job: checkpoint %d: %w", id, err)
	}
	if err := storeCheckpoint(j.cfg.Dir, id, data); err != nil {
		return fmt.Errorf("usage job: checkpoint %d: %w", id, err)
	}
	j.step(engine.StepStored, id)
	for _, p := range pending {
		if err := j.sink.Commit(p); err != nil {
			return fmt.Errorf("usage job: checkpoint %d: %w", id, err)
		}
	}
	j.step(engine.StepAfterCommit, id)
	j.nextID++
	return nil
}

// storeCheckpoint writes checkpoint id atomically and durably, then deletes
// the older ones.
func storeCheckpoint(dir string, id int64, data []byte) error {
	cdir := filepath.Join(dir, checkpointsDir)
	final := filepath.Join(cdir, strconv.FormatInt(id, 10)+".json")
	f, err := os.Create(final + ".tmp")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(final+".tmp", final); err != nil {
		return err
	}
	if err := syncDir(cdir); err != nil {
		return err
	}
	ids, err := checkpointIDs(cdir)
	if err != nil {
		return err
	}
	for _, old := range ids {
		if old < id {
			if err := os.Remove(filepath.Join(cdir, strconv.FormatInt(old, 10)+".json")); err != nil {
				return err
			}
		}
	}
	return nil
}

// latestCheckpoint reads the checkpoint with the highest id in dir; ok is
// false when there is none.
func latestCheckpoint(dir string) (ck checkpoint, ok bool, err error) {
	cdir := filepath.Join(dir, checkpointsDir)
	ids, err := checkpointIDs(cdir)
	if err != nil || len(ids) == 0 {
		return ck, false, err
	}
	id := ids[len(ids)-1]
	data, err := os.ReadFile(filepath.Join(cdir, strconv.FormatInt(id, 10)+".json"))
	if err != nil {
		return ck, false, err
	}
	if err := json.Unmarshal(data, &ck); err != nil {
		return ck, false, fmt.Errorf("checkpoint %d is corrupt: %w", id, err)
	}
	return ck, true, nil
}

// checkpointIDs returns the ids of the complete checkpoints in cdir,
// ascending (temporary files are not checkpoints).
func checkpointIDs(cdir string) ([]int64, error) {
	entries, err := os.ReadDir(cdir)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			if id, err := strconv.ParseInt(name, 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// syncDir fsyncs a directory, which makes the names in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
