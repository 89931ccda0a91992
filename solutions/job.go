package solutions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flk-byo/course/kit"
)

// Step is a point of the job's checkpoint protocol. RunJob reports each
// one to JobConfig.OnStep, so that tests can crash the job exactly there.
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

// checkpointsDir holds the completed checkpoints, as <id>.json, next to the
// sink's staged/ and committed/ folders.
const checkpointsDir = "checkpoints"

// checkpoint is what the job stores at each checkpoint: enough to resume as
// if the crash never happened. Offset and Processor describe the same
// moment (the processor has seen exactly source[:Offset]); Pending is the
// sink's state (the transactions to commit on recovery).
type checkpoint struct {
	Version   int     `json:"version"` // checkpointVersion
	ID        int64   `json:"id"`
	Offset    int     `json:"offset"`    // the next source offset to read
	Processor []byte  `json:"processor"` // Processor.Snapshot(), base64 in JSON
	Pending   []int64 `json:"pending"`   // sink.Pending() after PreCommit(ID)
}

const checkpointVersion = 1

// job is one run of RunJob: where it is in the source and what it holds.
type job struct {
	cfg    JobConfig
	p      *Processor
	out    *output
	offset int // the next source offset to read
}

// RunJob runs source → Processor → TwoPhaseCommitSink with checkpoints in
// cfg.Dir, exactly once, and returns when every result is committed.
// source is replayable: the event at offset i is source[i] in every run.
//
// It resumes from the latest completed checkpoint in cfg.Dir (processor
// restored, sink recovered, source replayed from the checkpoint's offset)
// or starts fresh; takes a checkpoint after every CheckpointEvery source
// events, counted from the start of the source; and at the end Flushes the
// processor, writes those results and takes a final checkpoint. Late events
// are not written: they are the processor's side output, not results.
func RunJob(cfg JobConfig, source []kit.Event) error {
	if cfg.CheckpointEvery < 1 {
		return fmt.Errorf("job: CheckpointEvery must be at least 1, got %d", cfg.CheckpointEvery)
	}
	if cfg.Dir == "" {
		return errors.New("job: Dir must not be empty")
	}
	if _, err := NewProcessor(cfg.Processor); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	j, err := startJob(cfg, source)
	if err != nil {
		return err
	}
	for j.offset < len(source) {
		// An event's results go into the open transaction, so they are
		// committed with the first checkpoint whose offset is past the event:
		// replaying from any checkpoint re-produces exactly the results that
		// were not committed with it.
		results := j.p.Process(source[j.offset])
		j.offset++
		if err := j.out.write(results); err != nil {
			return fmt.Errorf("job: %w", err)
		}
		if j.offset%cfg.CheckpointEvery == 0 {
			if err := j.checkpoint(); err != nil {
				return err
			}
		}
	}
	// End of the bounded source: fire what is left and commit it. After a
	// restart from the final checkpoint this Flush returns nothing (the
	// restored watermark is already math.MaxInt64) and the checkpoint commits
	// an empty transaction, so running a finished job again changes nothing.
	if err := j.out.write(j.p.Flush()); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	return j.checkpoint()
}

