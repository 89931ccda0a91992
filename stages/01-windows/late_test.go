//go:build lab || solution

package windows

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestExpiredWindowEventGoesToSideOutput certifies that an event whose window has expired goes to Late, is not counted, and changes no result.
func TestExpiredWindowEventGoesToSideOutput(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	r.Process(ev("e1", "a", 5, 1))
	r.Expect("Process(e2 a@12=2)", r.Process(ev("e2", "a", 12, 2)), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 12 fires [0,10)")
	late := ev("e3", "a", 7, 100)
	r.Expect("Process(e3 a@7=100)", r.Process(late), nil,
		"[0,10) has fired and expired (watermark 12 ≥ end 10, AllowedLateness 0): e3 is late and emits nothing")
	r.ExpectLate([]kit.Event{late},
		"an event whose window has expired goes to the side output — never dropped silently: a late event\n"+
			"is data someone may need to reconcile, and counting it would change a result already emitted")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 10, 20, 1, 2)}, "e3 is not counted anywhere; [0,10) is not emitted again")
}

// TestEventIsLateExactlyWhenWatermarkReachesItsWindowEnd certifies that an event is late when the watermark has reached its window's end, even if that window never had an event.
func TestEventIsLateExactlyWhenWatermarkReachesItsWindowEnd(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 3})
	r.Process(ev("e1", "a", 13, 1)) // watermark 10
	r.Expect("Process(e2 b@9=2)", r.Process(ev("e2", "b", 9, 2)), nil, "[0,10) is expired")
	r.Expect("Process(e3 b@10=4)", r.Process(ev("e3", "b", 10, 4)), nil, "[10,20) is open")
	r.ExpectLate([]kit.Event{ev("e2", "b", 9, 2)},
		"the watermark is 13 − 3 = 10 when e2 arrives: [0,10) is expired (watermark ≥ end), although it never\n"+
			"had an event, so e2 (ts 9) is late. e3 (ts 10) belongs to [10,20), which is open.\n"+
			"Lateness is judged by the watermark, not by whether a window's state exists")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 10, 20, 1, 1), res("b", 10, 20, 1, 4)}, "e2 is late, so only [10,20) has results")
}

// TestSideOutputKeepsArrivalOrder certifies that Late returns every late event so far, in arrival order, and that calling it does not clear it.
func TestSideOutputKeepsArrivalOrder(t *testing.T) {
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
	r.ProcessAll(late[:2]...)
	r.ExpectLate(late[:2], "the side output holds the late events in the order they arrived")
	r.ExpectLate(late[:2], "reading the side output does not clear it: Late returns every late event so far")
	r.ProcessAll(late[2:]...)
	r.ExpectLate(late, "the side output keeps arrival order, not timestamp order: it is a stream, like Flink's side output")
	if len(r.Emitted()) > 0 {
		r.Errorf("late events emitted\n%s\nwant nothing: a late event is not counted in any window", windowtest.FmtResults(r.Emitted()))
	}
}

// TestDuplicateIDsAreIgnored certifies that an event whose ID was seen before, counted or late, is a no-op, whatever its other fields say.
func TestDuplicateIDsAreIgnored(t *testing.T) {
	defer suite.Recover(t)
	t.Run("twice in an open window", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 100})
		r.ProcessAll(ev("e1", "a", 1, 5), ev("e1", "a", 1, 5), ev("e2", "a", 2, 1), ev("e1", "a", 1, 5))
		r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 0, 10, 2, 6)},
			"e1 delivered three times is one event: at-least-once input, exactly-once effect. Dedup by ID")
	})
	t.Run("same ID, other fields", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 100})
		r.ProcessAll(ev("e1", "a", 1, 5), ev("e1", "b", 3, 7), ev("e1", "a", 25, 9))
		r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 0, 10, 1, 5)},
			"the ID identifies the record: a second e1 is a redelivery and is ignored, whatever its key, time and value")
	})
	t.Run("after its window fired", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10})
		r.ProcessAll(ev("e1", "a", 1, 5), ev("e2", "a", 15, 1))
		r.Expect("Process(e1 a@1=5) again", r.Process(ev("e1", "a", 1, 5)), nil, "e1 was counted already")
		r.ExpectLate(nil, "a redelivered e1 is not a late event: it was counted in [0,10) already, so it is a no-op.\n"+
			"Check for a duplicate BEFORE checking lateness")
	})
	t.Run("of a late event", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10})
		r.ProcessAll(ev("e1", "a", 20, 1), ev("e2", "a", 3, 2), ev("e2", "a", 3, 2))
		r.ExpectLate([]kit.Event{ev("e2", "a", 3, 2)}, "e2 went to the side output once; its redelivery is a no-op")
	})
	t.Run("does not move the watermark", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, Config{WindowSize: 10})
		r.ProcessAll(ev("e1", "a", 5, 1), ev("e1", "a", 500, 1))
		if wm := r.Watermark(); wm != 5 {
			r.Errorf("Watermark() = %d, want 5: the second e1 is a redelivery, a no-op; it must not raise the watermark", wm)
		}
		r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 0, 10, 1, 1)}, "only the first e1 counts")
	})
}

// TestInvalidConfigIsRejected certifies that NewProcessor returns an error for a non-positive WindowSize or a negative WatermarkDelay or AllowedLateness, and accepts valid configs.
func TestInvalidConfigIsRejected(t *testing.T) {
	defer suite.Recover(t)
	cases := []struct {
		name  string
		cfg   Config
		valid bool
	}{
		{"zero WindowSize", Config{WindowSize: 0}, false},
		{"negative WindowSize", Config{WindowSize: -10}, false},
		{"negative WatermarkDelay", Config{WindowSize: 10, WatermarkDelay: -1}, false},
		{"negative AllowedLateness", Config{WindowSize: 10, AllowedLateness: -1}, false},
		{"all zero", Config{}, false},
		{"smallest valid", Config{WindowSize: 1}, true},
		{"delay larger than size", Config{WindowSize: 10, WatermarkDelay: 25}, true},
		{"with lateness", Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 20}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			p, err := NewProcessor(c.cfg)
			switch {
			case !c.valid && err == nil:
				t.Errorf("NewProcessor(%+v) returned no error, want one: a window needs a positive size, and a delay or\n"+
					"lateness below zero means nothing. Reject it at construction, with an error naming the field,\n"+
					"rather than misbehave later", c.cfg)
			case c.valid && (err != nil || p == nil):
				t.Errorf("NewProcessor(%+v) = %v, %v; want a processor and no error: this config is valid", c.cfg, p, err)
			}
		})
	}
}
