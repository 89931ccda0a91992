//go:build lab || solution

package sessions

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestLateEventInsideFiredSessionRetractsAndReemits certifies that a late event that falls inside a fired session retracts the session's result and emits the corrected one as an update, at once.
func TestLateEventInsideFiredSessionRetractsAndReemits(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
	r.processAll(ev("e1", "a", 0, 1), ev("e2", "a", 5, 2))
	r.expect("AdvanceWatermark(20)", r.advance(20), []kit.Result{res("a", 0, 15, 2, 3)}, "the session [0,15) fires at watermark 15.")
	r.expect("Process(e3 a@3=4)", r.process(ev("e3", "a", 3, 4)), []kit.Result{ret("a", 0, 15, 2, 3), upd("a", 0, 15, 3, 7)},
		"e3's window [3,13) lies inside the fired session [0,15), which has not expired (20 < 15 + 100): the session\n"+
			"changes and, being past the watermark, fires again at once. Downstream holds a [0,15) count=2 sum=3 and sums\n"+
			"Count and Sum per (Key, Start, End): first retract that row (Count −2, Sum −3, IsUpdate true), then emit the\n"+
			"corrected session as an update. Emitting only the update would leave downstream with count 2+3 = 5.")
	r.expectHeld([]kit.Result{res("a", 0, 15, 3, 7)}, "the one session [0,15) with its three events.")
}

// TestLateEventExtendingFiredSessionRetractsWhenTheLongerSessionFires certifies that a late event that extends a fired session emits nothing while the longer session is not due, and retracts the old session right before the longer one when it fires.
func TestLateEventExtendingFiredSessionRetractsWhenTheLongerSessionFires(t *testing.T) {
	defer suite.Recover(t)
	t.Run("the longer session ends after the watermark", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
		r.process(ev("e1", "a", 0, 1))
		r.expect("AdvanceWatermark(12)", r.advance(12), []kit.Result{res("a", 0, 10, 1, 1)}, "[0,10) fires at watermark 10.")
		r.expect("Process(e2 a@8=2)", r.process(ev("e2", "a", 8, 2)), nil,
			"e2's window [8,18) merges with the fired [0,10) into [0,18), which ends after the watermark (12): it has not\n"+
				"fired yet, so nothing is emitted now. Retractions go out when the session that replaces them fires, right\n"+
				"before it: until then downstream keeps [0,10), the best it knows.")
		r.expect("AdvanceWatermark(17)", r.advance(17), nil, "[0,18) fires at 18.")
		r.expect("AdvanceWatermark(18)", r.advance(18), []kit.Result{ret("a", 0, 10, 1, 1), upd("a", 0, 18, 2, 3)},
			"[0,18) fires: it swallowed the emitted [0,10), so it retracts that first and is an update.")
		r.expectHeld([]kit.Result{res("a", 0, 18, 2, 3)}, "[0,10) is gone, [0,18) replaces it.")
	})
	t.Run("the longer session is already due", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
		r.process(ev("e1", "a", 0, 1))
		r.expect("AdvanceWatermark(30)", r.advance(30), []kit.Result{res("a", 0, 10, 1, 1)}, "[0,10) fires at watermark 10.")
		r.expect("Process(e2 a@9=5)", r.process(ev("e2", "a", 9, 5)), []kit.Result{ret("a", 0, 10, 1, 1), upd("a", 0, 19, 2, 6)},
			"e2's [9,19) merges with the fired [0,10) into [0,19), which the watermark (30) has passed: it fires at once,\n"+
				"retracting [0,10) first.")
		r.expectHeld([]kit.Result{res("a", 0, 19, 2, 6)}, "one session [0,19).")
	})
}

