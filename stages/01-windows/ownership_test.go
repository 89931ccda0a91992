//go:build lab || solution

package windows

import (
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestResultsAreTheCallersToKeep certifies that the results a call returns belong to the caller: later calls do not change them, and editing or appending to them changes nothing inside the processor.
//
// The run keeps the results of some calls, with one result of its own
// appended, to check that they stay as they were, and scribbles over the
// others, every element and the spare capacity behind them, as a caller
// that reuses the slice would.
func TestResultsAreTheCallersToKeep(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	steps := []struct {
		call  string
		do    func() []kit.Result
		want  []kit.Result
		keep  bool // keep the results untouched; else scribble over them
		fires string
	}{
		{"Process(e1 a@1=1)", func() []kit.Result { return r.Process(ev("e1", "a", 1, 1)) }, nil, true, ""},
		{"Process(e2 b@3=2)", func() []kit.Result { return r.Process(ev("e2", "b", 3, 2)) }, nil, true, ""},
		{"Process(e3 a@12=4)", func() []kit.Result { return r.Process(ev("e3", "a", 12, 4)) },
			[]kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 2)}, true, "watermark 12 fires [0,10)"},
		{"Process(e4 c@15=8)", func() []kit.Result { return r.Process(ev("e4", "c", 15, 8)) }, nil, true, ""},
		{"Process(e5 b@27=16)", func() []kit.Result { return r.Process(ev("e5", "b", 27, 16)) },
			[]kit.Result{res("a", 10, 20, 1, 4), res("c", 10, 20, 1, 8)}, false, "watermark 27 fires [10,20)"},
		{"Process(e6 c@21=32)", func() []kit.Result { return r.Process(ev("e6", "c", 21, 32)) }, nil, true, ""},
		{"AdvanceWatermark(40)", func() []kit.Result { return r.Advance(40) },
			[]kit.Result{res("b", 20, 30, 1, 16), res("c", 20, 30, 1, 32)}, true, "watermark 40 fires [20,30)"},
		{"Process(e7 a@41=64)", func() []kit.Result { return r.Process(ev("e7", "a", 41, 64)) }, nil, true, ""},
		{"Process(e8 b@55=128)", func() []kit.Result { return r.Process(ev("e8", "b", 55, 128)) },
			[]kit.Result{res("a", 40, 50, 1, 64)}, false, "watermark 55 fires [40,50)"},
		{"Flush()", r.Flush, []kit.Result{res("b", 50, 60, 1, 128)}, true, "Flush fires [50,60)"},
	}
	type kept struct {
		call      string
		got, want []kit.Result
	}
	var keeps []kept
	for _, s := range steps {
		got := s.do()
		why := "the results of each call are what it fires, whatever the caller did with earlier results"
		if s.fires != "" {
			why = s.fires + "; " + why
		}
		r.Expect(s.call, got, s.want, why+".\nEditing a returned slice, or appending to it, must change nothing inside the processor")
		for _, k := range keeps {
			if !slices.Equal(k.got, k.want) {
				r.Fatalf("the results %s returned, which the caller kept with one of its own appended, changed after %s:\nthey are now\n%s\nwant, as the caller left them,\n%s\n"+
					"Once returned, results belong to the caller: downstream may hold them for a while. A processor that\n"+
					"reuses one output buffer across calls, for speed, overwrites what it handed out: build each call's\n"+
					"results in a new slice.", k.call, s.call, windowtest.FmtResults(k.got), windowtest.FmtResults(k.want))
			}
		}
		if s.keep {
			mine := append(got, kit.Result{Key: "appended by the caller"})
			keeps = append(keeps, kept{s.call, mine, slices.Clone(mine)})
			continue
		}
		scribble(got)
	}
}

// scribble overwrites every element of rs and the spare capacity behind
// them, as a caller that reuses or appends to a returned slice does.
func scribble(rs []kit.Result) {
	rs = rs[:cap(rs)]
	for i := range rs {
		rs[i] = kit.Result{Key: "scribbled by the caller", Start: -1, End: -1, Count: -1, Sum: -1, IsUpdate: true}
	}
}

// TestLateReturnsTheCallersCopy certifies that the slice Late returns belongs to the caller: editing or appending to it changes nothing inside the processor, and later late events do not change it.
func TestLateReturnsTheCallersCopy(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	r.Process(ev("e0", "a", 50, 1)) // watermark 50: every window ending at or below 50 is expired
	late := []kit.Event{
		ev("x1", "x", 7, 1),
		ev("y1", "y", 2, 2),
		ev("x2", "x", 33, 3),
		ev("z1", "z", -4, 4),
		ev("y2", "y", 49, 5),
	}
	type kept struct {
		after     int // late events before the call
		got, want []kit.Event
	}
	var keeps []kept
	for i, e := range late {
		r.Process(e)
		got := r.Late()
		if !slices.Equal(got, late[:i+1]) {
			why := "the side output holds every late event so far, in arrival order"
			if i > 0 {
				why += ".\nThe caller edited and appended to the slices Late returned before: that must not reach the side\n" +
					"output. Late returns a copy, not the processor's own slice"
			}
			r.Fatalf("Late() after %d late events = %s\nwant %s\n%s", i+1, windowtest.FmtEvents(got), windowtest.FmtEvents(late[:i+1]), why)
		}
		for _, k := range keeps {
			if !slices.Equal(k.got, k.want) {
				r.Fatalf("the slice Late() returned after %d late events, which the caller kept with an event of its own appended,\n"+
					"changed after %d: it is now\n%s\nwant, as the caller left it,\n%s\n"+
					"Once returned, the slice belongs to the caller: later late events must not change it.",
					k.after, i+1, windowtest.FmtEvents(k.got), windowtest.FmtEvents(k.want))
			}
		}
		if i%2 == 1 { // scribble over the others, the first (a single event) among them
			mine := append(got, ev("appended", "by the caller", -1, -1))
			keeps = append(keeps, kept{i + 1, mine, slices.Clone(mine)})
			continue
		}
		got = got[:cap(got)]
		for j := range got {
			got[j] = ev("scribbled", "by the caller", -1, -1)
		}
	}
}
