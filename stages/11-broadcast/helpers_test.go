//go:build lab || solution

package broadcast

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// ev and res are internal/windowtest's constructors.
var ev, res = windowtest.Ev, windowtest.Res

// maxP is the maxParallelism of every processor of this suite.
const maxP = 16

// cfgOf returns the config of this suite's processors: windows of 10, no
// allowed lateness unless given, at parallelism p.
func cfgOf(p int, delay, lateness int64) ParallelConfig {
	return ParallelConfig{
		Processor:      Config{WindowSize: 10, WatermarkDelay: delay, AllowedLateness: lateness},
		Parallelism:    p,
		MaxParallelism: maxP,
	}
}

// newBroadcast returns a new BroadcastProcessor for cfg; it stops the test
// if NewBroadcastProcessor rejects this valid config.
func newBroadcast(t testing.TB, cfg ParallelConfig) *BroadcastProcessor {
	t.Helper()
	b, err := NewBroadcastProcessor(cfg)
	if err != nil || b == nil {
		t.Fatalf("NewBroadcastProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, b, err)
	}
	return b
}

// opKind is what one call to a BroadcastProcessor does.
type opKind int

const (
	opEvent   opKind = iota // ProcessEvent
	opEventWM               // AdvanceEventWatermark
	opRule                  // ProcessRule
	opRuleWM                // AdvanceRuleWatermark
	opFlush                 // Flush
)

// op is one call: an event or an events' watermark (the events stream), a
// rule or a rules' watermark (the rules stream), or Flush (the end of both).
type op struct {
	kind opKind
	e    kit.Event
	r    Rule
	wm   int64
}

func event(e kit.Event) op { return op{kind: opEvent, e: e} }
func eventWM(wm int64) op  { return op{kind: opEventWM, wm: wm} }
func rule(r Rule) op       { return op{kind: opRule, r: r} }
func ruleWM(wm int64) op   { return op{kind: opRuleWM, wm: wm} }
func flush() op            { return op{kind: opFlush} }
func rl(prefix string, threshold, ts int64) Rule {
	return Rule{Prefix: prefix, Threshold: threshold, TS: ts}
}

func (o op) String() string {
	switch o.kind {
	case opEvent:
		return "ProcessEvent(" + o.e.String() + ")"
	case opEventWM:
		return "AdvanceEventWatermark(" + kit.FormatWatermark(o.wm) + ")"
	case opRule:
		return "ProcessRule(" + fmtRule(o.r) + ")"
	case opRuleWM:
		return "AdvanceRuleWatermark(" + kit.FormatWatermark(o.wm) + ")"
	default:
		return "Flush()"
	}
}

// apply makes the call o on b and returns its alerts.
func (o op) apply(b *BroadcastProcessor) []Alert {
	switch o.kind {
	case opEvent:
		return b.ProcessEvent(o.e)
	case opEventWM:
		return b.AdvanceEventWatermark(o.wm)
	case opRule:
		b.ProcessRule(o.r)
		return nil
	case opRuleWM:
		return b.AdvanceRuleWatermark(o.wm)
	default:
		return b.Flush()
	}
}

func fmtRule(r Rule) string {
	return fmt.Sprintf("prefix %s threshold %s ts %s", kit.ShowString(r.Prefix), windowtest.NearEdge(r.Threshold), windowtest.NearEdge(r.TS))
}

func fmtAlert(a Alert) string {
	return a.Result.String() + " ≥ rule{" + fmtRule(a.Rule) + "}"
}

// fmtAlerts renders alerts one a line, or "(none)".
func fmtAlerts(as []Alert) string {
	if len(as) == 0 {
		return "  (none)\n"
	}
	var b strings.Builder
	for _, a := range as {
		b.WriteString("  " + fmtAlert(a) + "\n")
	}
	return b.String()
}

// run drives a BroadcastProcessor and records every call with what it
// returned and the combined watermark after it: the timeline a failure
// prints.
type run struct {
	t      testing.TB
	cfg    ParallelConfig
	b      *BroadcastProcessor
	log    []string
	alerts []Alert   // every alert, in emission order
	outs   [][]Alert // each call's alerts
	// For the picture (picture.Enabled): every call, with each input's
	// watermark as the card's rules make it from the calls.
	steps           []picture.Step
	maxTS, eventsWM int64 // the largest event timestamp, and the events' watermark
	rulesWM         int64
	lateBefore      []kit.Event // Late() of the processors a restore replaced
}

func newRun(t testing.TB, cfg ParallelConfig) *run {
	return &run{t: t, cfg: cfg, b: newBroadcast(t, cfg), maxTS: math.MinInt64, eventsWM: math.MinInt64, rulesWM: math.MinInt64}
}

// do makes the calls and returns the alerts of the last one.
func (r *run) do(ops ...op) []Alert {
	var got []Alert
	for _, o := range ops {
		got = o.apply(r.b)
		r.alerts = append(r.alerts, got...)
		r.outs = append(r.outs, got)
		line := fmt.Sprintf("%2d. %-62s combined watermark %s", len(r.log)+1, o, kit.FormatWatermark(r.b.Watermark()))
		for _, a := range got {
			line += "\n      → alert " + fmtAlert(a)
		}
		r.log = append(r.log, line)
		r.record(o, got)
	}
	return got
}

// record notes the call o, which returned alerts, for the picture: events
// as events, the rest by name, each alert as its result, and the two
// inputs' watermarks as partitions 0 (events) and 1 (rules).
func (r *run) record(o op, alerts []Alert) {
	if !picture.Enabled() {
		return
	}
	s := picture.Step{Op: picture.OpCall, Partition: -1, Label: o.String(), Watermark: r.b.Watermark()}
	switch o.kind {
	case opEvent:
		s.Op, s.Partition, s.Label, s.Event = picture.OpEvent, 0, "", o.e
		if o.e.TS > r.maxTS {
			r.maxTS = o.e.TS
			r.eventsWM = max(r.eventsWM, watermarkBehind(o.e.TS, r.cfg.Processor.WatermarkDelay))
		}
	case opEventWM:
		s.Op, s.Partition = picture.OpWatermark, 0
		r.eventsWM = max(r.eventsWM, o.wm)
	case opRule:
		s.Partition = 1
	case opRuleWM:
		s.Partition = 1
		r.rulesWM = max(r.rulesWM, o.wm)
	case opFlush:
		s.Op, s.Label = picture.OpFlush, ""
		r.eventsWM, r.rulesWM = math.MaxInt64, math.MaxInt64
	}
	s.Partitions = []picture.PartitionMark{{Watermark: r.eventsWM}, {Watermark: r.rulesWM}}
	for _, a := range alerts {
		s.Emitted = append(s.Emitted, a.Result)
	}
	r.steps = append(r.steps, s)
}

// watermarkBehind is ts − delay, or math.MinInt64 where that wraps.
func watermarkBehind(ts, delay int64) int64 {
	if ts < math.MinInt64+delay {
		return math.MinInt64
	}
	return ts - delay
}

// restore returns a run that goes on from a snapshot of r's processor,
// restored at parallelism p, as a job does after a crash or a rescale: its
// log and picture hold r's calls, then the restore; its alerts are
// only its own.
func (r *run) restore(p int) *run {
	r.t.Helper()
	cfg := r.cfg
	cfg.Parallelism = p
	after := &run{t: r.t, cfg: cfg, b: restoreAt(r.t, snapshotOf(r.t, r.b), p), log: slices.Clone(r.log),
		steps: slices.Clone(r.steps), maxTS: r.maxTS, eventsWM: r.eventsWM, rulesWM: r.rulesWM,
		lateBefore: append(slices.Clone(r.lateBefore), r.b.Late()...)}
	after.log = append(after.log, fmt.Sprintf("    — snapshot, restored at parallelism %d —", p))
	if picture.Enabled() {
		after.steps = append(after.steps, picture.Step{Op: picture.OpRestore, Partition: -1, Watermark: after.b.Watermark(),
			Label:      fmt.Sprintf("snapshot → restore at parallelism %d", p),
			Partitions: []picture.PartitionMark{{Watermark: r.eventsWM}, {Watermark: r.rulesWM}}})
	}
	return after
}

// picture draws, with pictures on, the run so far as a page for the test
// (picture.Save) and returns the line that links it, or "". note is the
// failure's message; want, when not nil, is what the last call should have
// returned, and the page marks where the run first differs from the run
// that did.
func (r *run) picture(note string, want []Alert) string {
	if !picture.Enabled() {
		return ""
	}
	p := picture.Run{Title: r.t.Name(), Windows: picture.Windows{Size: r.cfg.Processor.WindowSize, Lateness: r.cfg.Processor.AllowedLateness},
		Note: strings.TrimSpace(note + "\n\nAn alert is drawn as its result. Partition p0 is the events' watermark, p1 the rules', as the " +
			"card's rules make them from the calls; the combined one is the processor's."),
		Steps: r.steps, Late: append(slices.Clone(r.lateBefore), r.b.Late()...)}
	if want != nil && len(r.steps) > 0 {
		p.Want = []kit.Result{}
		for _, s := range r.steps[:len(r.steps)-1] {
			p.Want = append(p.Want, s.Emitted...)
		}
		for _, a := range want {
			p.Want = append(p.Want, a.Result)
		}
	}
	return "\n" + picture.Save(r.t, p)
}

// calls renders the calls so far, one a line, with the alerts each
// returned.
func (r *run) calls() string {
	return "calls, in order (both inputs share one timeline):\n" + strings.Join(r.log, "\n") + "\n"
}

// report is the message of a failed check of the run: msg, which ends
// with a newline, then the calls so far, one a line, with the alerts each
// returned, and, with pictures on, the link to the page of the run, which
// shows msg.
func (r *run) report(msg string) string {
	return msg + r.calls() + r.picture(strings.TrimRight(msg, "\n"), nil)
}

// expect fails the test unless got (what the last call returned) is want.
func (r *run) expect(got, want []Alert, why string) {
	r.t.Helper()
	if !slices.Equal(got, want) {
		msg := fmt.Sprintf("the last call returned the alerts\n%swant\n%s%s", fmtAlerts(got), fmtAlerts(want), why)
		r.t.Errorf("%s\n%s%s", msg, r.calls(), r.picture(msg, want))
	}
}

// misordered returns the index of the first call whose alerts are not
// ordered by (End, Start, Key), then prefix within one result, or -1.
func (r *run) misordered() int {
	for i, as := range r.outs {
		for j := 1; j < len(as); j++ {
			x, y := as[j-1], as[j]
			c := kit.CompareResults(x.Result, y.Result)
			if c > 0 || (c == 0 && x.Result == y.Result && x.Rule.Prefix >= y.Rule.Prefix) {
				return i
			}
		}
	}
	return -1
}

// compareAlerts is a total order on alerts, for comparing runs whose calls
// came in different orders.
func compareAlerts(x, y Alert) int {
	return cmp.Or(kit.CompareResults(x.Result, y.Result),
		cmp.Compare(x.Result.Count, y.Result.Count), cmp.Compare(x.Result.Sum, y.Result.Sum),
		boolCompare(x.Result.IsUpdate, y.Result.IsUpdate),
		strings.Compare(x.Rule.Prefix, y.Rule.Prefix), cmp.Compare(x.Rule.TS, y.Rule.TS),
		cmp.Compare(x.Rule.Threshold, y.Rule.Threshold))
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// sortedAlerts returns a sorted copy of as.
func sortedAlerts(as []Alert) []Alert {
	return slices.SortedFunc(slices.Values(as), compareAlerts)
}

// oracle computes, apart from any BroadcastProcessor, the alerts of a whole
// bounded run: the events stream's ops through a stage-01 Processor (which
// stage 06 proved equal to a parallel one), the rules stream's ops through
// the card's rules (a rule is late if its TS is below the rules' watermark
// when it arrives; the rule in force at a window's end is the latest with
// TS < end, the lower threshold on a tie), and every result checked against
// every rule in force for a prefix of its key; and the late events. The run
// must end with Flush.
func oracle(t testing.TB, cfg Config, events, rules []op) ([]Alert, []kit.Event) {
	t.Helper()
	p := windowtest.MustNew(t, NewProcessor, cfg)
	var results []kit.Result
	for _, o := range events {
		switch o.kind {
		case opEvent:
			results = append(results, p.Process(o.e)...)
		case opEventWM:
			results = append(results, p.AdvanceWatermark(o.wm)...)
		}
	}
	results = append(results, p.Flush()...)
	accepted, _ := acceptedRules(rules)
	var out []Alert
	for _, r := range results {
		for _, rule := range inForce(accepted, r.Key, r.End) {
			if r.Sum >= rule.Threshold {
				out = append(out, Alert{Result: r, Rule: rule})
			}
		}
	}
	return sortedAlerts(out), p.Late()
}

// splitRules returns the rules of a rules stream's ops in arrival order,
// split by position into those on time (TS at or above the rules'
// watermark when they arrive) and those late. The split is by position,
// not by value: the same rule may arrive once on time and again late.
func splitRules(ops []op) (onTime, late []Rule) {
	wm := int64(math.MinInt64)
	for _, o := range ops {
		switch o.kind {
		case opRuleWM:
			wm = max(wm, o.wm)
		case opRule:
			if o.r.TS < wm {
				late = append(late, o.r)
			} else {
				onTime = append(onTime, o.r)
			}
		}
	}
	return onTime, late
}

// acceptedRules returns the broadcast state the card defines after the
// rules stream's ops, ordered by (Prefix, TS), one per (Prefix, TS) with
// the lowest threshold; and the late rules in arrival order.
func acceptedRules(ops []op) (accepted, late []Rule) {
	onTime, late := splitRules(ops)
	for _, r := range onTime {
		i := slices.IndexFunc(accepted, func(x Rule) bool { return x.Prefix == r.Prefix && x.TS == r.TS })
		if i >= 0 {
			accepted[i].Threshold = min(accepted[i].Threshold, r.Threshold)
			continue
		}
		accepted = append(accepted, r)
	}
	slices.SortFunc(accepted, func(x, y Rule) int {
		return cmp.Or(strings.Compare(x.Prefix, y.Prefix), cmp.Compare(x.TS, y.TS))
	})
	return accepted, late
}

// inForce returns, by prefix, the rule in force at end for each prefix of
// key among rules (ordered by (Prefix, TS)): the latest with TS < end.
func inForce(rules []Rule, key string, end int64) []Rule {
	var out []Rule
	for _, r := range rules {
		if !strings.HasPrefix(key, r.Prefix) || r.TS >= end {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Prefix == r.Prefix {
			out[n-1] = r // a later one of the same prefix
			continue
		}
		out = append(out, r)
	}
	return out
}

// The keys and prefixes of the seeded runs: prefixes of each other, so that
// one key can match several rules, and one prefix ("c") that matches none.
var (
	testKeys     = []string{"a", "ab", "abc", "b", "ba", "zz"}
	testPrefixes = []string{"", "a", "ab", "b", "c"}
)

// eventStream returns a seeded events stream: n events over [0, span) with
// disorder bounded by the delay, some redelivered, and now and then an
// events' watermark that makes a few events late.
func eventStream(rnd *rand.Rand, n int, span, delay int64) []op {
	events := kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, kit.RandomEvents(rnd, n, testKeys, 0, span), delay), 0.1)
	var ops []op
	maxTS := int64(math.MinInt64)
	for _, e := range events {
		ops = append(ops, event(e))
		maxTS = max(maxTS, e.TS)
		if rnd.IntN(8) == 0 {
			ops = append(ops, eventWM(maxTS-delay+rnd.Int64N(3)))
		}
	}
	return ops
}

// ruleStream returns a seeded rules stream: n rules over [0, span), mostly
// ahead of the rules' watermark, which advances behind them, and a few
// late; with every fifth rule a tie with the one before it, and thresholds
// around the sums of the windows.
func ruleStream(rnd *rand.Rand, n int, span int64) []op {
	var ops []op
	var last Rule
	wm := int64(math.MinInt64)
	for i := range n {
		ts := rnd.Int64N(span)
		if i%3 == 0 {
			ts = ts / 10 * 10 // window boundaries, where < and ≤ differ
		}
		r := rl(testPrefixes[rnd.IntN(len(testPrefixes))], 1+rnd.Int64N(30), ts)
		if i%5 == 4 {
			// A tie with the rule before: same prefix and TS, a higher
			// threshold, arriving second.
			r = last
			r.Threshold += 1 + rnd.Int64N(5)
		}
		last = r
		ops = append(ops, rule(r))
		if rnd.IntN(4) == 0 {
			wm = max(wm, ts-rnd.Int64N(span/4))
			ops = append(ops, ruleWM(wm))
		}
	}
	return ops
}

// interleave returns a random merge of a and b that keeps each one's own
// order: how two inputs of one operator can arrive.
func interleave(rnd *rand.Rand, a, b []op) []op {
	out := make([]op, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && rnd.IntN(len(a)+len(b)) < len(a)) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// snapshotOf returns b's snapshot; it stops the test if Snapshot fails.
func snapshotOf(t testing.TB, b *BroadcastProcessor) []byte {
	t.Helper()
	snap, err := b.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return snap
}

// restoreAt restores snap at parallelism p; it stops the test on an error.
func restoreAt(t testing.TB, snap []byte, p int) *BroadcastProcessor {
	t.Helper()
	b, err := RestoreBroadcastProcessor(snap, p, maxP)
	if err != nil {
		t.Fatalf("RestoreBroadcastProcessor(snapshot, %d, %d): %v", p, maxP, err)
	}
	if b == nil {
		t.Fatalf("RestoreBroadcastProcessor(snapshot, %d, %d) returned neither a processor nor an error", p, maxP)
	}
	return b
}

// keyOn returns a key, with the given prefix, whose key group the given
// subtask owns at parallelism p (and maxP).
func keyOn(t testing.TB, prefix string, subtask, p int) string {
	t.Helper()
	for i := range 10000 {
		k := fmt.Sprintf("%s%d", prefix, i)
		if TaskForKeyGroup(KeyGroup(k, maxP), maxP, p) == subtask {
			return k
		}
	}
	t.Fatalf("no key with prefix %q on subtask %d of %d", prefix, subtask, p)
	return ""
}
