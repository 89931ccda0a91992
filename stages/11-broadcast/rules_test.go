//go:build lab || solution

package broadcast

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestNewBroadcastProcessorRejectsBadConfigs certifies that NewBroadcastProcessor refuses what NewParallelProcessor refuses, and starts with both watermarks, the rules and the side outputs empty.
func TestNewBroadcastProcessorRejectsBadConfigs(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		name string
		cfg  ParallelConfig
	}{
		{"window size 0", ParallelConfig{Processor: Config{}, Parallelism: 1, MaxParallelism: maxP}},
		{"negative delay", ParallelConfig{Processor: Config{WindowSize: 10, WatermarkDelay: -1}, Parallelism: 1, MaxParallelism: maxP}},
		{"parallelism 0", cfgOf(0, 0, 0)},
		{"parallelism above maxParallelism", cfgOf(maxP+1, 0, 0)},
		{"maxParallelism 0", ParallelConfig{Processor: Config{WindowSize: 10}, Parallelism: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			b, err := NewBroadcastProcessor(c.cfg)
			if err == nil || b != nil {
				t.Errorf("NewBroadcastProcessor(%+v) = %v, %v; want nil and an error: the config is invalid", c.cfg, b, err)
			}
		})
	}
	b := newBroadcast(t, cfgOf(3, 0, 0))
	if wm := b.Watermark(); wm != math.MinInt64 {
		t.Errorf("a new processor's Watermark() = %s; want math.MinInt64: neither input has said anything", kit.FormatWatermark(wm))
	}
	for i := range 3 {
		if rs := b.RulesOn(i); len(rs) != 0 {
			t.Errorf("a new processor's RulesOn(%d) = %v; want none", i, rs)
		}
	}
	if rs, es := b.LateRules(), b.Late(); len(rs) != 0 || len(es) != 0 {
		t.Errorf("a new processor's LateRules() = %v, Late() = %v; want both empty", rs, es)
	}
}

// TestAlertWaitsForTheRulesWatermark certifies that a fired window's alert waits until the rules' watermark reaches the window's end, and then uses a rule that arrived after the window fired.
//
// The race this stage is about: the events' watermark fires [0,10) while a
// rule stamped 9 is still on its way on the other input. Deciding at once
// would use the rules as they happened to have arrived.
func TestAlertWaitsForTheRulesWatermark(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(3, 0, 0))
	r.expect(r.do(event(ev("e1", "a", 3, 5)), event(ev("e2", "a", 12, 1))), nil,
		"The events' watermark (12) fired a [0,10), but the rules' watermark is still math.MinInt64: a rule stamped\n"+
			"before 10 may still arrive, so no alert can be decided yet.")
	r.expect(r.do(rule(rl("a", 5, 9))), nil, "A rule is state, never output: only a watermark decides alerts.")
	r.expect(r.do(ruleWM(9)), nil,
		"The rules' watermark is 9: a rule stamped 9 could still arrive, and it would be in force at 10.")
	want := []Alert{{Result: res("a", 0, 10, 1, 5), Rule: rl("a", 5, 9)}}
	r.expect(r.do(ruleWM(10)), want,
		"The rules' watermark reached the window's end (10): every rule stamped before 10 is in, and the\n"+
			"rule stamped 9 (threshold 5) is in force; the sum 5 reaches it.")
	r.expect(r.do(ruleWM(20), eventWM(30)), nil, "Each result alerts once: [0,10) was decided already.")
}

