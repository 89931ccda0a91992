//go:build lab || solution

package lateness

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestAllowedLateEventReFiresCorrectedResult certifies that an event for a window that has fired but not expired is counted and its key's result re-emitted at once, corrected, as an update.
func TestAllowedLateEventReFiresCorrectedResult(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, AllowedLateness: 5})
	r.Process(ev("e1", "a", 2, 1))
	r.Process(ev("e2", "b", 4, 10))
	r.Expect("Process(e3 a@12=2)", r.Process(ev("e3", "a", 12, 2)),
		[]kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 10)},
		"watermark 12 ≥ end 10: [0,10) fires, a first result per key, as in stage 01")
	r.Expect("Process(e4 a@7=4)", r.Process(ev("e4", "a", 7, 4)),
		[]kit.Result{upd("a", 0, 10, 2, 5)},
		"[0,10) has fired (watermark 12 ≥ end 10) but has not expired (12 < end 10 + AllowedLateness 5 = 15):\n"+
			"e4 is allowed late. It is counted, and a's result for [0,10) goes out again at once, corrected, with\n"+
			"IsUpdate = true so the consumer replaces the value it has. Only a's: b's result did not change")
	r.Expect("Process(e5 a@9=8)", r.Process(ev("e5", "a", 9, 8)),
		[]kit.Result{upd("a", 0, 10, 3, 13)},
		"each correction carries everything the window holds for the key (count 3, sum 1+4+8), not just the new\n"+
			"event: the consumer replaces, it does not add. (Flink's trigger FIREs without purging, for the same reason)")
	r.Expect("Process(e6 b@0=20)", r.Process(ev("e6", "b", 0, 20)),
		[]kit.Result{upd("b", 0, 10, 2, 30)},
		"b's result for [0,10) was emitted at watermark 12; e6 corrects it")
	r.ExpectLate(nil, "e4, e5 and e6 arrived within the allowed lateness: they are counted, never sent to the side output")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 10, 20, 1, 2)},
		"Flush fires [10,20), which had not fired. [0,10) fired already and its corrections went out as they\n"+
			"happened: there is nothing to re-emit")
}

// TestFirstResultIsNeverAnUpdate certifies that the first result of a (key, window) has IsUpdate false, even when it is emitted after the window's end has passed.
func TestFirstResultIsNeverAnUpdate(t *testing.T) {
	defer suite.Recover(t)
	t.Run("window with no events until its end passed", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10, AllowedLateness: 10})
		r.Expect("AdvanceWatermark(15)", r.Advance(15), nil, "there are no events: nothing fires")
		r.Expect("Process(e1 a@3=5)", r.Process(ev("e1", "a", 3, 5)),
			[]kit.Result{res("a", 0, 10, 1, 5)},
			"watermark 15 ≥ end 10, but 15 < end + lateness 20: [0,10) is not expired, so e1 is counted. The watermark\n"+
				"has passed the end, so the result goes out at once, as if the window had fired already. But nothing was\n"+
				"ever emitted for (a, [0,10)): this is its FIRST result, IsUpdate false. A consumer that counts or alerts\n"+
				"on corrections must not see one here")
		r.Expect("Process(e2 a@8=1)", r.Process(ev("e2", "a", 8, 1)),
			[]kit.Result{upd("a", 0, 10, 2, 6)},
			"(a, [0,10)) has been emitted once: this re-emission is an update")
		r.ExpectLate(nil, "[0,10) expires at watermark 20; the watermark is 15")
	})
	t.Run("new key in a fired window", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10, AllowedLateness: 10})
		r.Process(ev("e1", "a", 1, 1))
		r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)},
			"watermark 10 ≥ end 10: [0,10) fires; a first result, not an update, with lateness on too")
		r.Expect("Process(e2 b@5=3)", r.Process(ev("e2", "b", 5, 3)),
			[]kit.Result{res("b", 0, 10, 1, 3)},
			"[0,10) has fired, but only for key a. Results, and so updates, are per (key, window): b has no result\n"+
				"for [0,10) yet, so this is b's FIRST result, IsUpdate false. (In Flink a keyed window is per key, too)")
		r.Expect("Process(e3 a@6=2)", r.Process(ev("e3", "a", 6, 2)),
			[]kit.Result{upd("a", 0, 10, 2, 3)},
			"a's result for [0,10) was emitted at watermark 10: this corrects it")
		r.Expect("Process(e4 b@9=4)", r.Process(ev("e4", "b", 9, 4)),
			[]kit.Result{upd("b", 0, 10, 2, 7)},
			"b's result for [0,10) was emitted by e2: this corrects it")
	})
}

