//go:build flink

package parity

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// TestStateBackendsMatchFlink checks stage 12 against Flink's state
// backends: the window job of stages 01 and 03 (tumbling windows, allowed
// lateness, the side output) on the reference's BackendProcessor over its
// HeapBackend and over its PebbleBackend, and on Flink's WindowOperator
// over HashMapStateBackend and over EmbeddedRocksDBStateBackend (its
// timers in RocksDB too), and on stage 01's Processor. All five runs must
// agree call by call. Half the scenarios restore at one to three points:
// BackendProcessor from its backend's checkpoint (RestoreHeapBackend,
// RestorePebbleBackend into a new folder), Processor from its snapshot,
// Flink's operator from its snapshot of the heap or of RocksDB.
func TestStateBackendsMatchFlink(t *testing.T) {
	tmp := scratchDir(t)
	checkWindows(t, "stage 12, state backends", func(r *seeded) windowCase {
		cfg := tumblingConfig(r, true)
		c := tumblingCaseFor(r, cfg)
		if r.IntN(2) == 0 {
			c.ops = r.restores(c.ops)
		}
		c.spec.Backend = "hashmap"
		c.newP = func() windowtest.Processor { return newBackendProcessor(tmp, cfg, heapBackend) }
		c.restore = restoreBackend
		c.variants = []variant{
			{name: "course, Pebble", course: func(t *testing.T, c windowCase) []courseStep {
				c.newP = func() windowtest.Processor { return newBackendProcessor(tmp, cfg, pebbleBackend) }
				return c.replay()
			}},
			{name: "course, stage 01's Processor", course: func(t *testing.T, c windowCase) []courseStep {
				c.newP = func() windowtest.Processor { return must(solutions.NewProcessor(cfg)) }
				c.restore = restoreProcessor
				return c.replay()
			}},
			{name: "Flink, RocksDB", flink: func(t *testing.T, c windowCase) ([]flinkrun.Step, error) {
				c.spec.Backend = "rocksdb"
				return runFlink(t, c)
			}},
		}
		return c
	})
}

// scratchDir returns a new folder for t's backends, deleted when t ends:
// in memory, under /dev/shm, when the machine has one t can write to, else
// t.TempDir(). The backends sync what they write, as they must; on a busy
// disk those syncs cost Pebble about six times what the rest of a scenario
// does, and this test compares what the backends do, not how durably.
func scratchDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "flkbyo-parity-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("deleting the test's folder: %v", err)
		}
	})
	return dir
}

// A backendKind is one of stage 12's state backends: how to open a new one
// in a folder, and how to restore one from a checkpoint into a new folder.
type backendKind struct {
	name    string
	open    func(dir string) (solutions.StateBackend, error)
	restore func(checkpoint, dir string) (solutions.StateBackend, error)
}

// heapBackend and pebbleBackend are the reference's backends; Pebble's
// with the smallest budget it accepts, as stages 01 and 03's suites run
// on it.
var (
	heapBackend = backendKind{
		name: "heap",
		open: func(string) (solutions.StateBackend, error) { return solutions.NewHeapBackend(), nil },
		restore: func(checkpoint, _ string) (solutions.StateBackend, error) {
			return solutions.RestoreHeapBackend(checkpoint)
		},
	}
	pebbleBackend = backendKind{
		name: "pebble",
		open: func(dir string) (solutions.StateBackend, error) {
			return pebblestate.OpenPebbleBackend(dir, pebblestate.MinPebbleBudget)
		},
		restore: func(checkpoint, dir string) (solutions.StateBackend, error) {
			return pebblestate.RestorePebbleBackend(checkpoint, dir, pebblestate.MinPebbleBudget)
		},
	}
)

// backendProcessor is stage 12's BackendProcessor over a backend of its
// own, in a folder of its own (for its files, and its checkpoints), which
// Close closes and deletes.
type backendProcessor struct {
	*solutions.BackendProcessor
	cfg     solutions.Config
	kind    backendKind
	backend solutions.StateBackend
	tmp     string // where the folders are made
	dir     string // this processor's folder
}

// newBackendProcessor returns a BackendProcessor for cfg over a new
// backend of kind, in a new folder under tmp; if that fails, a processor
// that does nothing and whose Err says why.
func newBackendProcessor(tmp string, cfg solutions.Config, kind backendKind) windowtest.Processor {
	dir, err := os.MkdirTemp(tmp, kind.name+"-")
	if err != nil {
		return failedProcessor{err}
	}
	b, err := kind.open(filepath.Join(dir, "db"))
	if err != nil {
		os.RemoveAll(dir)
		return failedProcessor{fmt.Errorf("opening a %s backend: %w", kind.name, err)}
	}
	p, err := over(cfg, kind, b, tmp, dir)
	if err != nil {
		return failedProcessor{err}
	}
	return p
}

// over returns a BackendProcessor for cfg over b, in dir; on an error it
// closes b and deletes dir.
func over(cfg solutions.Config, kind backendKind, b solutions.StateBackend, tmp, dir string) (*backendProcessor, error) {
	p, err := solutions.NewBackendProcessor(cfg, b)
	if err != nil {
		b.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("NewBackendProcessor on a %s backend: %w", kind.name, err)
	}
	return &backendProcessor{BackendProcessor: p, cfg: cfg, kind: kind, backend: b, tmp: tmp, dir: dir}, nil
}

// Close closes the processor's backend and deletes its folder.
func (p *backendProcessor) Close() error {
	return errors.Join(p.backend.Close(), os.RemoveAll(p.dir))
}

// restoreBackend checkpoints p's backend and returns a new BackendProcessor
// over a backend restored from that checkpoint, in a new folder, as a job
// restarted from its last checkpoint does; p is closed. On an error p is
// left as it is.
func restoreBackend(p windowtest.Processor) (windowtest.Processor, error) {
	bp, ok := p.(*backendProcessor)
	if !ok {
		return nil, fmt.Errorf("a %T has no backend to restore", p)
	}
	dir, err := os.MkdirTemp(bp.tmp, bp.kind.name+"-")
	if err != nil {
		return nil, err
	}
	checkpoint := filepath.Join(dir, "checkpoint")
	if err := bp.Checkpoint(checkpoint); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("Checkpoint: %w", err)
	}
	b, err := bp.kind.restore(checkpoint, filepath.Join(dir, "db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("restoring a %s backend: %w", bp.kind.name, err)
	}
	q, err := over(bp.cfg, bp.kind, b, bp.tmp, dir)
	if err != nil {
		return nil, err
	}
	if err := bp.Close(); err != nil {
		q.Close()
		return nil, fmt.Errorf("closing the %s backend checkpointed: %w", bp.kind.name, err)
	}
	return q, nil
}

// failedProcessor is a processor that could not be made: its calls do
// nothing, and Err says why.
type failedProcessor struct{ err error }

func (f failedProcessor) Process(kit.Event) []kit.Result      { return nil }
func (f failedProcessor) AdvanceWatermark(int64) []kit.Result { return nil }
func (f failedProcessor) Watermark() int64                    { return math.MinInt64 }
func (f failedProcessor) Flush() []kit.Result                 { return nil }
func (f failedProcessor) Late() []kit.Event                   { return nil }
func (f failedProcessor) Err() error                          { return f.err }
