//go:build lab || solution

package rescaling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The suite's own key-group arithmetic, written from the formulas of the
// stage card, so that no check trusts the code under test.

// wantKeyGroup is kit.StableHash(key) % maxP.
func wantKeyGroup(key any, maxP int) int { return int(kit.StableHash(key) % uint64(maxP)) }

// wantTask is the subtask that owns key group kg: kg * p / maxP.
func wantTask(kg, maxP, p int) int { return kg * p / maxP }

// wantRange is the inclusive key-group range of subtask i.
func wantRange(i, maxP, p int) (first, last int) {
	return (i*maxP + p - 1) / p, ((i+1)*maxP - 1) / p
}

// wantSubtaskOf is the subtask that holds key's state at parallelism p.
func wantSubtaskOf(key string, maxP, p int) int { return wantTask(wantKeyGroup(key, maxP), maxP, p) }

// keyNames returns n keys "<prefix>00", "<prefix>01", ….
func keyNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// keyOnSubtask returns the first key "k0", "k1", … whose state lives on
// subtask i at parallelism p with maxP key groups.
func keyOnSubtask(i, maxP, p int) string {
	for n := 0; ; n++ {
		if k := fmt.Sprintf("k%d", n); wantSubtaskOf(k, maxP, p) == i {
			return k
		}
	}
}

// whereIs describes where key lives: its key group and, at each
// parallelism of ps, the subtask that owns it and that subtask's range.
func whereIs(key string, maxP int, ps ...int) string {
	kg := wantKeyGroup(key, maxP)
	var at []string
	for _, p := range ps {
		i := wantTask(kg, maxP, p)
		first, last := wantRange(i, maxP, p)
		at = append(at, fmt.Sprintf("at parallelism %d subtask %d owns it (range [%d,%d])", p, i, first, last))
	}
	return fmt.Sprintf("key %s is in key group %d of %d; %s", kit.ShowString(key), kg, maxP, strings.Join(at, ", "))
}

// newParallel returns NewParallelProcessor(cfg); it stops the test if that
// rejects this valid config.
func newParallel(t testing.TB, cfg ParallelConfig) *ParallelProcessor {
	t.Helper()
	pp, err := NewParallelProcessor(cfg)
	if err != nil || pp == nil {
		t.Fatalf("NewParallelProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, pp, err)
	}
	return pp
}

// snapshotOf returns pp.Snapshot(); it stops the test if that fails.
func snapshotOf(t testing.TB, pp *ParallelProcessor) []byte {
	t.Helper()
	b, err := pp.Snapshot()
	if err != nil || len(b) == 0 {
		t.Fatalf("Snapshot() = %d bytes, %v; want the processor's state: encoding state in memory cannot fail", len(b), err)
	}
	return b
}

// restoreOf returns RestoreParallelProcessor(snap, p, maxP) for a snapshot
// that Snapshot returned and valid arguments; it stops the test if that fails.
func restoreOf(t testing.TB, snap []byte, p, maxP int) *ParallelProcessor {
	t.Helper()
	pp, err := RestoreParallelProcessor(snap, p, maxP)
	if err != nil || pp == nil {
		t.Fatalf("RestoreParallelProcessor(<%d-byte snapshot taken with maxParallelism %d>, %d, %d) = %v, %v;\n"+
			"want a processor and no error: any parallelism from 1 to maxParallelism can restore a snapshot",
			len(snap), maxP, p, maxP, pp, err)
	}
	return pp
}

// tryRestore calls RestoreParallelProcessor(snap, p, maxP) and returns what
// it returned, or the value it panicked with and where (suite.Catch). A
// skeleton's "TODO" panic is passed on, so that suite.Recover reports the
// test as not implemented yet.
func tryRestore(snap []byte, p, maxP int) (pp *ParallelProcessor, err error, panicked string) {
	panicked = suite.Catch(func() { pp, err = RestoreParallelProcessor(snap, p, maxP) })
	return pp, err, panicked
}

// processor is the method set that a Processor and a ParallelProcessor
// share: a ParallelProcessor answers every call as one Processor would.
type processor = windowtest.Processor

// The call sequences and traces of windowtest, under this suite's names.
type (
	op    = windowtest.Op
	trace = windowtest.Trace
)

var (
	runOps, eventsOf = windowtest.Replay, windowtest.EventsOf
)

// singleRun returns what one stage-01 Processor for cfg does with ops: the
// unscaled run that every parallel run must equal.
func singleRun(t testing.TB, cfg Config, ops []op) trace {
	t.Helper()
	return runOps(windowtest.MustNew(t, NewProcessor, cfg), ops)
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg Config) picture.Windows {
	return picture.Windows{Size: cfg.WindowSize, Lateness: cfg.AllowedLateness}
}

// genOps returns windowtest.RandomOps for cfg.
func genOps(r *rand.Rand, cfg Config, keys []string, n int, bound int64) []op {
	return windowtest.RandomOps(r, keys, n, cfg.WindowSize, cfg.WatermarkDelay, bound)
}

// watermarkOrNone returns p.Watermark(), or math.MinInt64 if it panics.
func watermarkOrNone(p processor) (wm int64) {
	defer func() {
		if recover() != nil {
			wm = math.MinInt64
		}
	}()
	return p.Watermark()
}

// keysOf returns the distinct keys of rs, sorted.
func keysOf(rs ...[]kit.Result) []string {
	var keys []string
	for _, r := range rs {
		for _, x := range r {
			keys = append(keys, x.Key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// showKeys renders keys for a failure message, each through kit.ShowString
// (a 70 000-byte key stays short), at most twelve.
func showKeys(keys []string) string {
	var parts []string
	for i, k := range keys {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("… %d more", len(keys)-i))
			break
		}
		parts = append(parts, kit.ShowString(k))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