// TestLateBridgeRetractsBothEmittedSessions certifies that a late event bridging two emitted sessions retracts both and emits the merged session as an update, so that a downstream summing per session ends with the merged session only.
func TestLateBridgeRetractsBothEmittedSessions(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
	r.processAll(ev("e1", "a", 0, 1), ev("e2", "a", 15, 2), ev("e3", "b", 2, 9))
	r.expect("AdvanceWatermark(30)", r.advance(30), []kit.Result{res("a", 0, 10, 1, 1), res("b", 2, 12, 1, 9), res("a", 15, 25, 1, 2)},
		"three sessions, emitted in (End, Start, Key) order.")
	r.expect("Process(e4 a@7=4)", r.process(ev("e4", "a", 7, 4)),
		[]kit.Result{ret("a", 0, 10, 1, 1), ret("a", 15, 25, 1, 2), upd("a", 0, 25, 3, 7)},
		"e4's window [7,17) touches BOTH emitted sessions of a: it bridges them into [0,25) (Flink's docs, \"Late\n"+
			"elements considerations\": a late element may merge two sessions). The merged session is past the watermark,\n"+
			"so it fires at once: retract each session it swallowed (ascending Start), then emit it as an update.\n"+
			"Merging with only the first session found would leave [0,17) and [15,25) overlapping.")
	r.expectHeld([]kit.Result{res("b", 2, 12, 1, 9), res("a", 0, 25, 3, 7)},
		"downstream rebuilds the final sessions: b's untouched, a's two replaced by the one that bridges them.")
}

// TestRetractionsPrecedeTheSessionThatReplacesThem certifies that each firing session's retractions come immediately before its result, even where (End, Start, Key) order alone would put a retraction elsewhere.
func TestRetractionsPrecedeTheSessionThatReplacesThem(t *testing.T) {
	defer suite.Recover(t)
	t.Run("retraction with a later start", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
		r.process(ev("e1", "a", 5, 1))
		r.expect("AdvanceWatermark(20)", r.advance(20), []kit.Result{res("a", 5, 15, 1, 1)}, "[5,15) fires at 15.")
		r.expect("Process(e2 a@0=2)", r.process(ev("e2", "a", 0, 2)), []kit.Result{ret("a", 5, 15, 1, 1), upd("a", 0, 15, 2, 3)},
			"[0,10) merges with [5,15) into [0,15). Sorted by (End, Start, Key) the update [0,15) would come before the\n"+
				"retraction of [5,15); but a downstream that keeps one row per session deletes before it inserts:\n"+
				"a session's retractions come right before its result.")
	})
	t.Run("one call fires two sessions", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
		r.process(ev("e1", "a", 20, 1))
		r.expect("AdvanceWatermark(31)", r.advance(31), []kit.Result{res("a", 20, 30, 1, 1)}, "a's [20,30) fires at 30.")
		r.process(ev("e2", "b", 22, 2))
		r.expect("Process(e3 a@29=4)", r.process(ev("e3", "a", 29, 4)), nil,
			"[29,39) merges with the fired [20,30) into [20,39), not due at watermark 31: nothing yet.")
		r.expect("AdvanceWatermark(40)", r.advance(40),
			[]kit.Result{res("b", 22, 32, 1, 2), ret("a", 20, 30, 1, 1), upd("a", 20, 39, 2, 5)},
			"Two sessions fire, in (End, Start, Key) order of the sessions: b's [22,32), then a's [20,39), which brings\n"+
				"its retraction of [20,30) with it, immediately before its result. (Sorting the whole call with\n"+
				"kit.SortResults would pull the retraction before b's result, away from the session it belongs to.)")
		r.expectHeld([]kit.Result{res("b", 22, 32, 1, 2), res("a", 20, 39, 2, 5)}, "b's session and a's longer one.")
	})
}

// TestFirstEmissionIsNeverAnUpdate certifies that a session's first result has IsUpdate false, also when it fires at once because it arrives behind the watermark, and when it merged sessions that had not fired.
func TestFirstEmissionIsNeverAnUpdate(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
	r.advance(50)
	r.expect("Process(e1 a@30=1)", r.process(ev("e1", "a", 30, 1)), []kit.Result{res("a", 30, 40, 1, 1)},
		"e1's session [30,40) is behind the watermark (50) but not expired (50 < 40 + 100): it fires at once. Nothing of\n"+
			"it was emitted before, so this is its first result: IsUpdate false, and nothing to retract.")
	r.processAll(ev("e2", "a", 60, 1), ev("e3", "a", 75, 2))
	r.expect("Process(e4 a@68=3)", r.process(ev("e4", "a", 68, 3)), nil,
		"e4 bridges [60,70) and [75,85) into [60,85): not due, nothing yet.")
	r.expect("AdvanceWatermark(85)", r.advance(85), []kit.Result{res("a", 60, 85, 3, 6)},
		"[60,85) merged two sessions that never fired: downstream holds nothing of them, so there is nothing to retract\n"+
			"and this is a first result, IsUpdate false.")
	r.expectHeld([]kit.Result{res("a", 30, 40, 1, 1), res("a", 60, 85, 3, 6)}, "two sessions of a.")
}

