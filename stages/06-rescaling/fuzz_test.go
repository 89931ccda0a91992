//go:build lab || solution

package rescaling

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// fuzzCfg is the window configuration of the fuzz seeds' processors.
var fuzzCfg = Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 100}

// FuzzRestoreParallelProcessor certifies that RestoreParallelProcessor never panics on any bytes and parallelism, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus, made at run time by your code: snapshots
// your Snapshot writes (new processors, busy ones mid-stream, a flushed one,
// one restored at another parallelism), their prefixes, copies with a byte
// flipped or a byte appended, each at valid and invalid parallelisms, and
// bytes that are no snapshot at all. To search for more:
//
//	go test -tags lab -run '^$' -fuzz '^FuzzRestoreParallelProcessor$' ./stages/06-rescaling
//
// The parallelism and maxParallelism are int16, so that the fuzzer tries
// zero, negative and too-large values without asking for billions of
// subtasks.
func FuzzRestoreParallelProcessor(f *testing.F) {
	defer suite.Recover(f)
	type seed struct {
		snap []byte
		maxP int
	}
	var seeds []seed
	for _, c := range []struct{ p, maxP int }{{1, 1}, {2, 16}, {3, 128}} {
		pp := newParallel(f, ParallelConfig{Processor: fuzzCfg, Parallelism: c.p, MaxParallelism: c.maxP})
		seeds = append(seeds, seed{snapshotOf(f, pp), c.maxP})
	}
	for i, c := range []struct{ p, maxP, events int }{{3, 16, 10}, {4, 128, 40}} {
		pp := newParallel(f, ParallelConfig{Processor: fuzzCfg, Parallelism: c.p, MaxParallelism: c.maxP})
		ops := genOps(kit.NewRand(uint64(i+1)), fuzzCfg, keyNames("k", 6), c.events, 200)
		for _, o := range ops[:len(ops)-3] { // stop before Flush: windows still open
			o.Apply(pp)
		}
		snap := snapshotOf(f, pp)
		seeds = append(seeds, seed{snap, c.maxP}, seed{snapshotOf(f, restoreOf(f, snap, 1, c.maxP)), c.maxP})
	}
	flushed := newParallel(f, ParallelConfig{Processor: Config{WindowSize: 7, WatermarkDelay: 2}, Parallelism: 2, MaxParallelism: 4})
	flushed.Process(windowtest.Ev("e1", "k", -3, 1))
	flushed.Flush()
	seeds = append(seeds, seed{snapshotOf(f, flushed), 4})

	add := func(b []byte, p, maxP int) { f.Add(b, int16(p), int16(maxP)) }
	for _, s := range seeds {
		snap, maxP := s.snap, s.maxP
		add(snap, 1, maxP)
		add(snap, maxP, maxP)
		add(snap, 0, maxP)
		add(snap, -1, maxP)
		add(snap, maxP+1, maxP)
		add(snap, 1, 2*maxP)
		for _, damaged := range windowtest.DamagedSnapshots(snap) {
			add(damaged, 1, maxP)
		}
	}
	tumbling, err := windowtest.MustNew(f, NewProcessor, fuzzCfg).Snapshot()
	if err != nil {
		f.Fatalf("Processor.Snapshot (stage 04): %v", err)
	}
	add(tumbling, 1, 128) // a stage 04 snapshot is not a parallel one
	add(nil, 1, 128)
	add([]byte{}, 2, 16)
	add([]byte("not a snapshot at all"), 1, 1)
	add(bytes.Repeat([]byte{0xff}, 64), 3, 128)

	f.Fuzz(func(t *testing.T, data []byte, parallelism, maxParallelism int16) {
		defer suite.Recover(t)
		p, maxP := int(parallelism), int(maxParallelism)
		call := fmt.Sprintf("RestoreParallelProcessor(<%s>, %d, %d)", suite.HexHead(data), p, maxP)
		pp, err, panicked := tryRestore(data, p, maxP)
		switch {
		case panicked != "":
			t.Fatalf("%s panicked: %s\nIt must return an error, not panic: a savepoint comes from a file that may be truncated,\n"+
				"damaged or not a snapshot at all, and a job that crashes while restoring never recovers. Check the\n"+
				"arguments, then every length against the bytes left before slicing.", call, panicked)
		case err != nil && pp != nil:
			t.Fatalf("%s returned the error %q AND a processor; on error, return nil", call, err)
		case err != nil:
			return
		case pp == nil:
			t.Fatalf("%s returned neither a processor nor an error", call)
		case p < 1 || maxP < 1 || p > maxP:
			t.Fatalf("%s returned a processor and no error; want an error: the parallelism must be from 1 to\n"+
				"maxParallelism, and maxParallelism at least 1", call)
		}
		// Accepted: the result must be a working processor whose snapshot
		// restores, at this parallelism and at any other, to the same state.
		snap := snapshotOf(t, pp)
		if again := snapshotOf(t, restoreOf(t, snap, p, maxP)); !bytes.Equal(snap, again) {
			t.Fatalf("%s was accepted, but the processor it returned snapshots to bytes that restore (at parallelism %d)\n"+
				"and snapshot differently:\n%s\nA restored processor is in the same state as the one snapshotted, so its snapshot\n"+
				"is the same bytes. A difference means the restore lost or changed something (a key group, a window, a\n"+
				"seen ID, the watermark), or the encoding depends on map order: write the key groups in ascending order.",
				call, p, suite.ByteDiff(snap, again))
		}
		restoreOf(t, snap, 1, maxP)
		for i := range p {
			pp.KeysOn(i)
		}
		pp.Process(windowtest.Ev("fuzz", "k", 0, 1))
		pp.AdvanceWatermark(50)
		pp.Flush()
		pp.Late()
	})
}
