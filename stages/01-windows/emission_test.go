//go:build lab || solution

package windows

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestWindowFiresWhenWatermarkReachesEnd certifies that a window fires exactly when the watermark reaches its end, not one millisecond before.
func TestWindowFiresWhenWatermarkReachesEnd(t *testing.T) {
	defer suite.Recover(t)
	t.Run("by AdvanceWatermark", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10})
		r.Expect("Process(e1 a@5=3)", r.Process(ev("e1", "a", 5, 3)), nil,
			"the watermark is 5 and [0,10) ends at 10: the window is still open")
		r.Expect("AdvanceWatermark(9)", r.Advance(9), nil,
			"watermark 9 < end 10: an event at ts 9 may still come, so [0,10) must not fire yet")
		r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 3)},
			"watermark 10 ≥ end 10: no event of [0,10) can come any more (the end is exclusive), so it fires now")
	})
	t.Run("by an event", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 5})
		r.Process(ev("e1", "a", 5, 3))
		r.Expect("Process(e2 b@14=1)", r.Process(ev("e2", "b", 14, 1)), nil,
			"the watermark is 14 − delay 5 = 9 < end 10: [0,10) stays open")
		r.Expect("Process(e3 b@15=1)", r.Process(ev("e3", "b", 15, 1)), []kit.Result{res("a", 0, 10, 1, 3)},
			"the watermark is 15 − delay 5 = 10 ≥ end 10: the event that raises it returns the windows it makes fire")
	})
}

// TestEmissionIsDrivenByWatermarkNotArrival certifies that Process emits nothing while the watermark is below a window's end, however many events arrive.
func TestEmissionIsDrivenByWatermarkNotArrival(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 50})
	for i := range int64(10) {
		e := ev(fmt.Sprintf("e%d", i), "a", 5*i, 1+i)
		if got := r.Process(e); len(got) > 0 {
			r.Fatalf("Process(%v) returned\n%s\nwant nothing: the watermark is %d − delay 50 = %d, below the end of every window.\n"+
				"A result goes out when the watermark reaches the window's end, never on an event's arrival:\n"+
				"until then more events of the window may arrive (that is what WatermarkDelay allows).",
				e, windowtest.FmtResults(got), e.TS, e.TS-50)
		}
	}
	r.Expect("Process(b1 b@60=7)", r.Process(ev("b1", "b", 60, 7)), []kit.Result{res("a", 0, 10, 2, 3)},
		"ts 60 raises the watermark to 60 − 50 = 10: only [0,10) ends at or below it")
	r.Expect("AdvanceWatermark(45)", r.Advance(45), []kit.Result{
		res("a", 10, 20, 2, 7),
		res("a", 20, 30, 2, 11),
		res("a", 30, 40, 2, 15),
	}, "watermark 45 passes the ends 20, 30 and 40; [40,50) (end 50) stays open")
	r.Expect("Flush()", r.Flush(), []kit.Result{
		res("a", 40, 50, 2, 19),
		res("b", 60, 70, 1, 7),
	}, "Flush fires every window still open")
}

// TestEachWindowIsEmittedOnce certifies that a window's result is emitted once, however often the watermark is advanced or Flush is called afterwards.
func TestEachWindowIsEmittedOnce(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	const why = "every window and key is emitted exactly once: once it has fired it is done (AllowedLateness is 0)"
	r.ProcessAll(ev("e1", "a", 1, 1), ev("e2", "b", 2, 2))
	r.Expect("Process(e3 a@12=4)", r.Process(ev("e3", "a", 12, 4)),
		[]kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 2)}, "watermark 12 ≥ 10: [0,10) fires")
	r.Expect("AdvanceWatermark(12)", r.Advance(12), nil, "the watermark is 12 already; "+why)
	r.Expect("AdvanceWatermark(15)", r.Advance(15), nil, "[0,10) has fired and [10,20) ends at 20; "+why)
	r.Expect("Process(e4 b@13=8)", r.Process(ev("e4", "b", 13, 8)), nil, "[10,20) is still open; "+why)
	r.Expect("Process(e5 a@25=16)", r.Process(ev("e5", "a", 25, 16)),
		[]kit.Result{res("a", 10, 20, 1, 4), res("b", 10, 20, 1, 8)}, "watermark 25 ≥ 20: [10,20) fires, [0,10) must not again")
	r.Expect("AdvanceWatermark(25)", r.Advance(25), nil, why)
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 20, 30, 1, 16)}, "only [20,30) has not fired yet")
	r.Expect("a second Flush()", r.Flush(), nil, why)
	r.Expect("AdvanceWatermark(1000) after Flush", r.Advance(1000), nil, why)
}

