//go:build lab || solution

package sliding

import (
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestLatenessIsPerWindow certifies that each window of an event is judged
// on its own against the watermark the event arrived to: the event is counted
// in its windows that have not expired, skipped in those that have, and goes
// to Late only when all of them have expired.
func TestLatenessIsPerWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5})
	r.Expect("Process(e1 a@12)", r.Process(ev("e1", "a", 12, 1)), nil, "No window holding an event ends by 12.")
	r.Expect("Process(e2 a@8)", r.Process(ev("e2", "a", 8, 10)), nil,
		"a@8 is in [0,10) and [5,15). [0,10) expired when the watermark reached 10; [5,15) is open, so a@8 counts there,\n"+
			"and only there. It is not late: one of its windows still takes it.")
	r.ExpectLate(nil, "a@8 still had an open window, [5,15).")
	r.Expect("Process(e3 a@4)", r.Process(ev("e3", "a", 4, 100)), nil,
		"a@4 is in [-5,5) and [0,10): both have expired, so it goes to the side output.")
	r.ExpectLate([]kit.Event{ev("e3", "a", 4, 100)}, "Every window of a@4 had expired when it arrived.")
	r.Expect("Flush()", r.Flush(), []kit.Result{
		res("a", 5, 15, 2, 11),
		res("a", 10, 20, 1, 1),
	}, "[5,15) holds a@12 and a@8; [10,20) only a@12. Nothing reopened the expired [0,10).")
}

// TestCorrectionsPerWindow certifies that with allowed lateness an event
// for windows that have fired but not expired is counted there and each
// such window's corrected result for its key goes out at once (IsUpdate
// true if the key had a result there, false for its first), ordered by
// (End, Start, Key), while its open windows count it silently and its
// expired ones skip it.
func TestCorrectionsPerWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5, AllowedLateness: 5})
	r.ProcessAll(ev("e1", "a", 3, 1))
	r.Expect("Process(e2 b@11)", r.Process(ev("e2", "b", 11, 1)), []kit.Result{
		res("a", -5, 5, 1, 1),
		res("a", 0, 10, 1, 1),
	}, "The watermark reached 11: [-5,5) and [0,10) fire.")
	r.Expect("Process(e3 a@6)", r.Process(ev("e3", "a", 6, 10)), []kit.Result{upd("a", 0, 10, 2, 11)},
		"a@6 is in [0,10), fired but kept until the watermark reaches 10 + 5, so its result for a is corrected\n"+
			"at once, as an update; and in [5,15), still open, where it waits for the window to fire.")
	r.Expect("Process(e4 c@4)", r.Process(ev("e4", "c", 4, 100)), []kit.Result{res("c", 0, 10, 1, 100)},
		"c@4 is in [0,10), fired and not expired: c's first result there, not an update; and in [-5,5), which\n"+
			"expired at watermark 5 + 5 = 10: skipped.")
	r.ExpectLate(nil, "c@4 still had a window that took it.")

	r = newRun(t, SlidingConfig{Size: 6, Slide: 2, AllowedLateness: 100})
	r.ProcessAll(ev("e1", "a", 1, 1), ev("e2", "b", 1, 1))
	r.Expect("AdvanceWatermark(20)", r.Advance(20), []kit.Result{
		res("a", -4, 2, 1, 1), res("b", -4, 2, 1, 1),
		res("a", -2, 4, 1, 1), res("b", -2, 4, 1, 1),
		res("a", 0, 6, 1, 1), res("b", 0, 6, 1, 1),
	}, "All three windows of ts 1 fire.")
	r.Expect("Process(e3 b@0)", r.Process(ev("e3", "b", 0, 5)), []kit.Result{
		upd("b", -4, 2, 2, 6),
		upd("b", -2, 4, 2, 6),
		upd("b", 0, 6, 2, 6),
	}, "b@0 corrects three fired windows in one call: their updates come in (End, Start, Key) order, whatever\n"+
		"order the windows were visited in.")
}

// TestRedeliveryChangesNothing certifies that dedup is per event, not per
// window: a repeated ID is a no-op in every window, whatever its timestamp,
// key or value say, and moves neither the watermark nor the side output,
// the ID of an event that went to Late() included.
func TestRedeliveryChangesNothing(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5, WatermarkDelay: 5})
	r.ProcessAll(ev("e1", "a", 3, 1), ev("e2", "a", 9, 1))
	r.Expect("Process(e1 b@23=100), a redelivery with other fields", r.Process(ev("e1", "b", 23, 100)), nil,
		"The ID e1 was seen: the event is a redelivery, however its fields differ. It must not count in any\n"+
			"window, not even windows the first delivery was not in, nor raise the watermark.")
	r.ExpectWatermark(4, "Only e2 (9 − delay 5) moved the watermark.")
	r.Expect("Process(e1 a@3)", r.Process(ev("e1", "a", 3, 1)), nil, "An exact redelivery: nothing.")
	r.Expect("AdvanceWatermark(12)", r.Advance(12), []kit.Result{
		res("a", -5, 5, 1, 1),
		res("a", 0, 10, 2, 2),
	}, "Each window counts e1 once.")
	r.Expect("Process(e1 a@3) after its windows expired", r.Process(ev("e1", "a", 3, 1)), nil, "Still a redelivery.")
	r.ExpectLate(nil, "A redelivery is not a late event: dedup comes before lateness.")
	r.Expect("Process(e9 a@1), late for both its windows", r.Process(ev("e9", "a", 1, 1)), nil,
		"[-5,5) and [0,10) have both expired at watermark 12: e9 goes to Late().")
	r.Expect("Process(e9 a@11), the late ID redelivered with another time", r.Process(ev("e9", "a", 11, 1)), nil,
		"e9 was seen when it went to Late(): a late event's ID is remembered too, so this redelivery is a no-op,\n"+
			"though [5,15) and [10,20) are open.")
	r.ExpectLate([]kit.Event{ev("e9", "a", 1, 1)}, "Late() holds e9 once, as first delivered.")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 5, 15, 1, 1)}, "Only a@9 is in [5,15).")
}