// startJob restores the job from the latest completed checkpoint in
// cfg.Dir, or starts it fresh when there is none.
func startJob(cfg JobConfig, source []kit.Event) (*job, error) {
	j := &job{cfg: cfg}
	id, data, err := readLatestCheckpoint(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	var ck checkpoint
	if id == 0 {
		if j.p, err = NewProcessor(cfg.Processor); err != nil {
			return nil, fmt.Errorf("job: %w", err)
		}
	} else {
		if err := json.Unmarshal(data, &ck); err != nil {
			return nil, fmt.Errorf("job: checkpoint %d is corrupt: %w", id, err)
		}
		if ck.Version != checkpointVersion {
			return nil, fmt.Errorf("job: checkpoint %d has version %d; this job reads version %d", id, ck.Version, checkpointVersion)
		}
		if ck.Offset < 0 || ck.Offset > len(source) {
			return nil, fmt.Errorf("job: checkpoint %d is at source offset %d, outside the source of %d events", id, ck.Offset, len(source))
		}
		if j.p, err = RestoreProcessor(ck.Processor); err != nil {
			return nil, fmt.Errorf("job: restore checkpoint %d: %w", id, err)
		}
		// Replay from the checkpointed offset, not from wherever the crashed
		// run had got to: the results of the events after it were in
		// transactions that never completed, and recovery aborts them.
		j.offset = ck.Offset
	}
	if j.out, err = recoverOutput(cfg.Dir, cfg.OnStep, id, ck.Pending); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	return j, nil
}

// checkpoint takes the next checkpoint: the processor's snapshot and the
// source offset, taken at the same moment between two events (the restored
// processor must have seen exactly source[:offset]), then the sink's
// protocol.
func (j *job) checkpoint() error {
	snap, err := j.p.Snapshot()
	if err != nil {
		return fmt.Errorf("job: checkpoint %d: %w", j.out.nextID, err)
	}
	ck := checkpoint{Version: checkpointVersion, ID: j.out.nextID, Offset: j.offset, Processor: snap}
	if err := j.out.checkpoint(ck.encode); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	return nil
}

// encode returns ck with the sink's pending transactions, as JSON: what
// output.checkpoint stores.
func (ck checkpoint) encode(pending []int64) ([]byte, error) {
	ck.Pending = pending
	return json.Marshal(ck)
}

// output is the sink side of a job, shared by RunJob and RunSessionJob: the
// two-phase-commit sink, the checkpoints stored beside it, and the protocol
// that ties them together.
type output struct {
	dir    string
	sink   *TwoPhaseCommitSink
	onStep func(step Step, checkpointID int64)
	nextID int64 // the id of the next checkpoint
}

// recoverOutput recovers the sink in dir after the checkpoint lastID (0
// for a fresh start) with its pending transactions, and makes sure the
// checkpoints' folder exists, durably. It recovers even on a fresh start
// (pending is nil then): a run that crashed before its first checkpoint
// completed may have left a staged transaction, which must be aborted, not
// committed.
func recoverOutput(dir string, onStep func(Step, int64), lastID int64, pending []int64) (*output, error) {
	sink, err := RecoverTwoPhaseCommitSink(dir, pending)
	if err != nil {
		return nil, err
	}
	if err := mkdirDurable(filepath.Join(dir, checkpointsDir)); err != nil {
		return nil, err
	}
	return &output{dir: dir, sink: sink, onStep: onStep, nextID: lastID + 1}, nil
}

// step reports a protocol step to OnStep, if set.
func (o *output) step(s Step, id int64) {
	if o.onStep != nil {
		o.onStep(s, id)
	}
}

// write writes results to the sink's open transaction, reporting each.
func (o *output) write(rs []kit.Result) error {
	for _, r := range rs {
		if err := o.sink.Write(r); err != nil {
			return err
		}
		o.step(StepWrite, o.nextID)
	}
	return nil
}

// checkpoint completes checkpoint o.nextID: pre-commit, store, commit. What
// it stores is encode(pending), the job's own checkpoint with the sink's
// pending transactions in it: the job knows its state and its format, the
// output only that the bytes must be durable before anything is committed.
// A crash at any point before the checkpoint is stored leaves the previous
// checkpoint as the latest complete one, and recovery aborts this
// checkpoint's transaction; a crash after it is stored leaves this one, and
// recovery commits its transaction.
func (o *output) checkpoint(encode func(pending []int64) ([]byte, error)) error {
	id := o.nextID
	o.step(StepBeforePreCommit, id)
	if err := o.sink.PreCommit(id); err != nil {
		return fmt.Errorf("checkpoint %d: %w", id, err)
	}
	o.step(StepAfterPreCommit, id)

	// Pending after PreCommit includes id itself: once this checkpoint is
	// stored, recovery must commit its transaction.
	pending := o.sink.Pending()
	data, err := encode(pending)
	if err != nil {
		return fmt.Errorf("checkpoint %d: %w", id, err)
	}
	if err := storeCheckpoint(o.dir, id, data); err != nil {
		return fmt.Errorf("checkpoint %d: %w", id, err)
	}
	o.step(StepStored, id)

	// Flink's notifyCheckpointComplete(id) commits every pending transaction
	// up to id: a notice for an earlier checkpoint may have been lost, and a
	// later completed checkpoint subsumes it.
	for _, p := range pending {
		if p > id {
			break
		}
		if err := o.sink.Commit(p); err != nil {
			return fmt.Errorf("checkpoint %d: %w", id, err)
		}
	}
	o.step(StepAfterCommit, id)
	o.nextID++
	return nil
}

// storeCheckpoint writes data, durably and atomically, to
// dir/checkpoints/<id>.json (recoverOutput made the folder): a temporary
// file, fsynced, then renamed into place and the folder fsynced. Until the
// rename a crash leaves at most a temporary file, which readLatestCheckpoint
// ignores: a checkpoint is complete exactly when its final name exists.
// Writing the final name in place instead would leave a torn checkpoint
// after a crash mid-write, and the job could not restart. Older checkpoints
// are then deleted (Flink retains one by default,
// state.checkpoints.num-retained); a power loss may bring one back, which
// is harmless: the latest checkpoint is the one with the highest id.
func storeCheckpoint(dir string, id int64, data []byte) error {
	cdir := filepath.Join(dir, checkpointsDir)
	final := filepath.Join(cdir, strconv.FormatInt(id, 10)+".json")
	tmp := final + ".tmp"
	if err := writeFileSync(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
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

// readLatestCheckpoint returns the id and the bytes of the completed
// checkpoint with the highest id in dir, or id 0 when there is none. The
// caller decodes them and checks their version.
func readLatestCheckpoint(dir string) (id int64, data []byte, err error) {
	cdir := filepath.Join(dir, checkpointsDir)
	ids, err := checkpointIDs(cdir)
	if err != nil || len(ids) == 0 {
		return 0, nil, err
	}
	id = ids[len(ids)-1]
	data, err = os.ReadFile(filepath.Join(cdir, strconv.FormatInt(id, 10)+".json"))
	if err != nil {
		return 0, nil, fmt.Errorf("read checkpoint %d: %w", id, err)
	}
	return id, data, nil
}

// checkpointIDs returns the ids of the completed checkpoints in cdir,
// ascending; temporary files of unfinished ones are not checkpoints.
func checkpointIDs(cdir string) ([]int64, error) {
	entries, err := os.ReadDir(cdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, e := range entries { // ReadDir sorts by name, not by number
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if id, err := strconv.ParseInt(name, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