// TestLatenessBoundaries certifies that an event for a fired window is counted while the watermark is below end + AllowedLateness, from watermark == end on, and is late once the watermark reaches end + AllowedLateness.
func TestLatenessBoundaries(t *testing.T) {
	defer suite.Recover(t)
	const size, lateness = 10, 5 // [0,10) fires at watermark 10 and expires at 15
	cases := []struct {
		delay int64 // 0: the watermark comes from AdvanceWatermark; else from an event
		wm    int64 // the watermark when the straggler arrives
		late  bool
		why   string
	}{
		{0, 10, false, "watermark 10 == end: [0,10) has just fired; 10 < 15 = end + lateness, so it is not expired"},
		{0, 14, false, "watermark 14 is one below end + lateness = 15: the last moment [0,10) can still be corrected"},
		{0, 15, true, "watermark 15 == end + lateness: [0,10) has expired, its state is gone; the straggler is late"},
		{0, 16, true, "watermark 16 > end + lateness = 15: [0,10) has expired"},
		{3, 14, false, "with WatermarkDelay 3 the watermark is 17 − 3 = 14 < 15: not expired. The delay moves the watermark, not the boundary"},
		{3, 15, true, "with WatermarkDelay 3 the watermark is 18 − 3 = 15 == end + lateness: [0,10) fires and expires in one step"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("watermark %d", c.wm)
		if c.delay > 0 {
			name += fmt.Sprintf(" from an event with delay %d", c.delay)
		}
		t.Run(name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, Config{WindowSize: size, WatermarkDelay: c.delay, AllowedLateness: lateness})
			r.Process(ev("e1", "a", 5, 1))
			if c.delay == 0 {
				r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 10 ≥ end 10: [0,10) fires")
				if c.wm > 10 {
					r.Expect(fmt.Sprintf("AdvanceWatermark(%d)", c.wm), r.Advance(c.wm), nil,
						fmt.Sprintf("no window ends in (10, %d]; [0,10) has fired already and must not be emitted again", c.wm))
				}
			} else {
				why := fmt.Sprintf("watermark %d ≥ end 10: [0,10) fires", c.wm)
				if c.late {
					why += ", and expires: a window that fires and expires in one step still emits its result first"
				}
				r.Expect(fmt.Sprintf("Process(e2 b@%d=1)", c.wm+c.delay), r.Process(ev("e2", "b", c.wm+c.delay, 1)),
					[]kit.Result{res("a", 0, 10, 1, 1)}, why)
			}
			straggler := ev("s", "a", 9, 2)
			got := r.Process(straggler)
			if c.late {
				r.Expect("Process(s a@9=2)", got, nil, c.why+": it emits nothing")
				r.ExpectLate([]kit.Event{straggler}, c.why+".\nAn event for an expired window goes to the side output: not counted, never dropped")
				return
			}
			r.Expect("Process(s a@9=2)", got, []kit.Result{upd("a", 0, 10, 2, 3)},
				c.why+": s is counted and a's result re-emitted as an update")
			r.ExpectLate(nil, c.why+": s is allowed late, not late")
		})
	}
}

// TestFiredWindowLingersWithoutReFiring certifies that a fired window waiting out its lateness is emitted again only when an event for it arrives, not when the watermark moves or on Flush.
func TestFiredWindowLingersWithoutReFiring(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, AllowedLateness: 30})
	r.Process(ev("e1", "a", 1, 1))
	r.Expect("Process(e2 b@11=2)", r.Process(ev("e2", "b", 11, 2)), []kit.Result{res("a", 0, 10, 1, 1)},
		"watermark 11 ≥ 10: [0,10) fires")
	const linger = "A fired window keeps its state until end + lateness so that a late event can correct it, but it is\n" +
		"not due again: keep apart the windows that have fired from those still to fire"
	r.Expect("AdvanceWatermark(20)", r.Advance(20), []kit.Result{res("b", 10, 20, 1, 2)},
		"watermark 20 fires [10,20) only. [0,10) fired at 10 and lingers until 40: moving the watermark does not\n"+
			"re-emit it. "+linger)
	r.Expect("Process(e3 a@25=4)", r.Process(ev("e3", "a", 25, 4)), nil, "watermark 25: [20,30) is open and nothing else is due. "+linger)
	r.Expect("Process(e4 a@3=8)", r.Process(ev("e4", "a", 3, 8)), []kit.Result{upd("a", 0, 10, 2, 9)},
		"watermark 25 < 0 + 10 + 30: [0,10) lingers, so e4 corrects a's result")
	r.Expect("Process(e5 b@12=16)", r.Process(ev("e5", "b", 12, 16)), []kit.Result{upd("b", 10, 20, 2, 18)},
		"watermark 25 < 20 + 30: [10,20) lingers, so e5 corrects b's result")
	r.Expect("AdvanceWatermark(35)", r.Advance(35), []kit.Result{res("a", 20, 30, 1, 4)},
		"watermark 35 fires [20,30) only; [0,10) and [10,20) fired already. "+linger)
	r.Expect("Flush()", r.Flush(), nil,
		"Flush fires the windows that have not fired yet: there are none. [0,10), [10,20) and [20,30) fired and\n"+
			"their latest results are out; Flush expires them without emitting them again")
	late := ev("e6", "a", 5, 1)
	r.Expect("Process(e6 a@5=1) after Flush", r.Process(late), nil, "after Flush the watermark is math.MaxInt64: every window has expired")
	r.ExpectLate([]kit.Event{late}, "after Flush every window has expired, lingering ones too: e6 is late")
}

