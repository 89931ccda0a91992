//go:build lab || solution

package seenttl

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestTightTTLKeepsExactlyOnce certifies that with a seen TTL of at least
// WindowSize + AllowedLateness, on seeded streams with redeliveries long
// after their windows, every call returns what it returns with unbounded
// dedup (NewProcessor) and moves the watermark alike; only Late() may hold
// more: each redelivery that arrives once its ID is forgotten, and nothing
// else.
func TestTightTTLKeepsExactlyOnce(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		ttls := []int64{line(cfg), line(cfg) + 1, cfg.WatermarkDelay + line(cfg), 3 * line(cfg)}
		slices.Sort(ttls)
		for _, ttl := range slices.Compact(ttls) { // WatermarkDelay 0 makes two of them one
			t.Run(fmt.Sprintf("%+v TTL %d", cfg, ttl), func(t *testing.T) {
				defer suite.Recover(t)
				for range 4 {
					ops := randomOps(rnd, cfg, 80)
					unbounded := windowtest.Replay(newPlain(t, cfg), ops)
					got := replayCounting(newTTL(t, cfg, ttl), ops)
					for i := range ops {
						if !slices.Equal(got.Outs[i], unbounded.Outs[i]) || got.WMs[i] != unbounded.WMs[i] {
							msg := fmt.Sprintf("call %d of %d, %v, returned\n%s\n(watermark %s after it); with unbounded dedup it returns\n%s\n(watermark %s).\n"+
								"A TTL of %d ≥ WindowSize + AllowedLateness = %d forgets an ID only when the watermark has reached\n"+
								"TS + TTL ≥ its window's end + AllowedLateness: its window has expired, so a redelivery then is late\n"+
								"and can change no result.", i+1, len(ops), ops[i], windowtest.FmtResults(got.Outs[i]), kit.FormatWatermark(got.WMs[i]),
								windowtest.FmtResults(unbounded.Outs[i]), kit.FormatWatermark(unbounded.WMs[i]), ttl, line(cfg))
							drawn := windowtest.Trace{Outs: got.Outs[:i+1], WMs: got.WMs[:i+1], Late: got.Late}
							t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, unbounded))
						}
					}
					want := byTheRule(t, cfg, ttl, ops)
					if !slices.Equal(got.Late, want.Late) {
						msg := fmt.Sprintf("Late() = %s\nwant      %s\n(unbounded dedup's Late() is %s).\n"+
							"The side output holds what unbounded dedup sends there, plus every redelivery that arrives once the\n"+
							"watermark has reached its TS + TTL: its ID is forgotten and its window expired, so it is late.",
							windowtest.FmtEvents(got.Late), windowtest.FmtEvents(want.Late), windowtest.FmtEvents(unbounded.Late))
						t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, got.Trace, want.Trace))
					}
				}
			})
		}
	}
}