// TestWatermarkAndCleanupSaturate certifies that e.TS − WatermarkDelay
// saturates at math.MinInt64, and end + AllowedLateness and a gap event's
// ts + AllowedLateness at math.MaxInt64: none wraps around, which would
// fire or expire every window at once, or send an event on time to Late.
func TestWatermarkAndCleanupSaturate(t *testing.T) {
	defer suite.Recover(t)
	lo := int64(math.MinInt64 + 1000)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5, WatermarkDelay: 2000})
	r.Expect("Process(e1 a@MinInt64+1000)", r.Process(ev("e1", "a", lo, 1)), nil,
		"ts − delay underflows: the watermark saturates at math.MinInt64, and nothing fires.")
	r.ExpectWatermark(math.MinInt64, "MinInt64+1000 − 2000 saturates at math.MinInt64; it must not wrap to near math.MaxInt64.")

	r = newRun(t, SlidingConfig{Size: 10, Slide: 5, AllowedLateness: math.MaxInt64})
	r.ProcessAll(ev("e1", "a", 3, 1))
	r.Advance(1 << 62)
	r.Expect("Process(e2 a@4)", r.Process(ev("e2", "a", 4, 1)), []kit.Result{
		upd("a", -5, 5, 2, 2),
		upd("a", 0, 10, 2, 2),
	}, "With AllowedLateness math.MaxInt64, end + lateness saturates at math.MaxInt64: the windows never expire,\n"+
		"so a@4 corrects both. A wrapped cleanup time would be negative, and a@4 late.")
	r.ExpectLate(nil, "No window of a@4 can expire before the watermark reaches math.MaxInt64.")

	// An event in a gap (Slide > Size) is late only if watermark > ts +
	// AllowedLateness, and that sum saturates too: near math.MaxInt64 a
	// wrapped one is negative, and an event on time would go to Late().
	gap := int64(math.MaxInt64 - 12) // in the gap [MaxInt64−17, MaxInt64−7) of Size 10, Slide 20
	r = newRun(t, SlidingConfig{Size: 10, Slide: 20, AllowedLateness: 100})
	r.ProcessAll(ev("e1", "a", 1000, 1))
	r.Expect("Process(e2 a@MaxInt64−12)", r.Process(ev("e2", "a", gap, 1)), []kit.Result{res("a", 1000, 1010, 1, 1)},
		"a@MaxInt64−12 falls in a gap between windows: no window counts it, and, on time, it raises the watermark,\n"+
			"which fires a@1000's window.")
	r.ExpectLate(nil, "The watermark is 1000, far below MaxInt64−12 + 100 (saturated: math.MaxInt64), so a@MaxInt64−12 is\n"+
		"not late, though no window counts it. A sum that wraps is negative, and every watermark is above it.")
}

// TestSlideEqualToSizeIsTumbling certifies that a SlidingProcessor with
// Slide == Size returns, call by call, what stage 01's tumbling Processor
// returns over the same seeded, shuffled, duplicated calls.
func TestSlideEqualToSizeIsTumbling(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for range 5 {
		ops := randomOps(rnd, 10, 5, 5+20)
		cfg := SlidingConfig{Size: 10, Slide: 10, WatermarkDelay: 5, AllowedLateness: 7}
		tumbling, err := NewProcessor(Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 7})
		if err != nil {
			t.Fatalf("NewProcessor: %v", err)
		}
		want := windowtest.Replay(tumbling, ops)
		got := replay(t, cfg, ops)
		if d, drawn := firstCallDiff(ops, got, want); d != "" {
			msg := "Slide == Size is a tumbling window, so the results must be the tumbling Processor's:\n" + d
			t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, want))
		}
	}
}

// TestSideOutputKeepsArrivalOrder certifies that Late returns every late
// event in arrival order, not in timestamp or key order, and keeps them
// across calls.
func TestSideOutputKeepsArrivalOrder(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5, AllowedLateness: 3})
	r.Process(ev("e0", "a", 100, 1)) // watermark 100: every window ending at or below 97 has expired
	late := []kit.Event{
		ev("x1", "x", 40, 1),
		ev("y1", "y", 2, 2),
		ev("x2", "x", 85, 3),
		ev("z1", "z", -30, 4),
		ev("a1", "a", 60, 5),
	}
	r.ProcessAll(late...)
	r.Expect("AdvanceWatermark(200)", r.Advance(200), []kit.Result{
		res("a", 95, 105, 1, 1),
		res("a", 100, 110, 1, 1),
	}, "Only a@100 was counted: every window of the other events had expired when they arrived.")
	r.ExpectLate(late, "The side output holds the late events in the order they arrived, and keeps them after\n"+
		"later calls: it is output, like a second stream, not state sorted by time.")
}