// TestLatenessIsJudgedOnTheMergedSession certifies that an event whose own window has expired is still counted when it merges into a session that has not expired, and goes to the side output when it merges with none.
//
// Flink's WindowOperator checks isWindowLate on the window that
// MergingWindowSet.addWindow returns: the merged one.
func TestLatenessIsJudgedOnTheMergedSession(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 5})
	r.process(ev("e1", "a", 20, 1))
	r.expect("AdvanceWatermark(34)", r.advance(34), []kit.Result{res("a", 20, 30, 1, 1)},
		"[20,30) fires at 30 and expires at 30 + 5 = 35: at 34 it is fired, not expired.")
	r.expect("Process(e2 a@10=2)", r.process(ev("e2", "a", 10, 2)), []kit.Result{ret("a", 20, 30, 1, 1), upd("a", 10, 30, 2, 3)},
		"Alone, e2's window [10,20) would be expired (34 ≥ 20 + 5). But it touches a's [20,30), which has not expired,\n"+
			"and lateness is judged on the merged session [10,30): 34 < 30 + 5, so e2 is counted.")
	r.expect("Process(e3 a@-5=4)", r.process(ev("e3", "a", -5, 4)), nil,
		"e3's [-5,5) touches no session of a ([10,30) starts at 10): merged with nothing, it is expired (34 ≥ 5 + 5).")
	r.expect("Process(e4 b@10=8)", r.process(ev("e4", "b", 10, 8)), nil,
		"b has no session: e4's [10,20) alone is expired (34 ≥ 20 + 5).")
	r.expectLate([]kit.Event{ev("e3", "a", -5, 4), ev("e4", "b", 10, 8)},
		"e3 and e4 merge with no unexpired session and their own are expired: side output. e2 joined one: counted.")
}

// TestExpiredSessionsSendEventsToTheSideOutput certifies that an event whose merged session is expired (watermark ≥ end + AllowedLateness) goes to Late and changes nothing, while an event behind the watermark whose session is not expired is counted.
func TestExpiredSessionsSendEventsToTheSideOutput(t *testing.T) {
	defer suite.Recover(t)
	t.Run("no allowed lateness", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10})
		r.process(ev("e1", "a", 0, 1))
		r.expect("AdvanceWatermark(10)", r.advance(10), []kit.Result{res("a", 0, 10, 1, 1)},
			"[0,10) fires at 10 and, with no allowed lateness, expires at once.")
		r.expect("Process(e2 a@-3=2)", r.process(ev("e2", "a", -3, 2)), nil,
			"e2's [-3,7) is expired at watermark 10 (10 ≥ 7 + 0): side output.")
		r.expect("Process(e3 b@0=4)", r.process(ev("e3", "b", 0, 4)), nil,
			"e3's [0,10) ends exactly at the watermark: expired (watermark ≥ end + lateness), side output.")
		r.expect("Process(e4 b@1=8)", r.process(ev("e4", "b", 1, 8)), nil,
			"e4's [1,11) ends after the watermark (10): on time, counted, fires when the watermark reaches 11.")
		r.expect("AdvanceWatermark(11)", r.advance(11), []kit.Result{res("b", 1, 11, 1, 8)}, "b's session holds e4 only.")
		r.expectLate([]kit.Event{ev("e2", "a", -3, 2), ev("e3", "b", 0, 4)}, "e2 and e3 came after their sessions expired.")
	})
	t.Run("with allowed lateness", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 20})
		r.process(ev("e1", "a", 0, 1))
		r.expect("AdvanceWatermark(29)", r.advance(29), []kit.Result{res("a", 0, 10, 1, 1)}, "[0,10) fires at 10 and expires at 30.")
		r.expect("Process(e2 a@1=2)", r.process(ev("e2", "a", 1, 2)), []kit.Result{ret("a", 0, 10, 1, 1), upd("a", 0, 11, 2, 3)},
			"[1,11) merges into [0,11), not expired at 29 (< 11 + 20) and past the watermark: it fires at once.")
		r.expect("AdvanceWatermark(31)", r.advance(31), nil, "[0,11) expires at 31; expiring emits nothing.")
		r.expect("Process(e3 a@-5=4)", r.process(ev("e3", "a", -5, 4)), nil,
			"[-5,5) is expired at 31 (≥ 5 + 20), and [0,11) is gone from the state: side output.")
		r.expectLate([]kit.Event{ev("e3", "a", -5, 4)}, "only e3 was late.")
		r.expectHeld([]kit.Result{res("a", 0, 11, 2, 3)}, "the late event changed nothing downstream.")
	})
}