// TestOneShortOfTheLineCountsARedeliveryTwice certifies that a seen TTL of
// WindowSize + AllowedLateness − 1 forgets the ID of an event at its
// window's start one watermark before the window expires, so that its
// redelivery at exactly that watermark is counted twice, while at
// WindowSize + AllowedLateness the same redelivery is a no-op.
func TestOneShortOfTheLineCountsARedeliveryTwice(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			defer suite.Recover(t)
			size, lateness := cfg.WindowSize, cfg.AllowedLateness
			start := size * (rnd.Int64N(200) - 100) // a seeded window [start, end)
			end := start + size
			a1 := ev("a1", "a", start, 7) // the first instant of its window: the first to be forgotten
			// b1 raises the watermark to end + lateness − 1: the window has
			// fired if lateness > 0, and has not expired.
			b1 := ev("b1", "b", end+lateness-1+cfg.WatermarkDelay, 1)

			// One short of the line: a1 is forgotten at start + TTL = end + lateness − 1.
			short := newRun(t, cfg, line(cfg)-1)
			short.Process(a1)
			out := short.Process(b1)
			var counted []kit.Result
			if lateness > 0 {
				// The window fired when the watermark passed end: a1's
				// redelivery corrects it to a count of 2.
				short.Expect("Process(b1)", out, []kit.Result{res("a", start, end, 1, 7)}, "b1 raises the watermark past window [start,end)'s end: it fires.")
				counted = []kit.Result{upd("a", start, end, 2, 14)}
			}
			short.Expect(fmt.Sprintf("a redelivery of a1 at watermark %d: Process(a1)", end+lateness-1), short.Process(a1), counted,
				fmt.Sprintf("With TTL %d, a1's ID is forgotten once the watermark reaches %d + %d = %d, but its window expires only at\n"+
					"%d + %d = %d. The redelivery arrives in between: a new event, counted a second time. This is the\n"+
					"cost of a TTL below WindowSize + AllowedLateness, and why the line is exactly there.",
					line(cfg)-1, start, line(cfg)-1, end+lateness-1, end, lateness, end+lateness))
			if lateness == 0 {
				bStart := b1.TS - ((b1.TS%size)+size)%size // floored, negative timestamps too
				short.Expect("Flush()", short.Flush(), []kit.Result{res("a", start, end, 2, 14), res("b", bStart, bStart+size, 1, 1)},
					"a1 was counted twice before its window fired.")
			}

			// On the line: the same redelivery is a no-op.
			tight := newRun(t, cfg, line(cfg))
			tight.Process(a1)
			tight.Process(b1)
			tight.Expect(fmt.Sprintf("a redelivery of a1 at watermark %d: Process(a1)", end+lateness-1), tight.Process(a1), nil,
				fmt.Sprintf("With TTL %d, a1's ID is remembered until the watermark reaches %d, the very watermark at which its window\n"+
					"expires: no redelivery can be counted twice.", line(cfg), end+lateness))
			tight.ExpectRemembered(2, "a1 and b1 are both remembered.")
		})
	}
}

// TestForgettingFollowsTheRule certifies that for seen TTLs on both sides
// of the line, every call on seeded streams with redeliveries returns, sets
// the watermark and leaves RememberedIDs as the card's rule says, and the
// side output too: an ID is remembered from the delivery taken as new until
// the watermark reaches its TS + TTL; a redelivery of a forgotten ID is a
// new event.
func TestForgettingFollowsTheRule(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		for range 6 {
			ttl := 1 + rnd.Int64N(2*line(cfg))
			ops := randomOps(rnd, cfg, 80)
			want := byTheRule(t, cfg, ttl, ops)
			got := replayCounting(newTTL(t, cfg, ttl), ops)
			if d, drawn := firstDiff(ops, 0, got, want); d != "" {
				msg := fmt.Sprintf("NewSeenTTLProcessor(%+v, %d) (the line is %d):\n%s\n"+
					"The rule: an ID taken as new is remembered until the watermark reaches its TS + TTL, and forgotten by\n"+
					"the call that gets it there; meanwhile a redelivery is a no-op; after that it is an event like any\n"+
					"other (late if its window expired, counted again if not).", cfg, ttl, line(cfg), d)
				t.Fatalf("%s This run's calls:\n%s%s", msg, opsList(ops), windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, want.Trace))
			}
		}
	}
}

// TestLateEventIDsAreForgottenToo certifies that the ID of a late event is
// remembered until the watermark reaches its TS + TTL, like any other (a
// redelivery meanwhile is a no-op and not late again), and that an event
// whose TS + TTL the watermark has already reached is not remembered at
// all: its redelivery goes to the side output again.
func TestLateEventIDsAreForgottenToo(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 10}
	r := newRun(t, cfg, 25)
	r.Process(ev("x1", "x", 30, 1)) // watermark 30: windows up to [20,30) have expired
	r.Process(ev("L1", "a", 9, 1))  // late; remembered until 9 + 25 = 34
	r.Process(ev("L2", "a", 4, 1))  // late; 4 + 25 = 29 ≤ 30: not remembered at all
	r.ExpectRemembered(2, "x1 (until 55) and L1 (until 34) are remembered; L2's time, 29, had come when it arrived.")
	r.Process(ev("L1", "a", 9, 1))
	r.Process(ev("L2", "a", 4, 1))
	r.ExpectLate([]kit.Event{ev("L1", "a", 9, 1), ev("L2", "a", 4, 1), ev("L2", "a", 4, 1)},
		"L1's redelivery is a no-op: its ID is remembered (a side-output event is seen, as in stage 1). L2's ID was\n"+
			"never remembered, so its redelivery is a new event, late again.")
	r.Advance(34)
	r.ExpectRemembered(1, "Watermark 34 forgets L1: only x1 is left.")
}