// TestCombinedWatermarkIsTheMin certifies that Watermark is the min of the events' and the rules' watermarks, that neither input's watermark goes back, and that an alert waits for the events' side too.
func TestCombinedWatermarkIsTheMin(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		name string
		ops  []op
		want int64
	}{
		{"nothing yet", nil, math.MinInt64},
		{"events only", []op{event(ev("e1", "a", 50, 1))}, math.MinInt64},
		{"rules only", []op{ruleWM(100)}, math.MinInt64},
		{"rules ahead", []op{event(ev("e1", "a", 50, 1)), ruleWM(100)}, 50},
		{"events ahead", []op{event(ev("e1", "a", 50, 1)), ruleWM(20)}, 20},
		{"events' watermark never goes back", []op{eventWM(40), ruleWM(100), eventWM(30)}, 40},
		{"rules' watermark never goes back", []op{ruleWM(20), ruleWM(10), eventWM(50)}, 20},
		{"flush ends both", []op{ruleWM(20), flush()}, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, cfgOf(2, 0, 0))
			r.do(c.ops...)
			if got := r.b.Watermark(); got != c.want {
				t.Errorf("%s", r.report(fmt.Sprintf("Watermark() = %s; want %s: the combined watermark is the min of the two inputs' watermarks\n"+
					"(math.MinInt64 for an input that has none yet), as for any operator with two inputs.\n",
					kit.FormatWatermark(got), kit.FormatWatermark(c.want))))
			}
		})
	}

	r := newRun(t, cfgOf(2, 0, 0))
	r.expect(r.do(rule(rl("", 1, 0)), ruleWM(100), event(ev("e1", "a", 3, 5)), event(ev("e2", "a", 9, 1))), nil,
		"The rules' watermark (100) is far ahead, but the events' (9) has not reached 10: [0,10) is still open.")
	r.expect(r.do(eventWM(10)), []Alert{{Result: res("a", 0, 10, 2, 6), Rule: rl("", 1, 0)}},
		"Both watermarks have reached 10 now.")
}

