//go:build lab || solution

package lateness

import (
	"fmt"
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestExpiredWindowEventsGoToSideOutput certifies that once the watermark reaches end + AllowedLateness a window's events go to Late, in arrival order, never counted and never dropped, while windows still within their lateness take corrections.
func TestExpiredWindowEventsGoToSideOutput(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, AllowedLateness: 10})
	r.Process(ev("e1", "a", 4, 1))
	r.Expect("Process(e2 a@15=2)", r.Process(ev("e2", "a", 15, 2)), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 15: [0,10) fires")
	r.Expect("Process(e3 a@8=4)", r.Process(ev("e3", "a", 8, 4)), []kit.Result{upd("a", 0, 10, 2, 5)},
		"watermark 15 < end 10 + lateness 10 = 20: [0,10) has fired but not expired; e3 corrects a's result")
	r.Expect("Process(e4 b@21=8)", r.Process(ev("e4", "b", 21, 8)), []kit.Result{res("a", 10, 20, 1, 2)},
		"watermark 21 fires [10,20) and expires [0,10) (21 ≥ 20)")
	e5, e6 := ev("e5", "a", 9, 16), ev("e6", "c", 0, 32)
	r.Expect("Process(e5 a@9=16)", r.Process(e5), nil,
		"watermark 21 ≥ 20 = end + lateness: [0,10) has expired, e5 is late and must not change a's result")
	r.Expect("Process(e6 c@0=32)", r.Process(e6), nil,
		"[0,10) has expired: e6 is late although key c never had a result there. Expiry is judged by the\n"+
			"watermark, not by whether any state exists")
	r.Expect("Process(e7 a@12=64)", r.Process(ev("e7", "a", 12, 64)), []kit.Result{upd("a", 10, 20, 2, 66)},
		"[10,20) fired at 20 and expires at 30; the watermark is 21, so e7 corrects a's result")
	r.ExpectLate([]kit.Event{e5, e6},
		"e3 and e7 came within the allowed lateness: counted, not late. e5 and e6 came after [0,10) expired (watermark 21 ≥ 20):\n"+
			"they go to the side output, in arrival order. Never drop them: a consumer of the late topic reconciles them later")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("b", 20, 30, 1, 8)},
		"Flush fires only [20,30); the late events e5 and e6 were not counted anywhere")
	r.ExpectLate([]kit.Event{e5, e6}, "Flush adds nothing to the side output")
}

// TestDuplicatesStayNoOpsWithLateness certifies that a redelivered event changes nothing with lateness on: a duplicate of an allowed-late event re-fires nothing, and a duplicate of a late event is not side-output twice.
func TestDuplicatesStayNoOpsWithLateness(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, AllowedLateness: 5})
	r.Process(ev("e1", "a", 2, 1))
	r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 10: [0,10) fires")
	r.Expect("Process(e2 a@7=2)", r.Process(ev("e2", "a", 7, 2)), []kit.Result{upd("a", 0, 10, 2, 3)},
		"watermark 10 < 15: [0,10) lingers, e2 corrects a's result")
	r.Expect("Process(e2 a@7=2) again", r.Process(ev("e2", "a", 7, 2)), nil,
		"e2 was counted already: its redelivery is a no-op. Re-firing [0,10) with count 3 would count e2 twice,\n"+
			"and the consumer would replace a right value with a wrong one")
	r.Expect("Process(e1 a@2=1) again", r.Process(ev("e1", "a", 2, 1)), nil,
		"e1 was counted already: a redelivery within the lateness is a no-op, not a correction")
	r.Expect("AdvanceWatermark(15)", r.Advance(15), nil, "watermark 15 == end + lateness: [0,10) expires silently")
	r.Expect("Process(e2 a@7=2) after expiry", r.Process(ev("e2", "a", 7, 2)), nil, "e2 was counted already")
	r.ExpectLate(nil,
		"e2 was counted in [0,10); its redelivery after the window expired is still a no-op, not a late event.\n"+
			"Check the seen IDs BEFORE checking lateness")
	late := ev("e3", "a", 9, 4)
	r.Expect("Process(e3 a@9=4)", r.Process(late), nil, "watermark 15 ≥ 15: [0,10) has expired, e3 is late")
	r.Expect("Process(e3 a@9=4) again", r.Process(late), nil, "e3 was seen already")
	r.ExpectLate([]kit.Event{late}, "e3 went to the side output once; its redelivery is a no-op: an ID seen before, counted or late, changes nothing")
	r.Expect("Flush()", r.Flush(), nil, "every window has fired")
}

