//go:build flink

package parity

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestBroadcastMatchesFlink checks stage 11 against Flink's broadcast state
// pattern: the events through Flink's WindowOperator (stages 01, 03), the
// rules through a ProcessFunction that judges their lateness, both into
// Flink's two-input CoBroadcastWithKeyedOperator running a
// KeyedBroadcastProcessFunction, as parallelism subtasks of its own, a
// result routed by keyBy's key groups and every rule and watermark sent to
// every subtask. Every call is compared: its alerts, the events' and the
// rules' side outputs, the combined watermark, and RulesOn(i) against
// subtask i's broadcast state, for every i.
//
// What Flink decides, and what the comparison is worth something for: the
// window results a rule is checked against, late firings included, and
// the late events; the combined watermark of the two inputs, the min of
// theirs, passed on only when it rises; that an event-time timer fires
// when that combined watermark reaches it, and not before (a result kept
// in keyed state with a timer at its window's end is decided when the
// course decides it, whichever input moved last); that what
// processBroadcastElement writes to the broadcast state is what
// processElement and onTimer then read, for every key, on every subtask;
// and that each input's elements and watermarks reach the operator in the
// order they were sent, which is the scenario's interleaving.
//
// What the runner's functions decide, written to the card's rules, so
// that the comparison only confirms they were written alike: that a rule
// at or below the rules stream's own watermark is late (judged before the
// broadcast, against that input's watermark, not the combined one), one
// rule per (prefix, TS) with the lower threshold, the rule in force (the
// latest stamped before the window's end) and prefix matching, the
// threshold test, and deciding at once a result whose end the combined
// watermark has passed already (a late firing).
//
// The scenarios interleave a stream of events (as the window tests draw
// them: disorder, late events, redeliveries, upstream watermarks, Flush)
// with a stream of rules: prefixes that match some keys, all of them or
// none, timestamps on window boundaries (start, end − 1, end) and
// anywhere, math.MinInt64, thresholds around the sums and at both ends of
// the int64 range, and rules' watermarks, rising and not, some past every
// window, some math.MaxInt64, some never coming before Flush.
func TestBroadcastMatchesFlink(t *testing.T) {
	check(t, "stage 11, broadcast state", func(r *seeded) differential[broadcastOp] { return broadcastCaseOf(r) })
}

// broadcastOp is one call on a BroadcastProcessor.
type broadcastOp struct {
	kind  string // "event", "eventWM", "rule", "ruleWM" or "flush"
	event kit.Event
	rule  solutions.Rule
	wm    int64
}

func (o broadcastOp) String() string {
	switch o.kind {
	case "event":
		return fmt.Sprintf("ProcessEvent(%v)", o.event)
	case "eventWM":
		return "AdvanceEventWatermark(" + kit.FormatWatermark(o.wm) + ")"
	case "rule":
		return "ProcessRule(" + fmtRule(o.rule) + ")"
	case "ruleWM":
		return "AdvanceRuleWatermark(" + kit.FormatWatermark(o.wm) + ")"
	}
	return "Flush()"
}

// apply makes the call on b and returns its alerts.
func (o broadcastOp) apply(b *solutions.BroadcastProcessor) []solutions.Alert {
	switch o.kind {
	case "event":
		return b.ProcessEvent(o.event)
	case "eventWM":
		return b.AdvanceEventWatermark(o.wm)
	case "rule":
		b.ProcessRule(o.rule)
		return nil
	case "ruleWM":
		return b.AdvanceRuleWatermark(o.wm)
	case "flush":
		return b.Flush()
	}
	panic("parity: unknown broadcast op " + o.kind)
}

// A broadcastCase is one random scenario of stage 11.
type broadcastCase struct {
	cfg solutions.ParallelConfig
	ops []broadcastOp
}

// A broadcastStep is what one side did on one call, in the course's terms:
// the call's alerts, what it added to Late() and LateRules(), the combined
// watermark after it (the course's, or Flink's as Flink has it), and
// RulesOn(i) for every subtask i.
type broadcastStep struct {
	alerts    []solutions.Alert
	late      []kit.Event
	lateRules []solutions.Rule
	wm        int64
	rules     [][]solutions.Rule
}

func (c broadcastCase) describe() string     { return fmt.Sprintf("ParallelConfig%+v", c.cfg) }
func (c broadcastCase) calls() []broadcastOp { return c.ops }

