//go:build lab || solution

package sessions

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestNewSessionProcessorRejectsInvalidConfig certifies that NewSessionProcessor returns an error for a Gap of zero or less or a negative AllowedLateness, and otherwise a processor whose watermark is math.MinInt64.
func TestNewSessionProcessorRejectsInvalidConfig(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		cfg SessionConfig
		why string
	}{
		{SessionConfig{Gap: 0}, "a gap of 0 would end every session at its last event: no event could ever join it"},
		{SessionConfig{Gap: -10}, "a negative gap has no meaning"},
		{SessionConfig{Gap: 10, AllowedLateness: -1}, "a session cannot expire before it fires"},
	} {
		t.Run(fmt.Sprintf("%+v", c.cfg), func(t *testing.T) {
			defer suite.Recover(t)
			if s, err := NewSessionProcessor(c.cfg); err == nil {
				t.Errorf("NewSessionProcessor(%+v) = %v, nil; want an error: %s", c.cfg, s, c.why)
			}
		})
	}
	for _, cfg := range []SessionConfig{{Gap: 1}, {Gap: 30 * 60 * 1000}, {Gap: 10, AllowedLateness: 100}} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			defer suite.Recover(t)
			s := newSessions(t, cfg)
			if wm := s.Watermark(); wm != math.MinInt64 {
				t.Errorf("Watermark() of a new SessionProcessor = %s, want math.MinInt64: no watermark has arrived yet", kit.FormatWatermark(wm))
			}
		})
	}
}

// TestTouchingWindowsMerge certifies that windows of one key that intersect or touch merge into the session that covers them, in every arrival order: with gap 1, events at 0, 1 and 2 make the one session [0,3).
//
// Flink's TimeWindow.mergeWindows merges [10,20) and [20,30): touching is
// enough. The session fires once, when the watermark reaches its end.
func TestTouchingWindowsMerge(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		name   string
		gap    int64
		events []kit.Event
		want   kit.Result
	}{
		{"gap 1, events at 0, 1, 2 (Flink's example)", 1,
			[]kit.Event{ev("e1", "a", 0, 1), ev("e2", "a", 1, 2), ev("e3", "a", 2, 3)}, res("a", 0, 3, 3, 6)},
		{"[10,20) and [20,30) touch", 10,
			[]kit.Event{ev("e1", "a", 10, 1), ev("e2", "a", 20, 2)}, res("a", 10, 30, 2, 3)},
		{"[10,20) and [15,25) overlap", 10,
			[]kit.Event{ev("e1", "a", 10, 1), ev("e2", "a", 15, 2)}, res("a", 10, 25, 2, 3)},
		{"a chain of touching windows, negative timestamps", 5,
			[]kit.Event{ev("e1", "a", -10, 1), ev("e2", "a", -5, 2), ev("e3", "a", 0, 3), ev("e4", "a", 5, 4)}, res("a", -10, 10, 4, 10)},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			for _, order := range permutations(c.events) {
				r := newRun(t, SessionConfig{Gap: c.gap})
				for _, e := range order {
					r.expect(fmt.Sprintf("Process(%v)", e), r.process(e), nil,
						"Process emits nothing while no watermark has passed the session's end: events never fire sessions.")
				}
				r.expect(fmt.Sprintf("AdvanceWatermark(%d)", c.want.End-1), r.advance(c.want.End-1), nil,
					fmt.Sprintf("With gap %d these windows intersect or touch, so they are one session %v, which is still open\n"+
						"at watermark %d. Two windows [a, a+gap) and [b, b+gap) with a ≤ b merge when b ≤ a+gap: touching counts,\n"+
						"as in Flink's TimeWindow.intersects.", c.gap, c.want, c.want.End-1))
				r.expect(fmt.Sprintf("AdvanceWatermark(%d)", c.want.End), r.advance(c.want.End), []kit.Result{c.want},
					"the merged session fires once, when the watermark reaches its end.")
				if t.Failed() {
					return // one arrival order is enough to read
				}
			}
		})
	}
}