// TestCleanupTimeSaturatesAtMaxInt64 certifies that end + AllowedLateness saturates at math.MaxInt64 instead of wrapping: with a huge lateness a window fires at its end, takes corrections at every watermark below its cleanup time, and only Flush or AdvanceWatermark(math.MaxInt64) expires it once that time is math.MaxInt64.
//
// The cases sit on both sides of the edge: end + lateness one below
// math.MaxInt64, exactly math.MaxInt64 (the largest that does not
// overflow), one past it (the smallest that would wrap to math.MinInt64),
// and the largest lateness, with windows ending at 10, 0 and −10.
func TestCleanupTimeSaturatesAtMaxInt64(t *testing.T) {
	defer suite.Recover(t)
	const size = 10
	cases := []struct {
		name     string
		start    int64 // the window [start, start+size)
		lateness int64
		cleanup  int64 // the watermark at which the window expires
		byFlush  bool  // expire it with Flush, not AdvanceWatermark(cleanup)
		edge     string
	}{
		{"end=10,lateness=MaxInt64-11", 0, math.MaxInt64 - 11, math.MaxInt64 - 1, false,
			"end + lateness = 10 + (math.MaxInt64 − 11) = math.MaxInt64 − 1: no overflow; the window expires one short of the end of time"},
		{"end=10,lateness=MaxInt64-10", 0, math.MaxInt64 - 10, math.MaxInt64, false,
			"end + lateness = 10 + (math.MaxInt64 − 10) = math.MaxInt64 exactly: the largest cleanup time, no overflow"},
		{"end=10,lateness=MaxInt64-9", 0, math.MaxInt64 - 9, math.MaxInt64, true,
			"end + lateness = 10 + (math.MaxInt64 − 9) is one past math.MaxInt64: it saturates at math.MaxInt64.\n" +
				"Plain int64 addition wraps to math.MinInt64, so the window would expire before it ever fired"},
		{"end=10,lateness=MaxInt64", 0, math.MaxInt64, math.MaxInt64, false,
			"end + lateness = 10 + math.MaxInt64 overflows: it saturates at math.MaxInt64.\n" +
				"Plain int64 addition wraps to math.MinInt64 + 9, so the window would expire before it ever fired"},
		{"end=0,lateness=MaxInt64", -10, math.MaxInt64, math.MaxInt64, true,
			"end + lateness = 0 + math.MaxInt64 = math.MaxInt64 exactly: no overflow"},
		{"end=-10,lateness=MaxInt64", -20, math.MaxInt64, math.MaxInt64 - 10, false,
			"end + lateness = −10 + math.MaxInt64 = math.MaxInt64 − 10: no overflow, so the window expires before the end of time.\n" +
				"A huge lateness is not \"never expire\": saturate only what overflows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, Config{WindowSize: size, AllowedLateness: c.lateness})
			start, end := c.start, c.start+size
			r.Process(ev("e1", "a", start+2, 1))
			r.Expect(fmt.Sprintf("AdvanceWatermark(%d)", end), r.Advance(end), []kit.Result{res("a", start, end, 1, 1)},
				fmt.Sprintf("watermark %d reaches the end of [%d,%d): it fires, whatever the lateness.\n%s", end, start, end, c.edge))
			if t.Failed() {
				return // the window never fired: what follows would tell the same story again
			}
			last := c.cleanup - 1
			r.Expect(fmt.Sprintf("AdvanceWatermark(%s)", windowtest.NearEdge(last)), r.Advance(last), nil,
				"the window fired already: the watermark moving on emits it no more")
			r.Expect(fmt.Sprintf("Process(e2 a@%d=2) at watermark %s", start+5, windowtest.NearEdge(last)), r.Process(ev("e2", "a", start+5, 2)),
				[]kit.Result{upd("a", start, end, 2, 3)},
				fmt.Sprintf("the watermark %s is below the cleanup time %s: the window still takes corrections.\n%s", windowtest.NearEdge(last), windowtest.NearEdge(c.cleanup), c.edge))
			if c.byFlush {
				r.Expect("Flush()", r.Flush(), nil, "every window has fired: Flush emits nothing, it expires them")
			} else {
				r.Expect(fmt.Sprintf("AdvanceWatermark(%s)", windowtest.NearEdge(c.cleanup)), r.Advance(c.cleanup), nil,
					"the window fired already: reaching its cleanup time expires it silently")
			}
			straggler := ev("e3", "a", start+7, 4)
			expired := fmt.Sprintf("the watermark %s has reached the cleanup time %s: the window has expired",
				windowtest.NearEdge(r.Watermark()), windowtest.NearEdge(c.cleanup))
			if c.cleanup == math.MaxInt64 {
				expired += " (math.MaxInt64 is the end of event time,\nwhere Flush puts the watermark: a cleanup time saturated there is still reached)"
			}
			r.Expect(fmt.Sprintf("Process(e3 a@%d=4) at watermark %s", start+7, windowtest.NearEdge(r.Watermark())), r.Process(straggler), nil,
				expired+", so e3 is late and emits nothing")
			r.ExpectLate([]kit.Event{straggler}, expired+", so e3 goes to the side output.\n"+c.edge)
		})
	}
}
