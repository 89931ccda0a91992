package demo

import (
	"fmt"
	"strings"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// demo11 shows the race between the events and the rules: a window fires
// before the rule in force at its end has arrived, waits for the rules'
// watermark, and alerts with the late-arriving rule; a rule behind the
// rules' watermark goes to the side output; the state survives a rescale.
func demo11(n *narrator) error {
	s := stream(11)
	e, rule := s.Events, func(i int) solutions.Rule { return solutions.Rule(s.Rules[i]) }
	cfg := solutions.ParallelConfig{Processor: solutions.Config{WindowSize: s.WindowSize}, Parallelism: s.Parallelism, MaxParallelism: s.MaxParallelism}
	b, err := solutions.NewBroadcastProcessor(cfg)
	if err != nil {
		return err
	}
	n.say("Windows of 10 ms on 2 subtasks, and a rules stream broadcast to both: a rule says")
	n.say("\"from TS on, alert when a key starting with Prefix sums to Threshold or more in a window\".")
	r := &ruleTape{n: n, b: b}

	n.step("the events' watermark fires [0,10), but the rules' watermark is behind")
	r.event(e[0], "")
	r.event(e[1], "")
	r.event(e[2], "the events' watermark is 13: [0,10) fires on the events' side, and waits")
	n.say("The combined watermark is min(13, none) = none: a rule stamped before 10 may still be on its way.")

	n.step("the rules arrive, slower than the events")
	r.rule(rule(0), "stamped 8, before [0,10)'s end: in force for it")
	r.rule(rule(1), "stamped 10: in force from [10,20) on, not for [0,10)")
	for i := range s.Parallelism {
		n.say("subtask %d holds %s", i, rulesList(b.RulesOn(i)))
	}

	n.step("the rules' watermark passes 10: [0,10) is decided")
	r.ruleWM(10, "eu-1 sums to 7 ≥ 5 under the rule stamped 8; us-1 had no rule in force at 10")
	r.picture()

	n.step("a rule behind the rules' watermark is late")
	r.rule(rule(2), "")
	n.say("LateRules: %s; it changes no alert, neither [0,10)'s nor any still to come.", rulesList(b.LateRules()))

	n.step("snapshot, restore on 3 subtasks, carry on")
	snap, err := b.Snapshot()
	if err != nil {
		return err
	}
	if r.b, err = solutions.RestoreBroadcastProcessor(snap, s.RestoreParallelism, cfg.MaxParallelism); err != nil {
		return err
	}
	for i := range s.RestoreParallelism {
		n.say("subtask %d holds %s", i, rulesList(r.b.RulesOn(i)))
	}
	n.say("Every subtask, the new one too, has its own copy of the broadcast state.")
	r.event(e[3], "")
	n.say("At the end, eu-1 sums to 1 in [10,20), below 5: no alert; us-1 sums to 2, and the rule stamped 10 is in force.")
	r.flush()
	r.picture()
	n.say("\nThe alerts do not depend on which input was faster: each waited for min(events', rules') ≥ its end.")
	return nil
}

// ruleTape narrates the calls of a broadcast demo.
type ruleTape struct {
	n       *narrator
	b       *solutions.BroadcastProcessor
	events  []kit.Event
	alerted []kit.Result // the results that alerted, once each
}

// picture draws the events and the alerted results against the combined
// watermark.
func (r *ruleTape) picture() {
	r.n.picture(kit.Timeline{WindowSize: 10, Events: r.events, Watermark: r.b.Watermark(), Results: r.alerted, Late: r.b.Late()})
}

func (r *ruleTape) event(e kit.Event, note string) {
	r.events = append(r.events, e)
	r.report(fmt.Sprintf("event %v arrives", e), r.b.ProcessEvent(e), note)
}

func (r *ruleTape) rule(x solutions.Rule, note string) {
	r.b.ProcessRule(x)
	r.report("rule "+ruleString(x)+" arrives", nil, note)
}

func (r *ruleTape) ruleWM(wm int64, note string) {
	r.report(fmt.Sprintf("the rules' watermark advances to %d", wm), r.b.AdvanceRuleWatermark(wm), note)
}

func (r *ruleTape) flush() {
	r.report("end of both inputs (Flush)", r.b.Flush(), "")
}

// report writes one call: what it was, the alerts it returned, the combined
// watermark after it, and a note.
func (r *ruleTape) report(what string, alerts []solutions.Alert, note string) {
	out := "no alert"
	for i, a := range alerts {
		if i == 0 || alerts[i-1].Result != a.Result {
			r.alerted = append(r.alerted, a.Result)
		}
	}
	if len(alerts) > 0 {
		var parts []string
		for _, a := range alerts {
			parts = append(parts, fmt.Sprintf("ALERT %v ≥ %s", a.Result, ruleString(a.Rule)))
		}
		out = strings.Join(parts, "; ")
	}
	r.n.say("→ %s: %s; combined watermark %s", what, out, kit.FormatWatermark(r.b.Watermark()))
	if note != "" {
		r.n.say("  (%s)", note)
	}
}

// ruleString renders x as de flink does too (demostream.Rule.String).
func ruleString(x solutions.Rule) string { return demostream.Rule(x).String() }

func rulesList(xs []solutions.Rule) string {
	if len(xs) == 0 {
		return "no rules"
	}
	var parts []string
	for _, x := range xs {
		parts = append(parts, ruleString(x))
	}
	return strings.Join(parts, ", ")
}