// TestSessionEndsOneGapAfterItsLastEvent certifies that a session is [first timestamp, last timestamp + Gap) and fires when the watermark reaches that end, not at its last event; near the top of the int64 range that end, and end + AllowedLateness, saturate at math.MaxInt64 instead of wrapping round.
func TestSessionEndsOneGapAfterItsLastEvent(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 50})
	r.processAll(ev("e1", "a", 100, 1), ev("e2", "a", 130, 2))
	r.expect("AdvanceWatermark(130)", r.advance(130), nil,
		"The last event is at 130, but the session stays open for a gap of 50 after it: an event of key a\n"+
			"before 180 would still join it. The session is [100,180), not [100,130).")
	r.expect("AdvanceWatermark(179)", r.advance(179), nil, "the session [100,180) is open until the watermark reaches 180.")
	r.expect("AdvanceWatermark(180)", r.advance(180), []kit.Result{res("a", 100, 180, 2, 3)},
		"the session is [100, 130+50): its end is the last event plus the gap, and it fires when watermark ≥ end.")

	// Within a gap of math.MaxInt64, ts + Gap and end + AllowedLateness
	// overflow: they saturate there, as stage 3's end + AllowedLateness does.
	// Wrapped round, a session ends (or expires) near math.MinInt64, before
	// it starts: it fires at the next watermark, or is dropped unfired.
	const top = math.MaxInt64
	r = newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
	r.expect("Process(e1 a@MaxInt64−15, e2 a@MaxInt64−8, e3 b@MaxInt64−3)",
		r.processAll(ev("e1", "a", top-15, 1), ev("e2", "a", top-8, 2), ev("e3", "b", top-3, 4)), nil,
		"no watermark has come: nothing fires.")
	const why = "e2's window [MaxInt64−8, MaxInt64−8+10) ends past math.MaxInt64: its end saturates at math.MaxInt64, so\n" +
		"a's session is [MaxInt64−15, MaxInt64) and b's [MaxInt64−3, MaxInt64), and each expires at math.MaxInt64 too\n" +
		"(end + AllowedLateness saturates). Wrapped round, an end or a cleanup time lands near math.MinInt64: the\n" +
		"session fires at once, or expires unfired and its events are lost."
	r.expect("AdvanceWatermark(0)", r.advance(0), nil, why)
	r.expect("AdvanceWatermark(MaxInt64−1)", r.advance(top-1), nil, "both sessions end at math.MaxInt64, which the watermark has not reached: "+why)
	r.expect("Process(e4 a@MaxInt64−20=8)", r.process(ev("e4", "a", top-20, 8)), nil,
		"e4's window [MaxInt64−20, MaxInt64−10) overlaps a's open session: it joins it, on time, and nothing is due yet.")
	r.expectLate(nil, "a's session has not expired: it ends at math.MaxInt64 and expires there. "+why)
	r.expect("Flush()", r.flush(), []kit.Result{res("a", top-20, top, 3, 11), res("b", top-3, top, 1, 4)},
		"Flush fires both, ending at math.MaxInt64, a first (its Start is lower). "+why)
}

// TestEventsMoreThanAGapApartAreSeparateSessions certifies that two events of a key further apart than the gap open separate sessions, and events at most a gap apart share one.
func TestEventsMoreThanAGapApartAreSeparateSessions(t *testing.T) {
	defer suite.Recover(t)
	const gap = 10
	for _, c := range []struct {
		name string
		a, b int64
		want []kit.Result
	}{
		{"gap − 1 apart: overlapping windows", 0, 9, []kit.Result{res("a", 0, 19, 2, 3)}},
		{"exactly gap apart: touching windows", 0, 10, []kit.Result{res("a", 0, 20, 2, 3)}},
		{"gap + 1 apart: a millisecond between them", 0, 11, []kit.Result{res("a", 0, 10, 1, 1), res("a", 11, 21, 1, 2)}},
		{"gap + 1 apart, negative timestamps", -25, -14, []kit.Result{res("a", -25, -15, 1, 1), res("a", -14, -4, 1, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, SessionConfig{Gap: gap})
			r.processAll(ev("e1", "a", c.a, 1), ev("e2", "a", c.b, 2))
			r.expect("Flush()", r.flush(), c.want,
				fmt.Sprintf("With gap %d, the windows are [%d,%d) and [%d,%d): they merge only if they intersect or touch.",
					gap, c.a, c.a+gap, c.b, c.b+gap))
		})
	}
}

