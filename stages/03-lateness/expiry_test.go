//go:build lab || solution

package lateness

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
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
