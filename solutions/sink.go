package solutions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/flk-byo/course/kit"
)

// The sink's files, under its directory:
//
//	staged/<id>.jsonl     a pre-committed transaction: durable, invisible
//	committed/<id>.jsonl  a committed transaction: what ReadCommitted reads
//
// Each file holds one JSON-encoded kit.Result per line, in write order. The
// open transaction lives in memory until PreCommit, so a crash drops it
// with nothing to clean up; that is safe because the job replays the source
// from the last checkpoint and re-produces it. Commit is one rename from
// staged/ to committed/: a reader sees all of a transaction or none of it.
// (Flink's FileSink works the same way with in-progress, pending and
// finished part files.)
const (
	stagedDir    = "staged"
	committedDir = "committed"
	txnExt       = ".jsonl"
)

// TwoPhaseCommitSink writes results to files under a directory, exactly
// once, with the protocol of Flink's TwoPhaseCommitSinkFunction: Write into
// an open transaction, PreCommit it when a checkpoint is taken (durable but
// invisible), Commit it when that checkpoint is complete (visible). It is
// not safe for concurrent use.
type TwoPhaseCommitSink struct {
	dir string

	// open is the open transaction: the JSON lines of the results written
	// since the last PreCommit (or Abort, or since the sink was opened).
	open bytes.Buffer
	enc  *json.Encoder // encodes into open

	// pending holds the checkpoint ids pre-committed by this sink and not
	// committed yet, ascending: the state a checkpoint must store so that
	// recovery can commit them.
	pending []int64
}

// NewTwoPhaseCommitSink returns a sink writing under dir (created if
// missing) with a first, empty transaction open. It does not touch files a
// previous sink left in dir: after a crash, use RecoverTwoPhaseCommitSink.
func NewTwoPhaseCommitSink(dir string) (*TwoPhaseCommitSink, error) {
	for _, sub := range []string{stagedDir, committedDir} {
		if err := mkdirDurable(filepath.Join(dir, sub)); err != nil {
			return nil, fmt.Errorf("2pc sink: %w", err)
		}
	}
	s := &TwoPhaseCommitSink{dir: dir}
	s.enc = json.NewEncoder(&s.open)
	return s, nil
}

// Write adds r to the open transaction. Nothing is visible to a reader, or
// even on disk, until the transaction is pre-committed and then committed.
func (s *TwoPhaseCommitSink) Write(r kit.Result) error {
	return s.enc.Encode(r) // one line per result
}

// PreCommit ends the open transaction as the one of checkpoint
// checkpointID: it writes it to a staged file and fsyncs it, so it survives
// a crash, but does not publish it. Then it opens the next transaction. It
// is an error to pre-commit an id that is already staged or committed:
// that would overwrite, or be silently skipped by, an idempotent Commit.
func (s *TwoPhaseCommitSink) PreCommit(checkpointID int64) error {
	staged, committed := s.path(stagedDir, checkpointID), s.path(committedDir, checkpointID)
	for _, p := range []string{staged, committed} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("2pc sink: pre-commit of checkpoint %d: %s exists already", checkpointID, p)
		}
	}
	// A crash halfway through leaves a torn staged file, but no checkpoint
	// lists this id yet (the job stores it only after PreCommit returns), so
	// recovery deletes it as a stray: no temporary file is needed here.
	if err := writeFileSync(staged, s.open.Bytes()); err != nil {
		return fmt.Errorf("2pc sink: pre-commit of checkpoint %d: %w", checkpointID, err)
	}
	if err := syncDir(filepath.Join(s.dir, stagedDir)); err != nil {
		return fmt.Errorf("2pc sink: pre-commit of checkpoint %d: %w", checkpointID, err)
	}
	i, _ := slices.BinarySearch(s.pending, checkpointID)
	s.pending = slices.Insert(s.pending, i, checkpointID)
	s.open.Reset() // begin the next transaction
	return nil
}