// TestResultsOfOneCallAreOrdered certifies that the results of one call are ordered by window end, then start, then key.
func TestResultsOfOneCallAreOrdered(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	const size, delay = 10, 1000
	// Keys k1 … k12: as strings "k10" < "k2", which is the order wanted.
	var keys []string
	for i := 1; i <= 12; i++ {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	// Every key in each of the windows [-20,-10) … [20,30), delivered in a
	// random order; the delay keeps them all open.
	var events []kit.Event
	for _, start := range []int64{-20, -10, 0, 10, 20} {
		for _, k := range keys {
			events = append(events, ev(fmt.Sprintf("%s@%d", k, start), k, start+rnd.Int64N(size), 1+rnd.Int64N(9)))
		}
	}
	rnd.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	want := windowtest.InOrderResults(events, size)
	byEnd := func(ends ...int64) []kit.Result {
		var out []kit.Result
		for _, w := range want {
			if slices.Contains(ends, w.End) {
				out = append(out, w)
			}
		}
		return out
	}

	r := newRun(t, Config{WindowSize: size, WatermarkDelay: delay})
	r.ProcessAll(events...)
	const why = "the results of one call are ordered by (End, Start, Key), keys as strings (\"k10\" < \"k2\"); kit.SortResults does it"
	r.Expect("Process(last k1@1015=1)", r.Process(ev("last", "k1", 15+delay, 1)), byEnd(-10, 0, 10),
		"watermark 15 fires the three windows ending at -10, 0 and 10; "+why)
	r.Expect("AdvanceWatermark(20)", r.Advance(20), byEnd(20), "watermark 20 fires [10,20); "+why)
	want = append(byEnd(30), res("k1", 1010, 1020, 1, 1))
	r.Expect("Flush()", r.Flush(), want, "Flush fires [20,30) and the window of the last event; "+why)
}

// TestResultsOfOneCallOrderWindowsBeforeKeys certifies that one call's results are ordered by window first and by key only within a window, even when the earliest window's keys sort last and the latest window's first.
func TestResultsOfOneCallOrderWindowsBeforeKeys(t *testing.T) {
	defer suite.Recover(t)
	// Three windows whose keys sort against their order in time, arriving
	// latest window first: neither key order nor arrival order is the order
	// wanted.
	events := []kit.Event{
		ev("e1", "a2", 25, 1),
		ev("e2", "a1", 21, 2),
		ev("e3", "m", 15, 4),
		ev("e4", "z2", 5, 8),
		ev("e5", "z1", 2, 16),
	}
	want := []kit.Result{
		res("z1", 0, 10, 1, 16),
		res("z2", 0, 10, 1, 8),
		res("m", 10, 20, 1, 4),
		res("a1", 20, 30, 1, 2),
		res("a2", 20, 30, 1, 1),
	}
	const why = "one call fires [0,10), [10,20) and [20,30). Its results are ordered by (End, Start, Key): window first, so\n" +
		"[0,10)'s z1 and z2 come before [20,30)'s a1 and a2. Sorting by key alone, or emitting the windows in the order\n" +
		"they were opened (here the latest first), gives another order; kit.SortResults gives this one"
	cases := []struct {
		name, call string
		fire       func(r *windowtest.Run) []kit.Result
	}{
		{"by AdvanceWatermark", "AdvanceWatermark(30)", func(r *windowtest.Run) []kit.Result { return r.Advance(30) }},
		{"by an event", "Process(e6 q@1030=32)", func(r *windowtest.Run) []kit.Result { return r.Process(ev("e6", "q", 1030, 32)) }},
		{"by Flush", "Flush()", (*windowtest.Run).Flush},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 1000})
			r.ProcessAll(events...)
			r.Expect(c.call, c.fire(r), want, why)
		})
	}
}