// TestExpiredSessionIsForgotten certifies that a session's state is dropped when the watermark reaches its end + AllowedLateness: an event whose window touches the expired session but has not expired itself opens a session of its own, emitted as a first result.
//
// This is the wart of the card's parity box, which Flink and Beam share:
// with nothing left of the old session there is nothing to merge with or
// retract, and downstream ends with two overlapping sessions of one key.
// The other tests keep clear of it.
func TestExpiredSessionIsForgotten(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 5})
	r.process(ev("e1", "a", 0, 1))
	r.expect("AdvanceWatermark(15)", r.advance(15), []kit.Result{res("a", 0, 10, 1, 1)},
		"[0,10) fires at 10 and expires at 10 + 5 = 15: at watermark 15 exactly, its state is dropped.")
	r.expect("Process(e2 a@8=2)", r.process(ev("e2", "a", 8, 2)), nil,
		"e2's window [8,18) touches a's [0,10), but that session expired at 15 and is gone. e2 opens [8,18), which has not\n"+
			"expired (15 < 18 + 5) and ends after the watermark: nothing fires yet. A processor that kept the expired session\n"+
			"would merge e2 into [0,18) here.")
	r.expect("AdvanceWatermark(18)", r.advance(18), []kit.Result{res("a", 8, 18, 1, 2)},
		"[8,18) fires as a session of its own, a first result: nothing of [0,10) is left to merge with or retract, so\n"+
			"downstream keeps [0,10) as it fired and adds [8,18), two overlapping sessions of a: the price of dropping state.\n"+
			"(The timeline below draws sessions from the events alone, as if none had expired.)")
	r.expectLate(nil, "e2 was not late: the session it landed in, its own [8,18), had not expired.")
}

// TestRedeliveredEventsAreNoOps certifies that an event ID seen before is a no-op, whether it was counted, is in a fired session, was late, or its session has expired.
func TestRedeliveredEventsAreNoOps(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 10})
	e1 := ev("e1", "a", 0, 1)
	r.process(e1)
	r.expect("Process(e1 again)", r.process(e1), nil, "a redelivery of a counted event is a no-op.")
	r.expect("AdvanceWatermark(10)", r.advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "e1 counted once.")
	r.expect("Process(e1 again, after its session fired)", r.process(e1), nil,
		"e1 is in the fired session already: no retraction, no update. Check the seen IDs before anything else.")
	r.expect("Process(e1 with other fields)", r.process(ev("e1", "a", 5, 100)), nil,
		"the ID identifies the record: the same ID with other fields is still a redelivery.")
	r.advance(20) // [0,10) expires
	r.expect("Process(e1 again, after its session expired)", r.process(e1), nil, "still a no-op, and not a late event.")
	late := ev("e2", "a", -50, 2)
	r.process(late)
	r.process(late)
	r.expectLate([]kit.Event{late}, "e2 was late once; its redelivery is a no-op, not a second late event. e1's redeliveries are no-ops.")
	r.expectHeld([]kit.Result{res("a", 0, 10, 1, 1)}, "e1 counted once.")
}