// Commit publishes the transaction pre-committed for checkpointID, by
// renaming its staged file into committed/: atomically, a reader sees all of
// it or nothing (copying the bytes instead would show a reader the first
// pages before the last ones are written). Committing it again is a no-op
// (recovery commits every pending transaction again, and a completion
// notice may come twice). An id that was never pre-committed, or was
// aborted, is an error: its data is not there to publish.
//
// Commit works from the files, not from memory, so a recovered sink can
// commit what the crashed one pre-committed.
func (s *TwoPhaseCommitSink) Commit(checkpointID int64) error {
	staged, committed := s.path(stagedDir, checkpointID), s.path(committedDir, checkpointID)
	err := os.Rename(staged, committed)
	switch {
	case err == nil:
		// The new name is durable once committed/ is fsynced: until then a
		// power loss could undo a commit that a reader has already seen.
		// Fsyncing staged/ as well makes the old name's removal durable on
		// every file system, so the staged file cannot come back.
		if err := syncDir(filepath.Join(s.dir, committedDir)); err != nil {
			return fmt.Errorf("2pc sink: commit of checkpoint %d: %w", checkpointID, err)
		}
		if err := syncDir(filepath.Join(s.dir, stagedDir)); err != nil {
			return fmt.Errorf("2pc sink: commit of checkpoint %d: %w", checkpointID, err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// Nothing staged: either committed before (a repeated commit, fine)
		// or never pre-committed.
		if _, statErr := os.Stat(committed); statErr != nil {
			if errors.Is(statErr, fs.ErrNotExist) {
				return fmt.Errorf("2pc sink: commit of unknown checkpoint %d: no transaction was pre-committed for it (or it was aborted)", checkpointID)
			}
			return fmt.Errorf("2pc sink: commit of checkpoint %d: %w", checkpointID, statErr)
		}
	default:
		return fmt.Errorf("2pc sink: commit of checkpoint %d: %w", checkpointID, err)
	}
	if i, found := slices.BinarySearch(s.pending, checkpointID); found {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
	return nil
}

// Abort discards the open transaction: everything written since the last
// PreCommit (or since the sink was opened). Pre-committed transactions are
// untouched, and the sink stays usable: later writes go to a new, empty
// transaction.
func (s *TwoPhaseCommitSink) Abort() error {
	s.open.Reset()
	return nil
}

// Pending returns the ids of the transactions this sink pre-committed and
// has not committed yet, ascending. It is the sink's part of a checkpoint:
// after a crash, RecoverTwoPhaseCommitSink needs exactly this list. It is a
// copy: the job stores it in a checkpoint, which must keep the ids pending
// when it was taken while the sink goes on committing.
func (s *TwoPhaseCommitSink) Pending() []int64 {
	return slices.Clone(s.pending)
}

// RecoverTwoPhaseCommitSink reopens the sink in dir after a crash, from the
// pending list stored in the last completed checkpoint, as Flink's
// TwoPhaseCommitSinkFunction.initializeState does:
//
//  1. recoverAndCommit: every pending transaction is committed. Its
//     checkpoint completed, so its data must become visible even if the
//     crash came before the commit; if it was committed already, committing
//     again is a no-op.
//  2. recoverAndAbort: every other staged transaction is deleted. It was
//     pre-committed for a checkpoint that never completed, so the job will
//     replay the source and produce its results again.
//
// The order matters: deleting strays first would delete pending
// transactions too, and lose output that a completed checkpoint promised.
// The returned sink has a new, empty transaction open and nothing pending.
func RecoverTwoPhaseCommitSink(dir string, pending []int64) (*TwoPhaseCommitSink, error) {
	s, err := NewTwoPhaseCommitSink(dir)
	if err != nil {
		return nil, err
	}
	for _, id := range pending {
		if err := s.Commit(id); err != nil {
			return nil, fmt.Errorf("recovery of %s: %w", dir, err)
		}
	}
	staged := filepath.Join(dir, stagedDir)
	entries, err := os.ReadDir(staged)
	if err != nil {
		return nil, fmt.Errorf("2pc sink: recovery: %w", err)
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(staged, e.Name())); err != nil {
			return nil, fmt.Errorf("2pc sink: recovery: abort %s: %w", e.Name(), err)
		}
	}
	if err := syncDir(staged); err != nil {
		return nil, fmt.Errorf("2pc sink: recovery: %w", err)
	}
	return s, nil
}

// ReadCommitted returns the committed results in dir: the transactions in
// ascending checkpoint id, each in write order. It never shows a staged or
// open transaction, which is what a read_committed consumer of Kafka sees.
// A dir in which nothing was committed yet gives no results and no error.
func ReadCommitted(dir string) ([]kit.Result, error) {
	entries, err := os.ReadDir(filepath.Join(dir, committedDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("2pc sink: read committed: %w", err)
	}
	// Sort by id as a number: "10.jsonl" comes after "9.jsonl".
	var ids []int64
	for _, e := range entries {
		id, err := strconv.ParseInt(strings.TrimSuffix(e.Name(), txnExt), 10, 64)
		if err != nil || !strings.HasSuffix(e.Name(), txnExt) {
			return nil, fmt.Errorf("2pc sink: read committed: unexpected file %s", e.Name())
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)

	var out []kit.Result
	for _, id := range ids {
		f, err := os.Open(filepath.Join(dir, committedDir, txnName(id)))
		if err != nil {
			return nil, fmt.Errorf("2pc sink: read committed: %w", err)
		}
		dec := json.NewDecoder(f)
		for {
			var r kit.Result
			if err := dec.Decode(&r); err == io.EOF {
				break
			} else if err != nil {
				f.Close()
				return nil, fmt.Errorf("2pc sink: read committed checkpoint %d: %w", id, err)
			}
			out = append(out, r)
		}
		f.Close()
	}
	return out, nil
}

// path returns the file of checkpoint id's transaction in sub.
func (s *TwoPhaseCommitSink) path(sub string, id int64) string {
	return filepath.Join(s.dir, sub, txnName(id))
}

// txnName is the file name of checkpoint id's transaction.
func txnName(id int64) string { return strconv.FormatInt(id, 10) + txnExt }

// writeFileSync writes data to a new file at path and fsyncs it before
// closing: when it returns, the bytes are on disk, not only in the page
// cache.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
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
	return f.Close()
}

// mkdirDurable creates the directory dir, and its missing parents as
// os.MkdirAll does, durably. A directory is a name in its parent, and like a
// file's name it is durable only once the parent is fsynced: without that
// fsync, a power loss can take the new directory away, and every file
// fsynced into it with it. The parent is fsynced even when dir exists
// already: a run that crashed right after creating it never got that far.
func mkdirDurable(dir string) error {
	parent := filepath.Dir(dir)
	if parent == dir {
		return nil // the root
	}
	if _, err := os.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		if err := mkdirDurable(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(parent)
}

// syncDir fsyncs a directory, which makes the creation, renaming or removal
// of the files in it durable. A file's own fsync does not cover its name.
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
