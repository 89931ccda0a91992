//go:build lab || solution

package spillingstate

import (
	"fmt"
	"math"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// semanticConfigs are the window shapes the seeded runs cover: no
// lateness, corrections within a lateness, a long delay, and windows of 1.
var semanticConfigs = []Config{
	{WindowSize: 10, WatermarkDelay: 5},
	{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 20},
	{WindowSize: 7, WatermarkDelay: 30, AllowedLateness: 7},
	{WindowSize: 1, WatermarkDelay: 2, AllowedLateness: 3},
}

// TestBehavesLikeProcessorOnEveryBackend certifies that on the heap and on
// the disk backend, a BackendProcessor makes every call of seeded runs
// (late events, corrections within the allowed lateness, the side output
// beyond it, redeliveries, awkward keys and IDs, AdvanceWatermark, Flush
// and calls after it) exactly as stage 01's Processor does: the same
// results in the same (End, Start, Key) order, the same watermark after
// every call and the same Late().
func TestBehavesLikeProcessorOnEveryBackend(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, kind := range backends {
		for _, cfg := range semanticConfigs {
			t.Run(fmt.Sprintf("%s %+v", kind.name, cfg), func(t *testing.T) {
				defer suite.Recover(t)
				ops := randomOps(rnd, cfg, 80, cfg.WatermarkDelay+2*cfg.WindowSize+cfg.AllowedLateness)
				got := windowtest.Replay(newProcessor(t, cfg, kind.open(t)), ops)
				want := reference(t, cfg, ops)
				if d, drawn := firstCallDiff(ops, got, want); d != "" {
					msg := fmt.Sprintf("On the %s backend the processor did not do what stage 01's Processor does:\n%s\n"+
						"The backend changes where state lives, never what the processor returns: results in\n"+
						"(End, Start, Key) order, corrections within AllowedLateness, the side output beyond it,\n"+
						"redeliveries ignored.", kind.name, d)
					t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, want))
				}
			})
		}
	}
}

// TestShufflesAndDuplicatesMatchOracle certifies that on both backends the
// results of a seeded stream, delivered in bounded shuffles within the
// watermark delay and with redeliveries, are exactly the in-order oracle's
// (every ID counted once), each call's in (End, Start, Key) order, with
// nothing late.
func TestShufflesAndDuplicatesMatchOracle(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	const size, delay = 10, 15
	events := kit.RandomEvents(rnd, 120, oracleKeys, -4*size, 10*size)
	want := windowtest.InOrderResults(events, size)
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			for what, delivered := range windowtest.Shuffles(rnd, events, 4, delay, 0.2) {
				p := newProcessor(t, Config{WindowSize: size, WatermarkDelay: delay}, kind.open(t))
				d := windowtest.Deliver(t, p, size, 0, delivered)
				if msg := d.Unordered(); msg != "" {
					t.Fatalf("%s backend, %s: %s", kind.name, what, msg)
				}
				if missing, extra := windowtest.Unmatched(d.Emitted, want); len(missing)+len(extra) > 0 {
					msg := fmt.Sprintf("%s backend, %s of %d events (disorder within the delay %d):\n%s\n"+
						"Each event counts once per ID in its window, whatever the order of arrival.",
						kind.name, what, len(events), delay, windowtest.DiffResults(d.Emitted, want))
					t.Fatalf("%s%s", msg, d.Picture(msg, picture.Windows{Size: size}))
				}
				if len(d.Late) > 0 {
					msg := fmt.Sprintf("%s backend, %s: Late() = %s, want nothing: the disorder is within the watermark delay.",
						kind.name, what, windowtest.FmtEvents(d.Late))
					t.Fatalf("%s%s", msg, d.Picture(msg, picture.Windows{Size: size}))
				}
			}
		})
	}
}

// TestLatenessAndSideOutputOnEveryBackend certifies that on both backends,
// on a small timeline, a late event within the allowed lateness corrects
// its fired window at once (IsUpdate set for a key that had a result), an
// event whose window has expired goes to Late() and changes nothing, and a
// redelivery of either is a no-op.
func TestLatenessAndSideOutputOnEveryBackend(t *testing.T) {
	defer suite.Recover(t)
	ev, res, upd := windowtest.Ev, windowtest.Res, windowtest.Upd
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			cfg := Config{WindowSize: 10, WatermarkDelay: 0, AllowedLateness: 10}
			r := windowtest.NewRun(t, newProcessor(t, cfg, kind.open(t)), cfg.WindowSize, cfg.AllowedLateness)
			r.ProcessAll(ev("e1", "a", 3, 1), ev("e2", "b", 5, 2))
			r.Expect("Process(e3 a@12=4)", r.Process(ev("e3", "a", 12, 4)),
				[]kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 2)}, "the watermark 12 passes the end of [0,10)")
			r.Expect("Process(e4 a@7=8)", r.Process(ev("e4", "a", 7, 8)),
				[]kit.Result{upd("a", 0, 10, 2, 9)}, "[0,10) has fired and keeps its state until 10+10: a's result is corrected")
			r.Expect("Process(e4 a@7=8) again", r.Process(ev("e4", "a", 7, 8)), nil, "a redelivered ID is a no-op")
			r.Expect("Process(e5 c@25=1)", r.Process(ev("e5", "c", 25, 1)),
				[]kit.Result{res("a", 10, 20, 1, 4)}, "the watermark 25 fires [10,20) and expires [0,10) (10+10 ≤ 25)")
			r.Expect("Process(e6 b@1=16)", r.Process(ev("e6", "b", 1, 16)), nil, "[0,10) has expired: the event is late")
			r.Expect("Process(e6 b@1=16) again", r.Process(ev("e6", "b", 1, 16)), nil, "a redelivered late ID is a no-op too")
			r.ExpectLate([]kit.Event{ev("e6", "b", 1, 16)}, "only the expired window's event is late, once")
			r.Expect("Flush()", r.Flush(), []kit.Result{res("c", 20, 30, 1, 1)}, "Flush fires what is left")
			if wm := r.Watermark(); wm != math.MaxInt64 {
				r.Fatalf("after Flush, Watermark() = %s, want MaxInt64", kit.FormatWatermark(wm))
			}
		})
	}
}
