//go:build lab || solution

package windows

import (
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestWatermarkIsMinInt64BeforeAnyEvent certifies that a new processor's watermark is math.MinInt64.
func TestWatermarkIsMinInt64BeforeAnyEvent(t *testing.T) {
	defer suite.Recover(t)
	for _, cfg := range []Config{{WindowSize: 10}, {WindowSize: 10, WatermarkDelay: 5}, {WindowSize: 1, AllowedLateness: 3}} {
		r := newRun(t, cfg)
		if wm := r.Watermark(); wm != math.MinInt64 {
			t.Errorf("Watermark() of NewProcessor(%+v) = %d, want math.MinInt64 (%d): before any event there is no watermark at all,\n"+
				"not 0 — events before 1970 (negative timestamps) are valid and must not be late", cfg, wm, int64(math.MinInt64))
		}
	}
}

// TestWatermarkFollowsMaxTimestampMinusDelay certifies that the watermark is the largest timestamp seen minus WatermarkDelay, so an older event does not lower it.
func TestWatermarkFollowsMaxTimestampMinusDelay(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 7})
	steps := []struct {
		e  kit.Event
		wm int64
	}{
		{ev("e1", "a", 100, 1), 93},
		{ev("e2", "a", 120, 1), 113},
		{ev("e3", "b", 118, 1), 113}, // older than e2: the max is still 120
		{ev("e4", "a", 121, 1), 114},
		{ev("e5", "c", 115, 1), 114},
		{ev("e6", "a", 135, 1), 128},
	}
	for _, s := range steps {
		r.Process(s.e)
		if wm := r.Watermark(); wm != s.wm {
			r.Fatalf("Watermark() after Process(%v) = %d, want %d = largest timestamp so far − delay 7.\n"+
				"The watermark is the MAX timestamp seen minus the delay, not the latest: an older event arriving\n"+
				"must not pull it back, or windows that fired could receive events again.", s.e, wm, s.wm)
		}
	}
}

// TestWatermarkNeverDecreases certifies that neither a lower AdvanceWatermark nor an older event lowers the watermark, and neither emits anything.
func TestWatermarkNeverDecreases(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	r.ProcessAll(ev("e1", "a", 5, 1), ev("e2", "a", 15, 2))
	check := func(after string, want int64) {
		t.Helper()
		if wm := r.Watermark(); wm != want {
			r.Fatalf("Watermark() after %s = %d, want %d: the watermark never decreases; it promises downstream that\n"+
				"no event at or below it is still to come, and a promise cannot be taken back.", after, wm, want)
		}
	}
	check("Process(e2 a@15=2)", 15)
	r.Expect("AdvanceWatermark(3)", r.Advance(3), nil, "3 is below the watermark 15: nothing changes")
	check("AdvanceWatermark(3)", 15)
	r.Expect("AdvanceWatermark(42)", r.Advance(42), []kit.Result{res("a", 10, 20, 1, 2)}, "watermark 42 fires [10,20)")
	check("AdvanceWatermark(42)", 42)
	r.Expect("Process(e3 a@45=4)", r.Process(ev("e3", "a", 45, 4)), nil, "[40,50) is open")
	check("Process(e3 a@45=4)", 45)
	r.Expect("Process(e4 b@43=8)", r.Process(ev("e4", "b", 43, 8)), nil, "[40,50) is open")
	check("Process(e4 b@43=8), an older event,", 45)
	r.Expect("AdvanceWatermark(math.MinInt64)", r.Advance(math.MinInt64), nil, "a lower watermark changes nothing")
	check("AdvanceWatermark(math.MinInt64)", 45)
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 40, 50, 1, 4), res("b", 40, 50, 1, 8)}, "Flush fires the last window")
	r.Expect("AdvanceWatermark(100) after Flush", r.Advance(100), nil, "the watermark is math.MaxInt64 after Flush")
	check("Flush and AdvanceWatermark(100)", math.MaxInt64)
}

// TestWatermarkSaturatesAtMinInt64 certifies that near the bottom of the int64 range ts − WatermarkDelay saturates at math.MinInt64 instead of wrapping around to the top, where it would fire every window and make every later event late.
//
// Each case tries one side of the edge: ts − delay exactly math.MinInt64
// (the lowest watermark that needs no saturation), one below it (the first
// that would wrap) and one above it.
func TestWatermarkSaturatesAtMinInt64(t *testing.T) {
	defer suite.Recover(t)
	// math.MinInt64 = −2⁶³ is a multiple of 16, so with windows of 16 ms
	// even the lowest timestamp's window, [math.MinInt64, math.MinInt64+16),
	// fits in an int64.
	const size = 16
	cases := []struct {
		name      string
		delay, ts int64
		wm        int64  // the watermark after the event
		edge      string // which side of the edge the case is
	}{
		{"delay=100,ts=MinInt64+100", 100, math.MinInt64 + 100, math.MinInt64, "ts − delay is math.MinInt64 exactly, no overflow"},
		{"delay=100,ts=MinInt64+99", 100, math.MinInt64 + 99, math.MinInt64, "ts − delay is one below math.MinInt64: it saturates"},
		{"delay=100,ts=MinInt64+101", 100, math.MinInt64 + 101, math.MinInt64 + 1, "ts − delay is math.MinInt64 + 1, no overflow"},
		{"delay=1,ts=MinInt64", 1, math.MinInt64, math.MinInt64, "the lowest timestamp: ts − delay saturates"},
		{"delay=MaxInt64,ts=-1", math.MaxInt64, -1, math.MinInt64, "ts − delay is math.MinInt64 exactly, no overflow"},
		{"delay=MaxInt64,ts=-2", math.MaxInt64, -2, math.MinInt64, "ts − delay is one below math.MinInt64: it saturates"},
		{"delay=MaxInt64,ts=0", math.MaxInt64, 0, math.MinInt64 + 1, "ts − delay is math.MinInt64 + 1, no overflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, Config{WindowSize: size, WatermarkDelay: c.delay})
			start := windowtest.WindowStart(c.ts, size)
			e1, e2 := ev("e1", "a", c.ts, 1), ev("e2", "b", c.ts, 2)
			got := r.Process(e1)
			if wm := r.Watermark(); wm != c.wm {
				r.Fatalf("Watermark() after Process(e1 a@%s=1) with WatermarkDelay %s = %s, want %s: %s.\n"+
					"ts − WatermarkDelay must saturate at math.MinInt64. Plain int64 subtraction wraps around to near\n"+
					"math.MaxInt64, the end of event time: every window fires at once and every later event is late.",
					windowtest.NearEdge(c.ts), windowtest.NearEdge(c.delay), windowtest.NearEdge(wm), windowtest.NearEdge(c.wm), c.edge)
			}
			r.Expect("Process(e1)", got, nil, "the watermark is below the end of e1's window: nothing fires")
			r.Expect("Process(e2)", r.Process(e2), nil, "e2 shares e1's window, which is still open")
			r.ExpectLate(nil, "the watermark is below the end of the events' window: neither is late")
			r.Expect("Flush()", r.Flush(), []kit.Result{res("a", start, start+size, 1, 1), res("b", start, start+size, 1, 2)},
				"both events count in their window, which fires at the end of the input")
		})
	}
}