// TestRedeliveryDoesNotExtendMemory certifies that a redelivery of a
// remembered ID changes nothing, not when the ID is forgotten either,
// whatever its timestamp and however late it comes: when an ID is
// forgotten depends on the event taken as new, not on arrivals.
func TestRedeliveryDoesNotExtendMemory(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 20}
	r := newRun(t, cfg, 30) // a1 at 2: forgotten at 32
	r.Process(ev("a1", "a", 2, 1))
	r.Advance(31)
	r.Process(ev("a1", "a", 2, 1))   // a redelivery at watermark 31
	r.Process(ev("a1", "a", 100, 1)) // an odd one: the same ID with a later timestamp
	r.ExpectRemembered(1, "a1 is remembered until watermark 32: its redeliveries are no-ops and move nothing.")
	r.Advance(32)
	r.ExpectRemembered(0, "a1 was taken as new at 2, so it is forgotten at watermark 2 + 30 = 32, whatever arrived since:\n"+
		"a redelivery that pushed the expiry on (to 31 + 30, or 100 + 30) would make the state depend on arrival order,\n"+
		"and an ID redelivered often enough would never be forgotten.")
}

// TestForgettingDoesNotDependOnArrivalOrder certifies that with a TTL at
// the line, every bounded shuffle of a seeded stream with redeliveries
// gives the results of ordered delivery, and leaves as many IDs remembered
// before the final Flush: expiry follows event time, not arrival.
func TestForgettingDoesNotDependOnArrivalOrder(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		if cfg.WatermarkDelay == 0 {
			continue // a shuffle needs a delay to stay on time
		}
		events := kit.RandomEvents(rnd, 80, oracleKeys, 0, 20*cfg.WindowSize)
		slices.SortStableFunc(events, func(a, b kit.Event) int { return int(a.TS - b.TS) })
		ordered := newTTL(t, cfg, line(cfg))
		var want []kit.Result
		for _, e := range events {
			want = append(want, ordered.Process(e)...)
		}
		wantN := ordered.RememberedIDs()
		want = kit.SortResults(append(want, ordered.Flush()...))
		for what, delivered := range windowtest.Shuffles(rnd, events, 6, cfg.WatermarkDelay, 0.3) {
			r := newRun(t, cfg, line(cfg))
			r.ProcessAll(delivered...)
			n := r.p.RememberedIDs()
			r.Flush()
			got := kit.SortResults(slices.Clone(r.Emitted()))
			if d := windowtest.DiffResults(got, want); d != "" || n != wantN {
				msg := fmt.Sprintf("%s of the same events (TTL %d, on the line), %+v: RememberedIDs() before Flush = %d, ordered %d;\n%s\n"+
					"An ID is forgotten at its event's TS + TTL, which every delivery of it carries: arrival order must\n"+
					"not change what is remembered, nor the results. An expiry taken from the watermark at arrival does.",
					what, line(cfg), cfg, n, wantN, d)
				t.Fatalf("%s%s", msg, r.Picture(msg, nil, nil))
			}
		}
	}
}

// opsList renders a call sequence one call a line, for a failure message.
func opsList(ops []windowtest.Op) string {
	var b []byte
	for i, o := range ops {
		b = fmt.Appendf(b, "  %2d. %v\n", i+1, o)
	}
	return string(b)
}