func (c broadcastCase) with(ops []broadcastOp) differential[broadcastOp] {
	c.ops = ops
	return c
}

func (c broadcastCase) compare(t *testing.T) (int, func() string, error) {
	fl, err := c.runFlink()
	if err != nil {
		return 0, nil, err
	}
	course := c.replay()
	return broadcastDiffers(course, fl), func() string { return broadcastSideBySide(c.ops, course, fl) }, nil
}

// replay makes the calls on a new reference BroadcastProcessor.
func (c broadcastCase) replay() []broadcastStep {
	b := must(solutions.NewBroadcastProcessor(c.cfg))
	steps := make([]broadcastStep, len(c.ops))
	lateSeen, lateRulesSeen := 0, 0
	for i, o := range c.ops {
		s := &steps[i]
		s.alerts = o.apply(b)
		late, lateRules := b.Late(), b.LateRules()
		s.late, lateSeen = late[lateSeen:], len(late)
		s.lateRules, lateRulesSeen = lateRules[lateRulesSeen:], len(lateRules)
		s.wm = b.Watermark()
		s.rules = make([][]solutions.Rule, c.cfg.Parallelism)
		for j := range s.rules {
			s.rules[j] = b.RulesOn(j)
		}
	}
	return steps
}

// runFlink runs the calls through Flink, mapped as flinkOps maps a window
// scenario's (an event's first delivery only; a watermark w as w − 1;
// Flush as the end of both inputs), and returns Flink's steps aligned with
// the calls and said in the course's terms: alerts in the course's order
// (broadcastAlerts), each subtask's broadcast state as RulesOn orders it.
// A redelivery's step is empty, at the step before's watermark and rules.
func (c broadcastCase) runFlink() ([]broadcastStep, error) {
	d := deliveries{}
	var fops []flinkrun.BroadcastOp
	at := make([]int, len(c.ops))
	for i, o := range c.ops {
		at[i] = len(fops)
		switch o.kind {
		case "event":
			if d.redelivery(o.event.ID) {
				at[i] = -1
				continue
			}
			fops = append(fops, flinkrun.BroadcastEventOp(flinkrun.Event(o.event)))
		case "eventWM":
			fops = append(fops, flinkrun.BroadcastWatermarkOp(flinkWM(o.wm)))
		case "rule":
			fops = append(fops, flinkrun.RuleOp(flinkrun.Rule(o.rule)))
		case "ruleWM":
			fops = append(fops, flinkrun.RuleWatermarkOp(flinkWM(o.wm)))
		case "flush":
			fops = append(fops, flinkrun.BroadcastEndOp())
		}
	}
	w := c.cfg.Processor
	spec := flinkrun.BroadcastSpec{
		Window:         flinkrun.WindowSpec{Assigner: "tumbling", Size: w.WindowSize, EventWatermarks: true, Delay: w.WatermarkDelay, Lateness: w.AllowedLateness},
		Parallelism:    c.cfg.Parallelism,
		MaxParallelism: c.cfg.MaxParallelism,
	}
	steps, err := flink.RunBroadcast(spec, fops)
	if err != nil {
		return nil, err
	}
	out := make([]broadcastStep, len(c.ops))
	prev := broadcastStep{wm: math.MinInt64, rules: make([][]solutions.Rule, c.cfg.Parallelism)}
	for i, j := range at {
		if j < 0 {
			out[i] = broadcastStep{wm: prev.wm, rules: prev.rules}
			continue
		}
		s := steps[j]
		out[i] = broadcastStep{alerts: broadcastAlerts(s.Alerts), wm: s.Watermark}
		for _, e := range s.Late {
			out[i].late = append(out[i].late, kit.Event(e))
		}
		for _, r := range s.LateRules {
			out[i].lateRules = append(out[i].lateRules, solutions.Rule(r))
		}
		for _, held := range s.Rules {
			rules := make([]solutions.Rule, len(held))
			for k, r := range held {
				rules[k] = solutions.Rule(r)
			}
			slices.SortFunc(rules, func(x, y solutions.Rule) int {
				return cmp.Or(strings.Compare(x.Prefix, y.Prefix), cmp.Compare(x.TS, y.TS))
			})
			out[i].rules = append(out[i].rules, rules)
		}
		prev = out[i]
	}
	return out, nil
}

