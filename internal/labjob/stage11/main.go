//go:build lab && labjob

// Command stage11 runs stage 11's demo stream through the learner's lab/
// as flink/…/jobs/Stage11Broadcast runs it through Flink, and prints the
// same JSON lines: the alerts, then the late events, then the late rules.
// The rules come after Events[:RulesAfter], each followed by the rules'
// watermark (largest rule timestamp minus RuleDelay); the lab is then
// restored from a snapshot at RestoreParallelism subtasks, and gets the
// rest of the events. de flink FLK-BYO/11 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(11, run) }

// run delivers the events and rules in the stream's order, restores, and
// flushes both inputs.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	b, err := lab.NewBroadcastProcessor(lab.ParallelConfig{
		Processor:   lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness},
		Parallelism: s.Parallelism, MaxParallelism: s.MaxParallelism,
	})
	if err != nil {
		return jobio.Output{}, err
	}
	var out jobio.Output
	add := func(as []lab.Alert) {
		for _, a := range as {
			out.Alerts = append(out.Alerts, jobio.Alert{Result: a.Result, Rule: jobio.Rule(a.Rule)})
		}
	}
	for _, e := range s.Events[:s.RulesAfter] {
		add(b.ProcessEvent(e))
	}
	wm := labjob.Watermarks{Delay: s.RuleDelay}
	for _, r := range s.Rules {
		b.ProcessRule(lab.Rule(r))
		add(b.AdvanceRuleWatermark(wm.After(r.TS)))
	}
	late, lateRules := b.Late(), b.LateRules() // a restored processor's start empty
	if s.RestoreAfter > 0 {
		snap, err := b.Snapshot()
		if err != nil {
			return jobio.Output{}, err
		}
		if b, err = lab.RestoreBroadcastProcessor(snap, s.RestoreParallelism, s.MaxParallelism); err != nil {
			return jobio.Output{}, err
		}
	}
	for _, e := range s.Events[s.RulesAfter:] {
		add(b.ProcessEvent(e))
	}
	add(b.Flush())
	out.Late = append(late, b.Late()...)
	for _, r := range append(lateRules, b.LateRules()...) {
		out.LateRules = append(out.LateRules, jobio.Rule(r))
	}
	return out, nil
}