// TestRuleInForceAtTheWindowEnd certifies that a result is checked against, for each prefix of its key, the latest rule by timestamp with TS < the window's end, the lower threshold on a tie, and alerts when its Sum reaches the threshold.
func TestRuleInForceAtTheWindowEnd(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		name  string
		key   string
		rules []Rule // in arrival order
		want  []Rule // the rules of the alerts of the key's [0,10) window, sum 5, in order
		why   string
	}{
		{"rule at end−1", "a", []Rule{rl("", 5, 9)}, []Rule{rl("", 5, 9)}, "A rule stamped 9 is in force at the end of [0,10)."},
		{"rule at the end", "a", []Rule{rl("", 5, 10)}, nil, "A rule stamped 10 is in force from 10 on: for [10,20), not [0,10) (TS < end)."},
		{"rule at the start", "a", []Rule{rl("", 5, 0)}, []Rule{rl("", 5, 0)}, "A rule stamped 0 is before the end 10."},
		{"rule long before", "a", []Rule{rl("", 5, -1000)}, []Rule{rl("", 5, -1000)}, "A rule stays in force until a later one of its prefix."},
		{"latest by timestamp, not arrival", "a", []Rule{rl("", 1, 8), rl("", 100, 3)}, []Rule{rl("", 1, 8)},
			"The rule stamped 8 is the one in force at 10, though the one stamped 3 arrived after it."},
		{"a later rule replaces an earlier one", "a", []Rule{rl("", 1, 3), rl("", 100, 8)}, nil,
			"The rule stamped 8 (threshold 100) replaced the one stamped 3 before 10."},
		{"a rule at the end replaces nothing yet", "a", []Rule{rl("", 1, 3), rl("", 100, 10)}, []Rule{rl("", 1, 3)},
			"The rule stamped 10 is not in force at 10: the one stamped 3 still is."},
		{"tie: lower threshold, first", "a", []Rule{rl("", 5, 5), rl("", 6, 5)}, []Rule{rl("", 5, 5)},
			"Two rules of one prefix with one timestamp: the lower threshold is in force, whichever arrived first."},
		{"tie: lower threshold, second", "a", []Rule{rl("", 6, 5), rl("", 5, 5)}, []Rule{rl("", 5, 5)},
			"Two rules of one prefix with one timestamp: the lower threshold is in force, whichever arrived first."},
		{"a redelivered rule", "a", []Rule{rl("", 5, 5), rl("", 5, 5)}, []Rule{rl("", 5, 5)}, "The same rule twice is one rule: one alert."},
		{"threshold is inclusive", "a", []Rule{rl("a", 5, 0), rl("", 6, 0)}, []Rule{rl("a", 5, 0)},
			"A sum of 5 reaches a threshold of 5, and not one of 6."},
		{"thresholds at the int64 edges", "a", []Rule{rl("", math.MinInt64, math.MinInt64), rl("a", math.MaxInt64, 0)},
			[]Rule{rl("", math.MinInt64, math.MinInt64)}, "Every sum reaches math.MinInt64; 5 does not reach math.MaxInt64."},
		{"every matching prefix, by prefix", "eu-de",
			[]Rule{rl("eu-fr", 1, 0), rl("eu-de", 1, 0), rl("eu", 1, 0), rl("eu-de-x", 1, 0), rl("", 1, 0)},
			[]Rule{rl("", 1, 0), rl("eu", 1, 0), rl("eu-de", 1, 0)},
			`"eu-de" starts with "", "eu" and "eu-de": one alert per matching prefix, ordered by prefix; "eu-fr" and "eu-de-x" do not match.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, cfgOf(3, 0, 0))
			for _, x := range c.rules {
				r.do(rule(x))
			}
			r.do(event(ev("e1", c.key, 5, 5)), ruleWM(10))
			var want []Alert
			for _, x := range c.want {
				want = append(want, Alert{Result: res(c.key, 0, 10, 1, 5), Rule: x})
			}
			r.expect(r.do(eventWM(10)), want, c.why)
		})
	}
}

// TestLateRuleGoesToLateRules certifies that a rule with TS below the rules' watermark goes to LateRules, in arrival order, and changes no alert, neither one emitted nor one still to decide; a rule at the watermark is on time.
func TestLateRuleGoesToLateRules(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(3, 0, 0))
	r.do(rule(rl("", 3, 0)), event(ev("e1", "a", 4, 5)), eventWM(10))
	r.expect(r.do(ruleWM(10)), []Alert{{Result: res("a", 0, 10, 1, 5), Rule: rl("", 3, 0)}}, "[0,10) reaches the rule stamped 0.")

	// The events' side is behind now: [10,20) is open, its alert far off.
	r.do(event(ev("e2", "a", 15, 5)), ruleWM(50))
	late := []Rule{rl("", 100, 5), rl("", 100, 12), rl("a", 1, 49)}
	for _, x := range late {
		r.do(rule(x))
	}
	onTime := rl("b", 1, 50)
	r.do(rule(onTime))
	if got := r.b.LateRules(); !slices.Equal(got, late) {
		t.Errorf("%s", r.report(fmt.Sprintf("LateRules() = %v; want %v, in arrival order: each is stamped below the rules' watermark (50), and %v,\n"+
			"stamped at it, is on time (a rule is late when TS < the rules' watermark).\n", got, late, onTime)))
	}
	want := []Rule{rl("", 3, 0), onTime}
	for i := range 3 {
		if got := r.b.RulesOn(i); !slices.Equal(got, want) {
			t.Errorf("%s", r.report(fmt.Sprintf("RulesOn(%d) = %v; want %v: a late rule is never added to the broadcast state.\n", i, got, want)))
		}
	}
	r.expect(r.do(eventWM(20)), []Alert{{Result: res("a", 10, 20, 1, 5), Rule: rl("", 3, 0)}},
		"[10,20) was not decided when the rule stamped 12 (threshold 100) arrived, but that rule was late all the same:\n"+
			"lateness is judged against the rules' watermark, never against what happens to be decided, or the\n"+
			"alert would depend on how the two inputs interleaved.")
	r.expect(r.do(flush()), nil, "A late rule re-emits nothing: [0,10) alerted once, under the rules in force then.")
}

// TestEverySubtaskHoldsTheSameRules certifies that every rule reaches every subtask's broadcast state, so that RulesOn is the same on each, whatever order the on-time rules came in, and keys on every subtask alert; RulesOn panics outside [0, Parallelism).
func TestEverySubtaskHoldsTheSameRules(t *testing.T) {
	defer suite.Recover(t)
	const p = 4
	rnd := suite.Rand(t)
	rules := ruleStream(rnd, 40, 200)
	r := newRun(t, cfgOf(p, 0, 0))
	r.do(rules...)
	want, late := acceptedRules(rules)
	for i := range p {
		if got := r.b.RulesOn(i); !slices.Equal(got, want) {
			t.Errorf("%s", r.report(fmt.Sprintf("RulesOn(%d) = %v\nwant %v\n(ordered by (Prefix, TS), one per (Prefix, TS), the lowest threshold): every rule is broadcast\n"+
				"to every subtask, so every copy of the broadcast state is the same.\n", i, got, want)))
		}
	}
	if got := r.b.LateRules(); !slices.Equal(got, late) {
		t.Errorf("%s", r.report(fmt.Sprintf("LateRules() = %v; want %v\n", got, late)))
	}

	// Flink's tasks may receive the broadcast elements in different orders:
	// the on-time rules, in any order, must give every task the same state.
	onTime, _ := splitRules(rules)
	var shuffled []op
	for _, x := range onTime {
		shuffled = append(shuffled, rule(x))
	}
	rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	other := newRun(t, cfgOf(p, 0, 0))
	other.do(shuffled...)
	if got := other.b.RulesOn(p - 1); !slices.Equal(got, want) {
		t.Errorf("%s", other.report(fmt.Sprintf("the same on-time rules in another order give RulesOn(%d) = %v\nwant %v:\n"+
			"broadcast elements may reach each task in a different order (Flink's docs warn of it), so the\n"+
			"broadcast state must not depend on the order: ties go to the lower threshold, never to the last.\n",
			p-1, got, want)))
	}

	one := newRun(t, cfgOf(p, 0, 0))
	one.do(rule(rl("k", 5, 0)), ruleWM(10))
	var wantAlerts []Alert
	for i := range p {
		k := keyOn(t, "k", i, p)
		one.do(event(ev(fmt.Sprint("e", i), k, 5, 5)))
		wantAlerts = append(wantAlerts, Alert{Result: res(k, 0, 10, 1, 5), Rule: rl("k", 5, 0)})
	}
	one.expect(one.do(eventWM(10)), sortedAlerts(wantAlerts), fmt.Sprintf("One key on each of %d subtasks, each window's sum "+
		"reaching the rule. A key's alert is decided on its own subtask,\nwith that subtask's copy of the rules: a rule that "+
		"reached only some subtasks misses the keys of the others.", p))
	for _, s := range []int{-1, p} {
		suite.MustPanic(t, fmt.Sprintf("RulesOn(%d) with parallelism %d", s, p), "there is no such subtask", func() { one.b.RulesOn(s) })
	}
}

// TestAlertsOfOneCallAreOrdered certifies that the alerts of one call are ordered by (End, Start, Key), a window's results in the order they were emitted (a first result before its corrections), and one result's alerts by prefix.
func TestAlertsOfOneCallAreOrdered(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(3, 0, 15))
	r.do(rule(rl("", 1, 0)), rule(rl("a", 1, 0)),
		event(ev("e1", "b", 1, 1)), event(ev("e2", "ab", 2, 1)), event(ev("e3", "a", 3, 1)), event(ev("e4", "a", 14, 1)),
		event(ev("e5", "b", 15, 1)), eventWM(20), event(ev("e6", "a", 4, 1)))
	want := []Alert{
		{Result: res("a", 0, 10, 1, 1), Rule: rl("", 1, 0)},
		{Result: res("a", 0, 10, 1, 1), Rule: rl("a", 1, 0)},
		{Result: kit.Result{Key: "a", Start: 0, End: 10, Count: 2, Sum: 2, IsUpdate: true}, Rule: rl("", 1, 0)},
		{Result: kit.Result{Key: "a", Start: 0, End: 10, Count: 2, Sum: 2, IsUpdate: true}, Rule: rl("a", 1, 0)},
		{Result: res("ab", 0, 10, 1, 1), Rule: rl("", 1, 0)},
		{Result: res("ab", 0, 10, 1, 1), Rule: rl("a", 1, 0)},
		{Result: res("b", 0, 10, 1, 1), Rule: rl("", 1, 0)},
		{Result: res("a", 10, 20, 1, 1), Rule: rl("", 1, 0)},
		{Result: res("a", 10, 20, 1, 1), Rule: rl("a", 1, 0)},
		{Result: res("b", 10, 20, 1, 1), Rule: rl("", 1, 0)},
	}
	r.expect(r.do(ruleWM(20)), want,
		"One call's alerts come ordered by (End, Start, Key); a (key, window)'s first result before its correction\n"+
			"(the order they were emitted in); and one result's alerts by the rules' prefixes.")

	// Many held results at once: a first result and its correction have
	// equal (End, Start, Key), and only a stable order keeps them apart (a
	// small test never shows an unstable sort: below a dozen elements Go's
	// sorts are stable by chance).
	many := newRun(t, cfgOf(3, 0, 15))
	many.do(rule(rl("", 1, 0)))
	const keys = 40
	for k := range keys {
		many.do(event(ev(fmt.Sprintf("first-%02d", k), fmt.Sprintf("k%02d", k), 1, 1)))
	}
	many.do(eventWM(20))
	for k := range keys {
		many.do(event(ev(fmt.Sprintf("late-%02d", k), fmt.Sprintf("k%02d", k), 2, 1)))
	}
	got := many.do(ruleWM(20))
	if len(got) != 2*keys {
		msg := fmt.Sprintf("AdvanceRuleWatermark(20) released %d alerts, want %d: each of %d keys' first result and its correction", len(got), 2*keys, keys)
		t.Fatalf("%s%s", msg, many.picture(msg, nil))
	}
	for i := 0; i+1 < len(got); i += 2 {
		first, corr := got[i].Result, got[i+1].Result
		if first.Key != corr.Key || first.IsUpdate || !corr.IsUpdate {
			msg := fmt.Sprintf("alerts %d and %d of %d released at once are %v and %v; want key %s's first result, then its correction:\n"+
				"sort the held results stably (slices.SortStableFunc), so that equal (End, Start, Key) keep the order they were\n"+
				"emitted in. An unstable sort keeps it only while there are few of them.", i, i+1, len(got), first, corr, first.Key)
			t.Fatalf("%s%s", msg, many.picture(msg, nil))
		}
	}
}

// TestFlushDecidesEverything certifies that Flush ends both inputs: every window fires, every pending alert is decided, the watermark is math.MaxInt64, and a rule stamped below it is late.
func TestFlushDecidesEverything(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(2, 0, 0))
	first := rl("", 2, math.MinInt64)
	r.do(rule(first), event(ev("e1", "a", 3, 2)), event(ev("e2", "b", 25, 5)), eventWM(10))
	want := []Alert{{Result: res("a", 0, 10, 1, 2), Rule: first}, {Result: res("b", 20, 30, 1, 5), Rule: first}}
	r.expect(r.do(flush()), want,
		"Flush is the end of both inputs: [0,10) was waiting for the rules' watermark, [20,30) for the events',\n"+
			"and no rule can come any more. The rule stamped math.MinInt64 is in force at every end.")
	if wm := r.b.Watermark(); wm != math.MaxInt64 {
		t.Errorf("%s", r.report(fmt.Sprintf("Watermark() after Flush = %s; want math.MaxInt64\n", kit.FormatWatermark(wm))))
	}
	late, onTime := rl("", 1, math.MaxInt64-1), rl("", 1, math.MaxInt64)
	r.do(rule(late), rule(onTime))
	if got := r.b.LateRules(); !slices.Equal(got, []Rule{late}) {
		t.Errorf("%s", r.report(fmt.Sprintf("LateRules() = %v; want [%v]: after Flush the rules' watermark is math.MaxInt64, so only a rule stamped\n"+
			"math.MaxInt64 is on time.\n", got, late)))
	}
	if got := r.b.RulesOn(1); !slices.Equal(got, []Rule{first, onTime}) {
		t.Errorf("%s", r.report(fmt.Sprintf("RulesOn(1) = %v; want %v\n", got, []Rule{first, onTime})))
	}
}
