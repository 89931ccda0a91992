//go:build lab || solution

package checkpoint

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestSeenIDsSurviveRestore certifies that an event ID seen before the snapshot, counted or late, is still a no-op after the restore.
func TestSeenIDsSurviveRestore(t *testing.T) {
	defer suite.Recover(t)
	s := newSession(t, Config{WindowSize: 10, AllowedLateness: 10})
	s.Process(ev("e1", "a", 1, 1))
	s.Expect("Process(e2 a@12=2)", s.Process(ev("e2", "a", 12, 2)), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 12 fires [0,10)")
	s.Process(ev("e3", "a", -5, 7)) // [-10,0) expired at watermark 10: late
	s.checkpoint()

	s.Expect("Process(e1 a@1=1) after the restore", s.Process(ev("e1", "a", 1, 1)), nil,
		"e1 was counted in [0,10) before the snapshot. [0,10) has fired but takes corrections until watermark 20,\n"+
			"so if the restored processor has forgotten e1 it counts it again and re-fires a [0,10) count=2.\n"+
			"Seen IDs are state: a source replaying from its checkpointed offset redelivers exactly these events")
	s.Expect("Process(e2 a@12=2) after the restore", s.Process(ev("e2", "a", 12, 2)), nil, "e2 was seen before the snapshot")
	s.Expect("Process(e3 a@-5=7) after the restore", s.Process(ev("e3", "a", -5, 7)), nil, "e3 was seen (it went to the side output) before the snapshot")
	s.ExpectLate(nil,
		"e3 went to the side output before the snapshot; its redelivery after the restore is a no-op, not a new\n"+
			"late event: late IDs are seen IDs too, and they must be in the snapshot")
	s.Process(ev("e4", "a", 13, 4))
	s.Expect("Flush()", s.Flush(), []kit.Result{res("a", 10, 20, 2, 6)},
		"[10,20) holds e2 (once, however often it is delivered) and e4")
}

// TestWatermarkSurvivesRestore certifies that the restored processor has the snapshotted processor's watermark, including a watermark raised by AdvanceWatermark.
func TestWatermarkSurvivesRestore(t *testing.T) {
	defer suite.Recover(t)
	t.Run("a new processor", func(t *testing.T) {
		defer suite.Recover(t)
		r := restoreOf(t, snapshotOf(t, newProcessor(t, Config{WindowSize: 10})))
		if wm := r.Watermark(); wm != math.MinInt64 {
			t.Errorf("Watermark() after restoring a new processor's snapshot = %s, want math.MinInt64", kit.FormatWatermark(wm))
		}
	})
	t.Run("after Flush", func(t *testing.T) {
		defer suite.Recover(t)
		s := newSession(t, Config{WindowSize: 10})
		s.Process(ev("e1", "a", 5, 1))
		s.Flush()
		s.checkpoint()
		if wm := s.Watermark(); wm != math.MaxInt64 {
			s.Errorf("Watermark() after restoring a flushed processor = %s, want math.MaxInt64: the input has ended", kit.FormatWatermark(wm))
		}
		s.Expect("Process(e2 a@7=1) after the restore", s.Process(ev("e2", "a", 7, 1)), nil, "every event after the end is late")
	})
	t.Run("at the int64 edges", func(t *testing.T) {
		defer suite.Recover(t)
		for _, wm := range []int64{math.MinInt64 + 1, -(1<<53 + 1), -1, 0, 1<<53 + 1, math.MaxInt64 - 1} {
			p := newProcessor(t, Config{WindowSize: 10})
			p.AdvanceWatermark(wm)
			r, _ := roundTrip(t, p)
			if got := r.Watermark(); got != wm {
				t.Errorf("AdvanceWatermark(%d), snapshot, restore: Watermark() = %s, want %d.\n"+
					"The watermark comes back exactly: a float64 (encoding/json into interface{}) holds integers exactly only\n"+
					"up to 2⁵³, and a varint or 8 bytes hold every int64.", wm, kit.FormatWatermark(got), wm)
			}
		}
	})
	t.Run("raised by AdvanceWatermark", func(t *testing.T) {
		defer suite.Recover(t)
		s := newSession(t, Config{WindowSize: 10, WatermarkDelay: 5})
		s.Process(ev("e1", "a", 3, 1))
		s.Expect("Process(e2 a@27=2)", s.Process(ev("e2", "a", 27, 2)), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 22 fires [0,10)")
		s.Advance(28)
		s.checkpoint()
		if wm := s.Watermark(); wm != 28 {
			s.Fatalf("Watermark() right after the restore = %s, want 28: AdvanceWatermark(28) raised it above the largest\n"+
				"timestamp minus the delay (27 − 5 = 22). Save the watermark itself, not only what you derive it from.",
				kit.FormatWatermark(wm))
		}
		s.Expect("Process(e3 b@25=4)", s.Process(ev("e3", "b", 25, 4)), nil, "[20,30) is open at watermark 28")
		s.Expect("Process(e4 b@8=1)", s.Process(ev("e4", "b", 8, 1)), nil, "[0,10) has expired: e4 is late")
		s.ExpectLate([]kit.Event{ev("e4", "b", 8, 1)}, "the watermark is 28 after the restore, so [0,10) (end 10) has expired when e4 arrives")
		s.Expect("AdvanceWatermark(20)", s.Advance(20), nil, "the watermark never goes back, restore or not")
		s.Expect("AdvanceWatermark(30)", s.Advance(30),
			[]kit.Result{res("a", 20, 30, 1, 2), res("b", 20, 30, 1, 4)},
			"watermark 30 fires [20,30) with e2 from before the snapshot and e3 from after")
	})
}

// TestFiredWindowsSurviveRestore certifies that a window that fired before the snapshot never emits a first result again after the restore, and its corrections are still marked as updates.
func TestFiredWindowsSurviveRestore(t *testing.T) {
	defer suite.Recover(t)
	s := newSession(t, Config{WindowSize: 10, AllowedLateness: 20})
	s.ProcessAll(ev("e1", "a", 2, 1), ev("e2", "b", 4, 2))
	s.Expect("Process(e3 a@15=3)", s.Process(ev("e3", "a", 15, 3)),
		[]kit.Result{res("a", 0, 10, 1, 1), res("b", 0, 10, 1, 2)}, "watermark 15 fires [0,10)")
	s.checkpoint() // [0,10) fired, kept until watermark 30; [10,20) open

	s.Expect("Process(e4 a@7=5)", s.Process(ev("e4", "a", 7, 5)), []kit.Result{upd("a", 0, 10, 2, 6)},
		"[0,10) fired before the snapshot and is within its allowed lateness: e4 re-fires a's result at once,\n"+
			"as an update, counting e1 (from before the snapshot) and e4. Fired-but-not-expired windows are state,\n"+
			"with their contents and the fact that they fired")
	s.Expect("Process(e5 c@9=1)", s.Process(ev("e5", "c", 9, 1)), []kit.Result{res("c", 0, 10, 1, 1)},
		"c is new to the fired window [0,10): its first result, not an update")
	s.Expect("AdvanceWatermark(20)", s.Advance(20), []kit.Result{res("a", 10, 20, 1, 3)},
		"watermark 20 fires [10,20) only. [0,10) fired before the snapshot: emitting its first results again would\n"+
			"give the sink duplicates it cannot tell from new data")
	s.Expect("AdvanceWatermark(30)", s.Advance(30), nil, "[0,10) expires at watermark 30; nothing fires")
	s.Expect("Process(e6 a@5=1)", s.Process(ev("e6", "a", 5, 1)), nil, "[0,10) has expired: e6 is late")
	s.ExpectLate([]kit.Event{ev("e6", "a", 5, 1)}, "[0,10) expired at watermark 10 + 20 = 30, on the schedule it had before the snapshot")
	s.Expect("Flush()", s.Flush(), nil, "every window has fired already")
}

// TestRestoredSideOutputStartsEmpty certifies that Late of a restored processor starts empty, while the snapshotted processor keeps its own, and later late events are still caught.
//
// The side output is output, not state: like a Flink side output, it was
// emitted downstream when it happened.
func TestRestoredSideOutputStartsEmpty(t *testing.T) {
	defer suite.Recover(t)
	s := newSession(t, Config{WindowSize: 10})
	s.Process(ev("e1", "a", 25, 1))
	early := []kit.Event{ev("e2", "a", 3, 1), ev("e3", "b", 14, 2)}
	s.ProcessAll(early...)
	s.ExpectLate(early, "at watermark 25, [0,10) and [10,20) have expired")
	if t.Failed() {
		return
	}
	snapshotted := s.p
	s.checkpoint()
	s.ExpectLate(nil, "the side output is output, not state: those events went downstream when they arrived. A restored\n"+
		"processor that repeats them emits them twice; that is why Snapshot leaves them out.")
	if got := snapshotted.Late(); !slices.Equal(got, early) {
		t.Errorf("Late() of the snapshotted processor = %s after Snapshot, want %s: taking a snapshot changes nothing",
			windowtest.FmtEvents(got), windowtest.FmtEvents(early))
	}
	later := ev("e4", "b", 9, 4)
	s.Process(later)
	s.ExpectLate([]kit.Event{later}, "[0,10) expired before the snapshot")
}

// TestSnapshotIsUnaffectedByLaterProcessing certifies that a snapshot is a copy: processing after it changes neither its bytes nor what it restores to, and restored processors share nothing with it or each other.
func TestSnapshotIsUnaffectedByLaterProcessing(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 150}
	ops := genOps(suite.Rand(t), cfg, 100, 250)
	windowtest.CheckSnapshotIsACopy(t, windowtest.SnapshotCopy[*Processor]{
		Ops: ops, Want: runOps(newProcessor(t, cfg), ops),
		Cuts: []int{len(ops) / 4, len(ops) / 2, len(ops) - 5},
		Prefix: func(t *testing.T, cut int) *Processor {
			p := newProcessor(t, cfg)
			runOps(p, ops[:cut])
			return p
		},
		Snapshot: func(t *testing.T, p *Processor) []byte { return snapshotOf(t, p) },
		Restore:  func(t *testing.T, snap []byte, _ int) *Processor { return restoreOf(t, snap) },
		Other:    ev("other", "a", 0, 100),
		Restorer: "RestoreProcessor",
		Windows:  pictureWindows(cfg),
	})
}

// TestRestoreFromEveryKindOfStateEqualsUninterruptedRun certifies that a snapshot taken in every kind of state a processor can be in (new, a watermark but no event, open, fired and expired windows, a key only in the side output, a watermark raised above max − delay, flushed, awkward IDs and values), restored and continued, equals one uninterrupted run, with ordinary and with awkward keys.
//
// The states are windowtest.States; after the restore every event from
// before the snapshot is delivered again (each a no-op), then new events
// reach open, fired and expired windows, the watermark rises, and the input
// ends.
func TestRestoreFromEveryKindOfStateEqualsUninterruptedRun(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: windowtest.StateWindow, WatermarkDelay: windowtest.StateDelay, AllowedLateness: windowtest.StateLateness}
	awkward := kit.AwkwardStrings()
	for _, keys := range []struct {
		name    string
		x, y, z string
	}{
		{"keys a b c", "a", "b", "c"},
		{"keys of 0, 2 and 70 000 bytes", awkward[0], awkward[3], awkward[6]},
	} {
		for _, st := range windowtest.States(keys.x, keys.y, keys.z) {
			t.Run(keys.name+"/"+st.Name, func(t *testing.T) {
				defer suite.Recover(t)
				ops, cut := st.Ops()
				full := runOps(newProcessor(t, cfg), ops)
				c := restoreAt(t, cfg, ops, cut)
				c.Where = fmt.Sprintf("in this process, in the state %q", st.Name)
				checkCutRun(t, cfg, ops, full, c)
			})
		}
	}
}