// TestBridgingEventMergesTwoSessions certifies that an event whose window reaches two sessions of its key merges all of them into one session, whatever the arrival order.
func TestBridgingEventMergesTwoSessions(t *testing.T) {
	defer suite.Recover(t)
	const gap = 10
	for _, c := range []struct {
		name   string
		events []kit.Event
		want   []kit.Result
		why    string
	}{
		{"the bridge arrives last",
			[]kit.Event{ev("e1", "a", 0, 1), ev("e2", "a", 15, 2), ev("e3", "a", 7, 4)},
			[]kit.Result{res("a", 0, 25, 3, 7)},
			"[0,10) and [15,25) are two sessions until e3's window [7,17) reaches both: it merges with BOTH, into [0,25).\n" +
				"Merge the new window with every session it intersects or touches, not only the first one found."},
		{"the bridge arrives first",
			[]kit.Event{ev("e3", "a", 7, 4), ev("e1", "a", 0, 1), ev("e2", "a", 15, 2)},
			[]kit.Result{res("a", 0, 25, 3, 7)},
			"[7,17) comes first; [0,10) touches it (merge: [0,17)); then [15,25) overlaps [0,17): one session [0,25)."},
		{"two bridges join three sessions",
			[]kit.Event{ev("e1", "a", 0, 1), ev("e2", "a", 14, 2), ev("e3", "a", 28, 4), ev("e4", "a", 7, 8), ev("e5", "a", 20, 16)},
			[]kit.Result{res("a", 0, 38, 5, 31)},
			"[0,10), [14,24) and [28,38); e4's [7,17) joins the first two into [0,24); e5's [20,30) joins that and [28,38)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, SessionConfig{Gap: gap})
			r.processAll(c.events...)
			r.expect("Flush()", r.flush(), c.want, c.why)
		})
	}
}

// TestSessionsOfDifferentKeysNeverMerge certifies that sessions are per key: events of different keys at overlapping times never merge, and each key's sessions carry its own count and sum.
func TestSessionsOfDifferentKeysNeverMerge(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10})
	r.processAll(ev("e1", "a", 0, 1), ev("e2", "b", 5, 2), ev("e3", "a", 8, 3), ev("e4", "b", 20, 4), ev("e5", "c", 10, 5))
	r.expect("Flush()", r.flush(), []kit.Result{
		res("b", 5, 15, 1, 2), res("a", 0, 18, 2, 4), res("c", 10, 20, 1, 5), res("b", 20, 30, 1, 4),
	}, "Each key has its own sessions: a's [0,10) and [8,18) merge; b's [5,15) overlaps them but is another key's,\n"+
		"and b's [20,30) is more than a gap after b's first event. Results in (End, Start, Key) order.")
}