// TestCorrectionsLeaveReturnedResultsAlone certifies that a correction is a new result: the results returned before it, kept by the caller, do not change, and a caller that edits or appends to a returned result changes no later correction.
func TestCorrectionsLeaveReturnedResultsAlone(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, AllowedLateness: 100})
	r.ProcessAll(ev("e1", "a", 1, 1), ev("e2", "b", 2, 2))
	fired := r.Process(ev("e3", "c", 12, 4))
	r.Expect("Process(e3 c@12=4)", fired, []kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 2)}, "watermark 12 fires [0,10)")
	corrected := r.Process(ev("e4", "a", 5, 8))
	r.Expect("Process(e4 a@5=8)", corrected, []kit.Result{upd("a", 0, 10, 2, 9)}, "[0,10) lingers until watermark 110: e4 corrects a's result")
	kept := []struct {
		call      string
		got, want []kit.Result
	}{
		{"Process(e3 c@12=4)", fired, slices.Clone(fired)},
		{"Process(e4 a@5=8)", corrected, slices.Clone(corrected)},
	}

	// The caller scribbles over the next firing, element and spare capacity.
	edited := r.Process(ev("e5", "d", 25, 16))
	r.Expect("Process(e5 d@25=16)", edited, []kit.Result{res("c", 10, 20, 1, 4)}, "watermark 25 fires [10,20)")
	edited = edited[:cap(edited)]
	for i := range edited {
		edited[i] = kit.Result{Key: "scribbled by the caller", Start: -1, End: -1, Count: -1, Sum: -1}
	}
	r.Expect("Process(e6 c@15=32)", r.Process(ev("e6", "c", 15, 32)), []kit.Result{upd("c", 10, 20, 2, 36)},
		"[10,20) lingers: e6 corrects c's result, from the window's state. The caller overwrote the result of [10,20)\n"+
			"it was handed; that must not reach the state")
	r.Expect("Process(e7 b@7=64)", r.Process(ev("e7", "b", 7, 64)), []kit.Result{upd("b", 0, 10, 2, 66)},
		"[0,10) lingers: e7 corrects b's result")
	for _, k := range kept {
		if !slices.Equal(k.got, k.want) {
			r.Errorf("the results %s returned, which the caller kept, have changed: they are now\n%s\nwant, as returned,\n%s\n"+
				"A correction is a new result; the one returned before stays as it was (a consumer may still hold it,\n"+
				"or compare old and new). Results that share memory with a window's state, or with a buffer reused\n"+
				"across calls, change with it.",
				k.call, windowtest.FmtResults(k.got), windowtest.FmtResults(k.want))
		}
	}
}

// TestResultsOfOneCallAreOrderedWhileWindowsLinger certifies that with lateness on, a call that fires several windows returns just those, ordered by (End, Start, Key) even when their keys sort against their windows' order, and a correction returns just its key's result.
func TestResultsOfOneCallAreOrderedWhileWindowsLinger(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 100, AllowedLateness: 100})
	r.Process(ev("e1", "a", 3, 1))
	r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 10 fires [0,10), which lingers until 110")
	// Windows [10,40), arriving latest first, their keys sorting against
	// their order in time; the delay keeps them open.
	r.ProcessAll(
		ev("e2", "a2", 35, 2),
		ev("e3", "a1", 31, 4),
		ev("e4", "m", 22, 8),
		ev("e5", "z", 14, 16),
		ev("e6", "y", 17, 32),
	)
	r.Expect("Process(e7 a@5=64)", r.Process(ev("e7", "a", 5, 64)), []kit.Result{upd("a", 0, 10, 2, 65)},
		"e7 corrects a's result for [0,10), and that alone: the windows still open are not due (the watermark is 10)")
	r.Expect("AdvanceWatermark(40)", r.Advance(40), []kit.Result{
		res("y", 10, 20, 1, 32),
		res("z", 10, 20, 1, 16),
		res("m", 20, 30, 1, 8),
		res("a1", 30, 40, 1, 4),
		res("a2", 30, 40, 1, 2),
	}, "watermark 40 fires [10,20), [20,30) and [30,40), ordered by (End, Start, Key): window first, so [10,20)'s y and z\n"+
		"come before [30,40)'s a1 and a2. [0,10) fired already: it lingers, corrected, and is not emitted again")
	r.Expect("Flush()", r.Flush(), nil, "every window has fired")
}