// TestFlushFiresEveryRemainingWindow certifies that Flush fires every open window in order, moves the watermark to math.MaxInt64, and sends later events to Late.
func TestFlushFiresEveryRemainingWindow(t *testing.T) {
	defer suite.Recover(t)
	t.Run("open windows", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 100, WatermarkDelay: 1000})
		r.ProcessAll(
			ev("e1", "b", 250, 1),
			ev("e2", "a", 30, 2),
			ev("e3", "b", -40, 4),
			ev("e4", "a", 270, 8),
			ev("e5", "a", 999, 16),
		)
		r.Expect("Flush()", r.Flush(), []kit.Result{
			res("b", -100, 0, 1, 4),
			res("a", 0, 100, 1, 2),
			res("a", 200, 300, 1, 8),
			res("b", 200, 300, 1, 1),
			res("a", 900, 1000, 1, 16),
		}, "Flush is the end of the input: every window fires, as if the watermark jumped to math.MaxInt64")
		if wm := r.Watermark(); wm != math.MaxInt64 {
			t.Errorf("Watermark() after Flush = %d, want math.MaxInt64 (%d): Flush is Flink's final watermark, the end of event time", wm, int64(math.MaxInt64))
		}
		r.Expect("a second Flush()", r.Flush(), nil, "everything has fired already")
		r.Expect("Process(e6 a@5000=1) after Flush", r.Process(ev("e6", "a", 5000, 1)), nil,
			"after Flush every window is expired: the event goes to Late, it opens no window")
		if got, want := r.Late(), []kit.Event{ev("e6", "a", 5000, 1)}; !slices.Equal(got, want) {
			r.Errorf("Late() = %s, want %s: an event after the end of the input is late, never dropped", windowtest.FmtEvents(got), windowtest.FmtEvents(want))
		}
	})
	t.Run("fresh processor", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 100})
		r.Expect("Flush() with no events", r.Flush(), nil, "there is no window to fire")
		if wm := r.Watermark(); wm != math.MaxInt64 {
			t.Errorf("Watermark() after Flush = %d, want math.MaxInt64 (%d), even with no events", wm, int64(math.MaxInt64))
		}
	})
}

// TestAdvanceWatermarkFiresWithoutEvents certifies that AdvanceWatermark alone fires the windows whose end it reaches and sets the watermark.
func TestAdvanceWatermarkFiresWithoutEvents(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 1000})
	r.ProcessAll(ev("e1", "a", 3, 1), ev("e2", "b", 14, 2), ev("e3", "a", 27, 4))
	r.Expect("AdvanceWatermark(20)", r.Advance(20), []kit.Result{res("a", 0, 10, 1, 1), res("b", 10, 20, 1, 2)},
		"the events alone give a watermark of 27 − 1000; an upstream watermark of 20 fires [0,10) and [10,20) with no new event")
	if wm := r.Watermark(); wm != 20 {
		r.Errorf("Watermark() after AdvanceWatermark(20) = %d, want 20", wm)
	}
	r.Expect("AdvanceWatermark(30)", r.Advance(30), []kit.Result{res("a", 20, 30, 1, 4)}, "watermark 30 reaches the end of [20,30)")
	r.Expect("Process(e4 a@31=8)", r.Process(ev("e4", "a", 31, 8)), nil, "31 − 1000 is below the watermark 30, which stays")
	if wm := r.Watermark(); wm != 30 {
		r.Errorf("Watermark() = %d, want 30: an event whose ts − delay is below the watermark leaves it where it is", wm)
	}
}

// TestCountAndSumArePerKeyAndWindow certifies that each result carries the count and sum of one key's events in one window.
func TestCountAndSumArePerKeyAndWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 60, WatermarkDelay: 500})
	r.ProcessAll(
		ev("e1", "eu", 10, 5),
		ev("e2", "us", 20, 7),
		ev("e3", "eu", 59, 1),
		ev("e4", "eu", 60, 100),
		ev("e5", "us", 0, 3),
		ev("e6", "ap", 119, 9),
		ev("e7", "us", 61, 2),
		ev("e8", "eu", 30, 10),
	)
	r.Flush()
	r.Expect("the whole run", r.Emitted(), []kit.Result{
		res("eu", 0, 60, 3, 16),
		res("us", 0, 60, 2, 10),
		res("ap", 60, 120, 1, 9),
		res("eu", 60, 120, 1, 100),
		res("us", 60, 120, 1, 2),
	}, "one result per (window, key) with Count = number of its events and Sum = sum of their values")
}