// TestEventsNeverMoveTheWatermark certifies that the session processor only follows AdvanceWatermark: Process never changes the watermark or fires a session, and a lower watermark changes nothing.
//
// From this stage on, as in Flink's WindowOperator, the watermark comes from
// upstream (stage 07's Watermarks); an event behind it is still on time when
// its session has not expired.
func TestEventsNeverMoveTheWatermark(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10})
	r.expect("Process(e1 a@1000=1)", r.process(ev("e1", "a", 1000, 1)), nil, "an event never fires anything on its own.")
	r.process(ev("e2", "b", 5000, 2))
	if wm := r.r.Watermark(); wm != math.MinInt64 {
		r.fatalf("Watermark() after two events and no AdvanceWatermark = %s, want math.MinInt64.\n"+
			"The session processor follows the watermark it is handed and generates none: the disorder bound lives in\n"+
			"the sources now (stage 07), so an event must not raise it.", kit.FormatWatermark(wm))
	}
	r.expect("AdvanceWatermark(2000)", r.advance(2000), []kit.Result{res("a", 1000, 1010, 1, 1)},
		"watermark 2000 passes the end of a's session [1000,1010) and not b's [5000,5010).")
	r.expect("AdvanceWatermark(1500)", r.advance(1500), nil, "a watermark never goes back: 1500 < 2000 changes nothing.")
	if wm := r.r.Watermark(); wm != 2000 {
		r.fatalf("Watermark() after AdvanceWatermark(2000) then AdvanceWatermark(1500) = %s, want 2000: it never decreases.", kit.FormatWatermark(wm))
	}
	r.expect("Process(e3 c@1995=3)", r.process(ev("e3", "c", 1995, 3)), nil,
		"e3 is behind the watermark (1995 < 2000) but its session [1995,2005) ends after it: it is on time, and the\n"+
			"session fires when the watermark reaches 2005, not now.")
	r.expectLate(nil, "e3's session [1995,2005) has not expired (2000 < 2005 + 0): it is counted, not late.")
	if wm := r.r.Watermark(); wm != 2000 {
		r.fatalf("Watermark() after Process(e3 c@1995=3) = %s, want 2000: events never move it.", kit.FormatWatermark(wm))
	}
	r.expect("AdvanceWatermark(2005)", r.advance(2005), []kit.Result{res("c", 1995, 2005, 1, 3)}, "c's session ends at 2005.")
}

// TestResultsOfOneCallAreOrderedByEndStartKey certifies that the sessions one AdvanceWatermark fires come out in (End, Start, Key) order.
func TestResultsOfOneCallAreOrderedByEndStartKey(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10})
	events := []kit.Event{
		ev("e1", "a", 0, 1), ev("e2", "a", 5, 1), // a [0,15)
		ev("e3", "b", 5, 2), // b [5,15)
		ev("e4", "f", 5, 3), // f [5,15)
		ev("e5", "c", 2, 4), // c [2,12)
		ev("e6", "d", 0, 5), // d [0,10)
		ev("e7", "e", 3, 6), // e [3,13)
	}
	slices.Reverse(events)
	r.processAll(events...)
	r.expect("AdvanceWatermark(100)", r.advance(100), []kit.Result{
		res("d", 0, 10, 1, 5), res("c", 2, 12, 1, 4), res("e", 3, 13, 1, 6),
		res("a", 0, 15, 2, 2), res("b", 5, 15, 1, 2), res("f", 5, 15, 1, 3),
	}, "The results of one call are ordered by End, then Start, then Key (kit.CompareResults), whatever the\n"+
		"arrival order and the keys' map order.")
}