// broadcastAlerts returns the alerts of Flink's records of one step in the
// course's order. The function emits one record per result it decides,
// with that result's rules in no particular order; the course orders one
// result's alerts by prefix. Flink fires the timers that fall due together
// in its timer queue's order, and the subtasks' records come subtask by
// subtask; the course orders one call's results by (End, Start, Key): the
// records are stable-sorted into that order, as inCourseOrder sorts window
// results, so one key's results keep Flink's order (one key is on one
// subtask).
func broadcastAlerts(recs []flinkrun.Alerts) []solutions.Alert {
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(x, y flinkrun.Alerts) int {
		return kit.CompareResults(courseResult(x.Result), courseResult(y.Result))
	})
	var out []solutions.Alert
	for _, rec := range recs {
		rules := make([]solutions.Rule, len(rec.Rules))
		for i, r := range rec.Rules {
			rules[i] = solutions.Rule(r)
		}
		slices.SortFunc(rules, func(x, y solutions.Rule) int { return strings.Compare(x.Prefix, y.Prefix) })
		for _, r := range rules {
			out = append(out, solutions.Alert{Result: courseResult(rec.Result), Rule: r})
		}
	}
	return out
}

// broadcastDiffers returns the first call at which the course and Flink
// differ, or −1.
func broadcastDiffers(course, fl []broadcastStep) int {
	for i := range course {
		c, f := course[i], fl[i]
		if !slices.Equal(c.alerts, f.alerts) || !slices.Equal(c.late, f.late) ||
			!slices.Equal(c.lateRules, f.lateRules) || flinkWM(c.wm) != f.wm ||
			!slices.EqualFunc(c.rules, f.rules, slices.Equal[[]solutions.Rule]) {
			return i
		}
	}
	return -1
}

// broadcastSideBySide renders both sides call by call: the alerts, the
// side outputs, the watermark, and the subtasks' rules where they differ
// or a rule arrived.
func broadcastSideBySide(ops []broadcastOp, course, fl []broadcastStep) string {
	var b strings.Builder
	for i, o := range ops {
		mark := " "
		if broadcastDiffers(course[i:i+1], fl[i:i+1]) >= 0 {
			mark = "≠"
		}
		fmt.Fprintf(&b, "%s %2d  %v\n", mark, i+1, o)
		showRules := o.kind == "rule" || !slices.EqualFunc(course[i].rules, fl[i].rules, slices.Equal[[]solutions.Rule])
		for _, side := range []struct {
			name string
			s    broadcastStep
			wm   string
		}{{"course", course[i], kit.FormatWatermark(course[i].wm)}, {"Flink ", fl[i], fmtFlinkWM(fl[i].wm)}} {
			fmt.Fprintf(&b, "       %s  %-60s watermark %s%s%s\n", side.name, fmtAlerts(side.s.alerts), side.wm,
				fmtLate(side.s.late), fmtRules("   late rules ", side.s.lateRules))
			if showRules {
				fmt.Fprintf(&b, "               %s\n", fmtSubtaskRules(side.s.rules))
			}
		}
	}
	return b.String()
}

func fmtRule(r solutions.Rule) string {
	return fmt.Sprintf("prefix %s threshold %s ts %s", kit.ShowString(r.Prefix), windowtest.NearEdge(r.Threshold), windowtest.NearEdge(r.TS))
}

func fmtAlerts(as []solutions.Alert) string {
	if len(as) == 0 {
		return "—"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.Result.String() + " ≥ {" + fmtRule(a.Rule) + "}"
	}
	return strings.Join(parts, "; ")
}

func fmtRules(label string, rs []solutions.Rule) string {
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = "{" + fmtRule(r) + "}"
	}
	return label + strings.Join(parts, ", ")
}

// fmtSubtaskRules renders the subtasks' rules: once if every subtask holds
// the same, else subtask by subtask.
func fmtSubtaskRules(rules [][]solutions.Rule) string {
	same := true
	for _, rs := range rules[1:] {
		same = same && slices.Equal(rs, rules[0])
	}
	if same {
		return fmt.Sprintf("rules on each of %d subtasks: [%s]", len(rules), fmtRules("", rules[0]))
	}
	parts := make([]string, len(rules))
	for i, rs := range rules {
		parts[i] = fmt.Sprintf("subtask %d: [%s]", i, fmtRules("", rs))
	}
	return strings.Join(parts, "; ")
}

