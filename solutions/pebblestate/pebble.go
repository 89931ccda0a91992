// Package pebblestate is the reference's disk backend for stage 12: a
// solutions.StateBackend in Pebble (github.com/cockroachdb/pebble/v2), the
// embedded LSM store nearest in Go to the RocksDB under Flink's
// EmbeddedRocksDBStateBackend.
//
// It is a package of its own, not part of package solutions, so that only
// what runs a Pebble backend links Pebble, a large dependency: stage 12's
// suite (its bind_solution_test.go binds the card's names to this
// package's), stages 01 and 03's suites rerun on Pebble, de bench's stage
// 12 benchmarks and de demo 12. Every other stage's test binary, its
// fuzzing and its mutants build and start without it. The names are the
// card's, and the file uses nothing of package solutions: it is the
// learner's lab/pebble.go as it could be, in package lab.
package pebblestate

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// PebbleBackend is a solutions.StateBackend on disk, in Pebble: an LSM tree, like the
// RocksDB under Flink's EmbeddedRocksDBStateBackend. Writes go to an
// in-memory memtable (and the write-ahead log); full memtables are flushed
// to immutable sorted files (sstables) on disk, which reads find through a
// block cache. So however large the state grows, what Pebble holds in
// memory is bounded by the memtables and the cache: the budget.
type PebbleBackend struct {
	db *pebble.DB
}

// MinPebbleBudget is the smallest memory budget OpenPebbleBackend accepts.
const MinPebbleBudget = 1 << 20

// OpenPebbleBackend opens the Pebble database in dir, creating it if dir is
// empty or missing, with at most budget bytes of memory for its state: two
// memtables of budget/4 each (one being written, one being flushed), and
// what is left of budget for the block cache. It returns an error for a
// budget below MinPebbleBudget or a database that cannot be opened.
func OpenPebbleBackend(dir string, budget int64) (*PebbleBackend, error) {
	if budget < MinPebbleBudget {
		return nil, fmt.Errorf("backend: the memory budget must be at least %d bytes, got %d", MinPebbleBudget, budget)
	}
	// The cache is the whole budget, not what is left of it: Pebble takes
	// each memtable's memory out of the block cache (Cache.Reserve), as
	// RocksDB's WriteBufferManager charges memtables to the cache under
	// Flink's managed memory. A cache of budget/2 beside two memtables of
	// budget/4 would hold no block at all, and every read that misses the
	// memtables would read and decompress its block from disk again.
	cache := pebble.NewCache(budget)
	defer cache.Unref() // the database holds its own reference
	opts := &pebble.Options{
		Cache:                       cache,
		MemTableSize:                uint64(budget / 4),
		MemTableStopWritesThreshold: 2,
		Logger:                      quietLogger{},
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("backend: open pebble in %s: %w", dir, err)
	}
	return &PebbleBackend{db: db}, nil
}

// RestorePebbleBackend copies the checkpoint that PebbleBackend.Checkpoint
// wrote to checkpoint into the new directory dir and opens it there, as
// OpenPebbleBackend does. The checkpoint itself is never opened or
// changed, so it can be restored again, and dir shares no file with it.
func RestorePebbleBackend(checkpoint, dir string, budget int64) (*PebbleBackend, error) {
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("backend: restore into %s: the directory must not exist yet", dir)
	}
	// A copy, not hard links: Pebble's sstables never change, but its
	// manifest and write-ahead log are appended to, and those belong to
	// the checkpoint.
	if err := os.CopyFS(dir, os.DirFS(checkpoint)); err != nil {
		return nil, fmt.Errorf("backend: restore from %s: %w", checkpoint, err)
	}
	return OpenPebbleBackend(dir, budget)
}

// Get returns a copy of the value stored under key.
func (b *PebbleBackend) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := b.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v = bytes.Clone(v) // v is valid only until closer is closed
	return v, true, closer.Close()
}

// Set stores value under key. It does not wait for the write-ahead log to
// reach the disk: durability comes from checkpoints, which sync.
func (b *PebbleBackend) Set(key, value []byte) error {
	return b.db.Set(key, value, pebble.NoSync)
}

// Delete removes key (Pebble writes a tombstone, dropped by compaction).
func (b *PebbleBackend) Delete(key []byte) error {
	return b.db.Delete(key, pebble.NoSync)
}

// Scan calls fn for every entry with start ≤ key < end, in key order (an
// empty end: no upper bound), through a Pebble iterator bounded to the
// range.
func (b *PebbleBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	// Empty bounds are no bounds; say so with nil, which is what Pebble
	// reads as none (its own checks, on under -race, cannot seek to an
	// empty key).
	if len(start) == 0 {
		start = nil
	}
	if len(end) == 0 {
		end = nil
	}
	it, err := b.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(it.Key(), v)
		}
		if err != nil {
			return errors.Join(err, it.Close())
		}
	}
	return it.Close()
}

// Checkpoint writes Pebble's own checkpoint of the database to the new
// directory dir: hard links to the sstables, which never change, and
// copies of the small files that do (the manifest, the options, the
// write-ahead log, flushed and synced first so that it holds every write
// made before the call). A checkpoint therefore costs about what changed
// since the last flush, not the size of the state: Flink's incremental
// checkpoints.
func (b *PebbleBackend) Checkpoint(dir string) error {
	return b.db.Checkpoint(dir, pebble.WithFlushedWAL())
}

// Close closes the database.
func (b *PebbleBackend) Close() error {
	return b.db.Close()
}

// quietLogger drops Pebble's informational messages, which a job's output
// is no place for, and keeps its fatal ones.
type quietLogger struct{}

func (quietLogger) Infof(format string, args ...any)  {}
func (quietLogger) Errorf(format string, args ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}