// TestTiedEndsAreOrderedByStartThenKey certifies that sessions of different keys that fire in one call with the same end come in ascending Start, then Key, even where the keys' alphabetical order says otherwise, each right after its own retractions, and however many tie.
func TestTiedEndsAreOrderedByStartThenKey(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 100})
	r.processAll(ev("e1", "c", 3, 1), ev("e2", "z", 5, 2))
	r.expect("AdvanceWatermark(15)", r.advance(15), []kit.Result{res("c", 3, 13, 1, 1), res("z", 5, 15, 1, 2)},
		"c's [3,13) and z's [5,15) fire at watermark 15.")
	r.expect("Process(e3 c@10=4, e4 z@10=8, e5 m@10=16, e6 a@10=32)",
		r.processAll(ev("e3", "c", 10, 4), ev("e4", "z", 10, 8), ev("e5", "m", 10, 16), ev("e6", "a", 10, 32)), nil,
		"c's window [10,20) touches the fired [3,13), z's overlaps the fired [5,15): [3,20) and [5,20), which end after the\n"+
			"watermark (15), so they fire later; m and a open [10,20).")
	r.expect("AdvanceWatermark(20)", r.advance(20), []kit.Result{
		ret("c", 3, 13, 1, 1), upd("c", 3, 20, 2, 5),
		ret("z", 5, 15, 1, 2), upd("z", 5, 20, 2, 10),
		res("a", 10, 20, 1, 32), res("m", 10, 20, 1, 16),
	}, "All four sessions end at 20. Ties on End go by Start, then Key: c [3,20), z [5,20), then a and m, both [10,20).\n"+
		"Alphabetical order would put a first and z last; it decides only between sessions with the same End and Start.\n"+
		"Each session brings its retractions with it, immediately before its result: order the firing sessions by\n"+
		"(End, Start, Key), then expand each.")
	r.expectHeld([]kit.Result{res("c", 3, 20, 2, 5), res("z", 5, 20, 2, 10), res("a", 10, 20, 1, 32), res("m", 10, 20, 1, 16)},
		"four sessions, the two that grew replacing what they swallowed.")

	// Many ties in one call: Go's sorts happen to keep equal elements in
	// the order they were given below 13 of them, and scramble them above.
	// Collecting the firing sessions key by key and sorting them by (End,
	// Start) alone, trusting the keys' order to survive, passes with four
	// sessions and fails with thirty.
	r = newRun(t, SessionConfig{Gap: 10})
	var events []kit.Event
	var want, ending25 []kit.Result
	for i := range 30 {
		key, ts := fmt.Sprintf("till-%02d", i), int64(10+5*(i%2)) // [10,20) or [15,25)
		events = append(events, ev(fmt.Sprintf("t%d", i), key, ts, int64(i+1)))
		if i%2 == 0 {
			want = append(want, res(key, ts, ts+10, 1, int64(i+1)))
		} else {
			ending25 = append(ending25, res(key, ts, ts+10, 1, int64(i+1)))
		}
	}
	want = append(want, ending25...)
	rnd := suite.Rand(t)
	rnd.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	r.processAll(events...)
	r.expect("AdvanceWatermark(25)", r.advance(25), want,
		"thirty keys' sessions, delivered in a shuffled order, fire together: [10,20) for till-00, till-02, … and [15,25)\n"+
			"for till-01, till-03, …. Those that end together tie on End and Start, so they come in Key order. An unstable sort\n"+
			"by (End, Start) alone (sort.Slice, slices.SortFunc) keeps the order it was given only below 13 elements, by\n"+
			"chance: compare the keys too.")
}

// TestFlushFiresEverySessionAndEndsTheInput certifies that Flush fires every session not yet fired, leaves the watermark at math.MaxInt64, and sends every later event to the side output.
func TestFlushFiresEverySessionAndEndsTheInput(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10, AllowedLateness: 50})
	r.processAll(ev("e1", "a", 0, 1), ev("e2", "a", 30, 2), ev("e3", "b", 5, 4))
	r.expect("AdvanceWatermark(15)", r.advance(15), []kit.Result{res("a", 0, 10, 1, 1), res("b", 5, 15, 1, 4)},
		"watermark 15 reaches the ends of a's [0,10) and b's [5,15).")
	r.expect("Flush()", r.flush(), []kit.Result{res("a", 30, 40, 1, 2)},
		"Flush fires what has not fired, as a final watermark of math.MaxInt64 would; fired sessions are not emitted again.")
	if wm := r.r.Watermark(); wm != math.MaxInt64 {
		r.fatalf("Watermark() after Flush = %s, want math.MaxInt64 (Flink's final watermark).", kit.FormatWatermark(wm))
	}
	r.expect("Process(e4 a@1000=8)", r.process(ev("e4", "a", 1000, 8)), nil, "after Flush the input is over: every event is late.")
	r.expect("Flush()", r.flush(), nil, "a second Flush has nothing left to fire.")
	r.expectLate([]kit.Event{ev("e4", "a", 1000, 8)}, "after Flush every session is expired, so e4 goes to the side output.")
}

// permutations returns every order of events (at most 4 of them here).
func permutations(events []kit.Event) [][]kit.Event {
	if len(events) <= 1 {
		return [][]kit.Event{slices.Clone(events)}
	}
	var out [][]kit.Event
	for i := range events {
		rest := slices.Concat(events[:i], events[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]kit.Event{events[i]}, p...))
		}
	}
	return out
}
