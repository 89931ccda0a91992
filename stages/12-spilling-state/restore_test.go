//go:build lab || solution

package spillingstate

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
)

// restoreConfig is the config of the restore tests: corrections within a
// lateness, and disorder beyond it.
var restoreConfig = Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 10}

// cutRun is one processor run cut at a call: the calls, the trace of an
// uninterrupted run, and a processor that has made the calls before the
// cut, with its checkpoint taken there.
type cutRun struct {
	ops        []windowtest.Op
	want       windowtest.Trace
	cut        int
	checkpoint string
	lateAtCut  int // len(Late()) at the cut
}

// picture draws, with pictures on, the restored run that went on as got
// (windowtest.Cut); the calls before the cut are the uninterrupted run's.
func (c cutRun) picture(t testing.TB, note string, got windowtest.Trace) string {
	cut := windowtest.Cut{Ops: c.ops, Full: c.want, At: c.cut, LateAtCut: c.want.Late[:c.lateAtCut], Cont: got}
	return cut.Picture(t, note, pictureWindows(restoreConfig))
}

// rest returns what the calls after the cut must give.
func (c cutRun) rest() windowtest.Trace {
	return windowtest.Trace{Outs: c.want.Outs[c.cut:], WMs: c.want.WMs[c.cut:], Late: c.want.Late[c.lateAtCut:]}
}

// cutAt runs ops[:cut] on a new processor on a backend of kind, takes its
// checkpoint, then lets that processor go on with the rest of the calls,
// so that its live state moves on past the checkpoint.
func cutAt(t testing.TB, kind backendKind, ops []windowtest.Op, want windowtest.Trace, cut int) cutRun {
	t.Helper()
	live := newProcessor(t, restoreConfig, kind.open(t))
	windowtest.Replay(live, ops[:cut])
	c := cutRun{ops: ops, want: want, cut: cut, checkpoint: checkpoint(t, live), lateAtCut: len(live.Late())}
	windowtest.Replay(live, ops[cut:])
	return c
}

// resume restores a backend of kind from c's checkpoint and replays the
// calls after the cut on a new processor over it.
func (c cutRun) resume(t testing.TB, kind backendKind) windowtest.Trace {
	t.Helper()
	return windowtest.Replay(newProcessor(t, restoreConfig, kind.restore(t, c.checkpoint)), c.ops[c.cut:])
}

// TestRestoreAndContinueAtEveryCut certifies that on both backends, a
// processor over a backend restored from the checkpoint taken after any
// call of a seeded run (late events, corrections, redeliveries, awkward
// keys and IDs, Flush) makes every later call exactly as the uninterrupted
// run did, with Late() starting empty, even though the processor that took
// the checkpoint went on changing its own backend afterwards.
func TestRestoreAndContinueAtEveryCut(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			// Every cut costs a restore, and opening Pebble costs about a
			// tenth of a second under -race: fewer events there.
			n := 40
			if kind.name == "pebble" {
				n = 16
			}
			ops := randomOps(rnd, restoreConfig, n, 2*restoreConfig.WindowSize+restoreConfig.AllowedLateness)
			want := reference(t, restoreConfig, ops)
			// One live run takes a checkpoint before every call and goes on.
			live := newProcessor(t, restoreConfig, kind.open(t))
			var cuts []cutRun
			for cut := range len(ops) + 1 {
				cuts = append(cuts, cutRun{ops: ops, want: want, cut: cut, checkpoint: checkpoint(t, live), lateAtCut: len(live.Late())})
				if cut < len(ops) {
					ops[cut].Apply(live)
				}
			}
			for _, c := range cuts {
				if d, drawn := firstCallDiff(ops[c.cut:], c.resume(t, kind), c.rest()); d != "" {
					msg := fmt.Sprintf("%s backend: restored from the checkpoint taken after call %d of %d, the run went on differently:\n%s\n"+
						"A checkpoint holds all state as it was when Checkpoint was called: the watermark, every seen ID,\n"+
						"every unexpired window's tallies, fired or not. What the live backend did afterwards is not in it.\n"+
						"Late() starts empty after a restore: the side output is output, not state.", kind.name, c.cut, len(ops), d)
					t.Fatalf("%s%s", msg, c.picture(t, msg, drawn))
				}
			}
		})
	}
}

// TestCheckpointRestoresTwice certifies that on both backends, using a
// restored backend never changes the checkpoint it came from: a second
// restore from the same checkpoint, after the first has gone on to the
// end, starts again from the checkpoint's state.
func TestCheckpointRestoresTwice(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			ops := randomOps(rnd, restoreConfig, 40, 2*restoreConfig.WindowSize+restoreConfig.AllowedLateness)
			want := reference(t, restoreConfig, ops)
			for _, cut := range []int{len(ops) / 3, len(ops) / 2, 2 * len(ops) / 3} {
				c := cutAt(t, kind, ops, want, cut)
				c.resume(t, kind) // the first restore runs to the end, changing its backend
				if d, drawn := firstCallDiff(ops[cut:], c.resume(t, kind), c.rest()); d != "" {
					msg := fmt.Sprintf("%s backend: the second restore from the checkpoint taken after call %d of %d went on differently:\n%s\n"+
						"A checkpoint is a copy that nothing changes: restore it into a new place (copy its files), never\n"+
						"open it in place, or the first restored job writes into it.", kind.name, cut, len(ops), d)
					t.Fatalf("%s%s", msg, c.picture(t, msg, drawn))
				}
			}
		})
	}
}

// TestResumesOnTheSameBackend certifies that the processor keeps no state
// of its own: after any call of a seeded run, a new BackendProcessor over
// the same backend (the suite's own, a map) makes every later call exactly
// as the first processor would have.
func TestResumesOnTheSameBackend(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range semanticConfigs {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			defer suite.Recover(t)
			ops := randomOps(rnd, cfg, 40, cfg.WatermarkDelay+2*cfg.WindowSize+cfg.AllowedLateness)
			want := reference(t, cfg, ops)
			for cut := range len(ops) + 1 {
				b := newMemBackend()
				first := newProcessor(t, cfg, b)
				windowtest.Replay(first, ops[:cut])
				c := windowtest.Cut{Ops: ops, Full: want, At: cut, LateAtCut: first.Late()}
				got := windowtest.Replay(newProcessor(t, cfg, b), ops[cut:])
				rest := windowtest.Trace{Outs: want.Outs[cut:], WMs: want.WMs[cut:], Late: want.Late[len(c.LateAtCut):]}
				if d, drawn := firstCallDiff(ops[cut:], got, rest); d != "" {
					msg := fmt.Sprintf("A new processor over the backend of one that made %d of %d calls went on differently:\n%s\n"+
						"All state lives in the backend: the seen IDs, every window's tallies, which windows exist, and\n"+
						"the watermark. A processor that keeps any of it in its own fields loses it on a restore.",
						cut, len(ops), d)
					c.Cont = drawn
					t.Fatalf("%s%s", msg, c.Picture(t, msg, pictureWindows(cfg)))
				}
			}
		})
	}
}