// prefixPool is where rules draw their prefixes: prefixes of keyPool's keys
// (and of the 70 000-byte key), "", and prefixes no key has.
var prefixPool = []string{"", "a", "a ", "k", "k1", "kk", "\x00", "кл", "ключ", "🦀", "z", "k1x"}

func broadcastCaseOf(r *seeded) broadcastCase {
	size := r.size()
	delay := r.Int64N(3*size + 1)
	var allowed int64
	if r.IntN(2) == 0 {
		allowed = r.Int64N(3*size + 1)
	}
	p := 1 + r.IntN(4)
	maxP := p + r.IntN(16)
	if r.IntN(4) == 0 {
		maxP = 128
	}
	cfg := solutions.ParallelConfig{
		Processor:      solutions.Config{WindowSize: size, WatermarkDelay: delay, AllowedLateness: allowed},
		Parallelism:    p,
		MaxParallelism: maxP,
	}
	events := r.calls(size, delay, allowed)
	eventOps := make([]broadcastOp, len(events))
	for i, o := range events {
		eventOps[i] = map[string]broadcastOp{
			"process": {kind: "event", event: o.Event},
			"advance": {kind: "eventWM", wm: o.WM},
			"flush":   {kind: "flush"},
		}[o.Kind]
	}
	return broadcastCase{cfg: cfg, ops: r.interleave(eventOps, r.ruleStream(windowtest.EventsOf(events), size))}
}

// ruleStream returns up to 15 rules, and rules' watermarks among them, for
// events in windows of size.
func (r *seeded) ruleStream(events []kit.Event, size int64) []broadcastOp {
	lo, hi := events[0].TS, events[0].TS
	for _, e := range events {
		lo, hi = min(lo, e.TS), max(hi, e.TS)
	}
	// ts returns a timestamp for a rule or a rules' watermark: on a window
	// boundary near an event, anywhere around the events, or now and then
	// math.MinInt64. Never math.MaxInt64: a rule stamped so after the end
	// of the rules stream is on time in the course and would be an element
	// after the end of its input in Flink, which has none.
	ts := func() int64 {
		switch r.IntN(10) {
		case 0:
			return math.MinInt64
		case 1, 2, 3, 4:
			start, end := solutions.AssignWindow(events[r.IntN(len(events))].TS, size)
			return []int64{start - 1, start, end - 1, end}[r.IntN(4)]
		}
		return lo - size + r.Int64N(hi-lo+2*size+1)
	}
	threshold := func() int64 {
		switch r.IntN(12) {
		case 0:
			return math.MinInt64
		case 1:
			return math.MaxInt64
		case 2:
			return 0
		}
		return r.Int64N(30) - 5
	}
	// prefix returns a rule's prefix: from prefixPool, or a prefix of an
	// event's key (the key itself, now and then).
	prefix := func() string {
		if r.IntN(2) == 0 {
			return prefixPool[r.IntN(len(prefixPool))]
		}
		key := []rune(events[r.IntN(len(events))].Key)
		return string(key[:r.IntN(len(key)+1)])
	}
	var rules, wms []broadcastOp
	for range r.IntN(16) {
		rules = append(rules, broadcastOp{kind: "rule", rule: solutions.Rule{Prefix: prefix(), Threshold: threshold(), TS: ts()}})
	}
	for range r.IntN(7) {
		wms = append(wms, broadcastOp{kind: "ruleWM", wm: ts()})
	}
	// Mostly rising, as a stream's watermarks are; now and then one that
	// goes back, which changes nothing.
	slices.SortFunc(wms, func(x, y broadcastOp) int { return cmp.Compare(x.wm, y.wm) })
	if len(wms) > 1 && r.IntN(4) == 0 {
		i, j := r.IntN(len(wms)), r.IntN(len(wms))
		wms[i], wms[j] = wms[j], wms[i]
	}
	switch r.IntN(4) {
	case 0:
		wms = append(wms, broadcastOp{kind: "ruleWM", wm: hi + 2*size}) // past every window
	case 1:
		wms = append(wms, broadcastOp{kind: "ruleWM", wm: math.MaxInt64}) // the end of the rules
	}
	return r.interleave(rules, wms)
}

// interleave merges a and b in a random order that keeps each one's own.
func (r *seeded) interleave(a, b []broadcastOp) []broadcastOp {
	out := make([]broadcastOp, 0, len(a)+len(b))
	for len(a)+len(b) > 0 {
		if r.IntN(len(a)+len(b)) < len(a) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}
