// Package rescalerestore is the reference fix of drill 06, "The rescale
// that would not restore": the merchant-totals job, fixed. It counts and
// sums each merchant's orders per UTC day and appends each day's total to
// the finance rollups table once the day has closed.
//
//	orders topic → daily windows per merchant (key-grouped, Parallelism subtasks) → rollups table
//
// It is stopped with a savepoint and restored from it whenever it is
// redeployed or rescaled.
//
// The job as it was restored the 14:00 savepoint, taken with 128 key
// groups, with maxParallelism 256: the engine refused it (a key's key
// group is its hash modulo maxParallelism), and the job then started from
// zero and re-read a topic that keeps six hours, not seven days, so every
// merchant's Friday total lost its morning. The fix keeps maxParallelism
// at the savepoint's 128, whatever the parallelism, and refuses a
// savepoint it cannot restore instead of starting from zero. The drill's
// EXPLAIN.md works through it and the two numbers handed in.
package rescalerestore

import (
	"fmt"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
	"github.com/flk-byo/course/kit"
)

// Topic is the orders topic as the job reads it: the records it still
// holds, in offset order.
type Topic struct {
	// Earliest is the offset of Records[0]: retention has deleted every
	// record before it.
	Earliest int64
	// Records are the orders from offset Earliest on.
	Records []kit.Event
}

// Savepoint is what stopping the job with a savepoint leaves behind: where
// it stopped reading and the state of its windows.
type Savepoint struct {
	// Offset is the first offset of the topic the job has not read.
	Offset int64
	// State is the engine's snapshot of the daily windows
	// (engine.ParallelProcessor.Snapshot).
	State []byte
}

// Run runs the job with cfg over topic, from savepoint sp (nil: a new job,
// which reads the topic from its earliest offset), up to offset until. It
// appends every daily total that closes to the rollups table through emit,
// in the order they close, and then stops with a savepoint.
func Run(cfg engine.ParallelConfig, sp *Savepoint, topic Topic, until int64, emit func(kit.Result)) (*Savepoint, error) {
	pp, from, err := open(cfg, sp, topic)
	if err != nil {
		return nil, err
	}
	if from < topic.Earliest || until > topic.Earliest+int64(len(topic.Records)) {
		return nil, fmt.Errorf("merchant totals: read offsets [%d, %d): the topic holds [%d, %d)",
			from, until, topic.Earliest, topic.Earliest+int64(len(topic.Records)))
	}
	for off := from; off < until; off++ {
		for _, r := range pp.Process(topic.Records[off-topic.Earliest]) {
			emit(r)
		}
	}
	state, err := pp.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("merchant totals: savepoint at offset %d: %w", until, err)
	}
	return &Savepoint{Offset: until, State: state}, nil
}

// open returns the windows the job starts with and the offset it reads
// from.
func open(cfg engine.ParallelConfig, sp *Savepoint, topic Topic) (*engine.ParallelProcessor, int64, error) {
	if sp != nil {
		// A savepoint that cannot be restored stops the job: starting from
		// zero instead would lose every open day's orders before the
		// savepoint (the topic keeps six hours of them, not a day), and
		// re-reading what it still holds would append the days that already
		// closed a second time. What to do next is on-call's decision.
		pp, err := engine.RestoreParallelProcessor(sp.State, cfg.Parallelism, cfg.MaxParallelism)
		if err != nil {
			return nil, 0, fmt.Errorf("merchant totals: cannot restore the savepoint at offset %d (parallelism %d, "+
				"maxParallelism %d): %w", sp.Offset, cfg.Parallelism, cfg.MaxParallelism, err)
		}
		return pp, sp.Offset, nil
	}
	pp, err := engine.NewParallelProcessor(cfg)
	if err != nil {
		return nil, 0, fmt.Errorf("merchant totals: %w", err)
	}
	return pp, topic.Earliest, nil
}
