//go:build lab || solution

package broadcast

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestAlertsIndependentOfInterleaving certifies that the alerts of a run are the same however its two inputs interleave, each call's in order, and equal an oracle of the card's rules, on seeded, shuffled, duplicated events and rules with ties, late rules and late events, at several parallelisms.
//
// Each input keeps its own order (an input is a channel: what it sends
// arrives in order); only how the two streams merge differs from run to
// run, as it does between the tasks of a Flink job.
func TestAlertsIndependentOfInterleaving(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for trial := range 24 {
		p := []int{1, 2, 3, 5}[trial%4]
		lateness := []int64{0, 7}[trial/4%2]
		cfg := cfgOf(p, 4, lateness)
		events := eventStream(rnd, 60, 100, 4)
		rules := ruleStream(rnd, 20, 110)
		want, wantLate := oracle(t, cfg.Processor, events, rules)
		for k := range 4 {
			ops := append(interleave(rnd, events, rules), flush())
			r := newRun(t, cfg)
			r.do(ops...)
			if got := sortedAlerts(r.alerts); !slices.Equal(got, want) {
				missing, extra := alertDiff(got, want)
				t.Fatalf("%s", r.report(fmt.Sprintf("trial %d, interleaving %d (parallelism %d, delay 4, allowed lateness %d): the run's alerts differ\n"+
					"from the card's (sorted, %d got, %d want).\nmissing:\n%sextra:\n%s"+
					"The same two inputs must give the same alerts however they interleave: an alert waits until\n"+
					"both watermarks reach its window's end, a rule is late only by the rules' watermark, and the\n"+
					"rule in force is chosen by timestamp.\n",
					trial, k, p, lateness, len(got), len(want), fmtAlerts(missing), fmtAlerts(extra))))
			}
			if i := r.misordered(); i >= 0 {
				t.Fatalf("%s", r.report(fmt.Sprintf("trial %d, interleaving %d: call %d returned its alerts out of order:\n%s"+
					"One call's alerts are ordered by (End, Start, Key), and one result's alerts by prefix.\n",
					trial, k, i+1, fmtAlerts(r.outs[i]))))
			}
			if got := r.b.Late(); !slices.Equal(got, wantLate) {
				t.Fatalf("%s", r.report(fmt.Sprintf("trial %d, interleaving %d: Late() = %v\nwant %v: the late events, in arrival order, as one stage 1\n"+
					"Processor gives them for the events stream alone: the rules stream changes no event's lateness.\n",
					trial, k, got, wantLate)))
			}
		}
	}
}

// alertDiff returns the alerts of want not in got and those of got not in
// want, as multisets.
func alertDiff(got, want []Alert) (missing, extra []Alert) {
	left := slices.Clone(got)
	for _, w := range want {
		if i := slices.Index(left, w); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		missing = append(missing, w)
	}
	return missing, left
}

// TestReturnedSlicesAreTheCallers certifies that every slice returned (alerts, LateRules, RulesOn) is the caller's: changing it, or a later call, changes nothing else.
func TestReturnedSlicesAreTheCallers(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(2, 0, 0))
	r.do(rule(rl("", 1, 0)), rule(rl("a", 1, 0)), event(ev("e1", "a", 1, 1)), event(ev("e2", "a", 11, 1)), event(ev("e3", "a", 25, 1)))
	first := r.do(ruleWM(10))
	kept := slices.Clone(first)
	second := r.do(ruleWM(20))
	if !slices.Equal(first, kept) {
		t.Errorf("%s", r.report(fmt.Sprintf("the alerts a call returned changed when the next call returned:\nbefore\n%safter\n%s"+
			"A returned slice is the caller's: return a new one each call, never a reused buffer.\n",
			fmtAlerts(kept), fmtAlerts(first))))
	}
	if len(second) == 0 {
		t.Fatalf("%s", r.report("AdvanceRuleWatermark(20) returned no alerts; want the two of a [10,20)\n"))
	}
	for i := range second { // the flush below must not see these edits
		second[i].Rule.Threshold = 1000
		second[i].Result.Sum = -1
	}

	held := r.b.RulesOn(1)
	held[0].Threshold = 99
	_ = append(held[:1], rl("zz", 1, 0))
	if got := r.b.RulesOn(1); !slices.Equal(got, []Rule{rl("", 1, 0), rl("a", 1, 0)}) {
		t.Errorf("RulesOn(1) = %v after the caller changed a slice RulesOn returned; want the rules unchanged:\n"+
			"RulesOn returns a new slice, never the broadcast state itself.", got)
	}

	// With one prefix the rules are one list, which is easy to hand out as
	// it is: the caller's copy must be a copy all the same.
	one := newRun(t, cfgOf(2, 0, 0))
	one.do(rule(rl("a", 1, 0)), rule(rl("a", 5, 1)))
	lone := one.b.RulesOn(0)
	lone[0].Threshold = 99
	if got := one.b.RulesOn(0); !slices.Equal(got, []Rule{rl("a", 1, 0), rl("a", 5, 1)}) {
		t.Errorf("RulesOn(0) = %v after the caller changed a slice RulesOn returned, with rules of one prefix only;\n"+
			"want the rules unchanged: RulesOn returns a new slice even when the rules are one list.", got)
	}

	r.do(ruleWM(100), rule(rl("b", 1, 1)), rule(rl("c", 1, 2)))
	late := r.b.LateRules()
	late[0].Prefix = "changed"
	_ = append(late[:1], rl("zz", 1, 0))
	if got, want := r.b.LateRules(), []Rule{rl("b", 1, 1), rl("c", 1, 2)}; !slices.Equal(got, want) {
		t.Errorf("LateRules() = %v after the caller changed a slice it returned; want %v: it returns a new slice", got, want)
	}
	want := []Alert{{Result: res("a", 20, 30, 1, 1), Rule: rl("", 1, 0)}, {Result: res("a", 20, 30, 1, 1), Rule: rl("a", 1, 0)}}
	r.expect(r.do(flush()), want, "Nothing the caller did to returned slices changes what comes next.")
}
