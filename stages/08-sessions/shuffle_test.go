//go:build lab || solution

package sessions

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// delivery is one run of a SessionProcessor over a whole bounded input,
// with a watermark from upstream that trails the largest timestamp seen by
// lag, handed over every few events (like Flink's periodic watermarks).
type delivery struct {
	t       *testing.T
	cfg     SessionConfig
	ops     []op
	calls   []string       // each call, e.g. "Process(e7 a@5=1) (arrival 3)"
	outs    [][]kit.Result // what each call returned
	wms     []int64        // the watermark after each call
	events  []kit.Event    // the input in arrival order
	emitted []kit.Result   // everything, in emission order
	late    []kit.Event
	wm      int64
}

// deliver runs events through a new processor for cfg, handing it
// AdvanceWatermark(max timestamp so far − lag) after every 1 to 8 events
// (drawn from rnd), and Flush at the end.
func deliver(t *testing.T, rnd *rand.Rand, cfg SessionConfig, lag int64, events []kit.Event) delivery {
	t.Helper()
	d := delivery{t: t, cfg: cfg, events: events}
	maxTS, next := int64(math.MinInt64), 1+rnd.IntN(8)
	for i, e := range events {
		d.ops = append(d.ops, windowtest.ProcessOp(e))
		d.calls = append(d.calls, fmt.Sprintf("Process(%v) (arrival %d)", e, i+1))
		maxTS = max(maxTS, e.TS)
		if next--; next == 0 {
			d.ops = append(d.ops, windowtest.AdvanceOp(maxTS-lag))
			d.calls = append(d.calls, fmt.Sprintf("AdvanceWatermark(%d) (after arrival %d)", maxTS-lag, i+1))
			next = 1 + rnd.IntN(8)
		}
	}
	d.ops = append(d.ops, windowtest.FlushOp())
	d.calls = append(d.calls, "Flush()")
	tr := runOps(newSessions(t, cfg), d.ops)
	d.outs, d.wms, d.late, d.wm = tr.Outs, tr.WMs, tr.Late, tr.WM
	d.emitted = windowtest.Emitted(tr.Outs)
	return d
}

// picture draws, with pictures on, the delivery's first calls calls as a
// page (windowtest.TracePicture) and returns the line that links it, or "".
func (d delivery) picture(note string, calls int) string {
	drawn := windowtest.Trace{Outs: d.outs[:calls], WMs: d.wms[:calls], Late: d.late}
	return windowtest.TracePicture(d.t, note, pictureWindows(d.cfg), d.ops, drawn, windowtest.Trace{})
}

// check fails t unless d's output is a valid changelog, call by call, that
// rebuilds to want with nothing late. what names the delivery.
func (d delivery) check(t *testing.T, what string, want []kit.Result, lateWhy string) bool {
	t.Helper()
	down := newDownstream()
	for i, out := range d.outs {
		if problem := down.apply(out); problem != "" {
			msg := fmt.Sprintf("%s: %s returned\n%s\nwhich a downstream that sums Count and Sum per (Key, Start, End) cannot apply:\n%s",
				what, d.calls[i], windowtest.FmtResults(out), problem)
			t.Errorf("%s\n\n%s%s", msg, d.focus(out), d.picture(msg, i+1))
			return false
		}
	}
	if len(d.late) > 0 {
		msg := fmt.Sprintf("%s: Late() = %s, want nothing.\n%s", what, windowtest.FmtEvents(d.late), lateWhy)
		t.Errorf("%s\n\n%s%s", msg, d.focus(nil), d.picture(msg, len(d.ops)))
		return false
	}
	if got := down.sessions(); !slices.Equal(got, want) {
		msg := fmt.Sprintf("%s: applying everything emitted, downstream ends with sessions that differ from the batch oracle\n"+
			"(each key's events sorted by timestamp, split where two consecutive ones are more than Gap %d apart):\n%s",
			what, d.cfg.Gap, windowtest.DiffResults(got, want))
		t.Errorf("%s\n%s%s", msg, d.focus(firstDiff(got, want)), d.picture(msg, len(d.ops)))
		return false
	}
	return true
}

// firstDiff returns the first result that differs between got and want
// (both sorted), to focus a timeline on.
func firstDiff(got, want []kit.Result) []kit.Result {
	if r, ok := windowtest.FirstDifference(got, want); ok {
		return []kit.Result{r}
	}
	return nil
}

// focus draws the part of the delivery about the key and time span of the
// first of rs (or the first late event): its events in arrival order, what
// was emitted for it, and the side output.
func (d delivery) focus(rs []kit.Result) string {
	var key string
	var lo, hi int64
	switch {
	case len(rs) > 0:
		key, lo, hi = rs[0].Key, rs[0].Start-d.cfg.Gap, rs[0].End+d.cfg.Gap
	case len(d.late) > 0:
		key, lo, hi = d.late[0].Key, d.late[0].TS-3*d.cfg.Gap, d.late[0].TS+3*d.cfg.Gap
	default:
		return ""
	}
	tl := kit.Timeline{Gap: d.cfg.Gap, Lateness: d.cfg.AllowedLateness, Watermark: d.wm}
	for _, e := range d.events {
		if e.Key == key && e.TS >= lo && e.TS < hi {
			tl.Events = append(tl.Events, e)
		}
	}
	for _, r := range d.emitted {
		if r.Key == key && r.Start < hi && r.End > lo {
			tl.Results = append(tl.Results, r)
		}
	}
	for _, e := range d.late {
		if e.Key == key {
			tl.Late = append(tl.Late, e)
		}
	}
	return fmt.Sprintf("only key %s, event time [%d,%d), arrival order (the watermark shown is the final one):\n%s", key, lo, hi, tl.String())
}

// shuffleConfigs are the order-independence runs: a session config, the
// span of the random timestamps, the disorder of the shuffles and the lag
// of the watermark behind the largest timestamp. The lag is at least the
// disorder, so no event arrives after its session expired. With no allowed
// lateness it is one more: a session that fired and expired at watermark w
// would not merge with an event at exactly w (Flink behaves the same).
var shuffleConfigs = []struct {
	cfg                SessionConfig
	span, bound, lag   int64
	keys               []string
	events, deliveries int
}{
	{SessionConfig{Gap: 100}, 8000, 0, 1, []string{"a", "b", "c", "d", "e"}, 200, 5},
	{SessionConfig{Gap: 100, AllowedLateness: 1}, 8000, 150, 150, []string{"a", "b", "c", "d", "e"}, 200, 5},
	{SessionConfig{Gap: 37}, 6000, 80, 81, []string{"a", "b", "c"}, 200, 5},
	{SessionConfig{Gap: 400, AllowedLateness: 50}, 20000, 300, 300, []string{"a", "b", "c", "d"}, 200, 5},
	{SessionConfig{Gap: 1, AllowedLateness: 2}, 400, 5, 5, []string{"a", "b"}, 200, 5},
}

// TestOrderIndependenceUnderBoundedShuffle certifies that every delivery order whose disorder stays within the watermark's lag, with duplicates, emits a changelog that rebuilds to the same sessions as a batch oracle that splits each key's sorted events at gaps larger than Gap.
//
// Now and then an event has an awkward key, ID or value
// (kit.WithAwkwardFields): sums at the int64 edges wrap, as Go's int64
// arithmetic does, in the oracle and in any correct processor alike.
func TestOrderIndependenceUnderBoundedShuffle(t *testing.T) {
	defer suite.Recover(t)
	for _, sc := range shuffleConfigs {
		t.Run(fmt.Sprintf("gap=%d/lateness=%d/disorder=%d/lag=%d", sc.cfg.Gap, sc.cfg.AllowedLateness, sc.bound, sc.lag), func(t *testing.T) {
			defer suite.Recover(t)
			rnd := suite.Rand(t)
			ordered := kit.WithAwkwardFields(rnd, kit.RandomEvents(rnd, sc.events, sc.keys, -sc.span/4, sc.span), awkwardRate)
			want := batchSessions(ordered, sc.cfg.Gap)
			lateWhy := fmt.Sprintf("The watermark trails the largest timestamp by %d and the disorder is at most %d, so every event\n"+
				"arrives at or after the watermark: its session cannot be expired. A redelivered event is a no-op, not late:\n"+
				"check the seen IDs before lateness.", sc.lag, sc.bound)
			if !deliver(t, rnd, sc.cfg, sc.lag, ordered).check(t, "in-order delivery", want, lateWhy) {
				return // fix in-order delivery first
			}
			for i := range sc.deliveries {
				events := shuffled(rnd, ordered, sc.bound, 0.2)
				what := fmt.Sprintf("shuffle %d of %d (with duplicates)", i+1, sc.deliveries)
				if !deliver(t, rnd, sc.cfg, sc.lag, events).check(t, what, want, lateWhy) {
					return // one failing order is enough to read
				}
			}
		})
	}
}

// TestDownstreamRebuildsFinalSessionsFromTheChangelog certifies that with disorder far beyond the watermark, so that fired sessions are extended and bridged late, every call's output applies cleanly downstream and the rebuilt sessions equal the batch oracle.
//
// The allowed lateness covers the disorder, so no event is late: every
// event belongs in the final sessions.
func TestDownstreamRebuildsFinalSessionsFromTheChangelog(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		cfg                SessionConfig
		span, bound, lag   int64
		keys               []string
		events, deliveries int
	}{
		{SessionConfig{Gap: 100, AllowedLateness: 1000}, 6000, 600, 20, []string{"a", "b", "c", "d"}, 200, 5},
		{SessionConfig{Gap: 30, AllowedLateness: 500}, 3000, 400, 0, []string{"a", "b"}, 200, 5},
		{SessionConfig{Gap: 1000, AllowedLateness: 5000}, 60000, 4000, 100, []string{"a", "b", "c"}, 200, 5},
	} {
		t.Run(fmt.Sprintf("gap=%d/lateness=%d/disorder=%d/lag=%d", c.cfg.Gap, c.cfg.AllowedLateness, c.bound, c.lag), func(t *testing.T) {
			defer suite.Recover(t)
			rnd := suite.Rand(t)
			ordered := kit.WithAwkwardFields(rnd, kit.RandomEvents(rnd, c.events, c.keys, 0, c.span), awkwardRate)
			want := batchSessions(ordered, c.cfg.Gap)
			retractions := 0
			for i := range c.deliveries {
				events := shuffled(rnd, ordered, c.bound, 0.2)
				d := deliver(t, rnd, c.cfg, c.lag, events)
				what := fmt.Sprintf("delivery %d of %d (disorder %d, watermark %d behind the largest timestamp, duplicates)", i+1, c.deliveries, c.bound, c.lag)
				if !d.check(t, what, want, fmt.Sprintf("AllowedLateness %d exceeds the disorder (%d) plus the gap: no session can expire "+
					"before its last event arrives.", c.cfg.AllowedLateness, c.bound)) {
					return
				}
				for _, r := range d.emitted {
					if r.Count < 0 {
						retractions++
					}
				}
			}
			if retractions == 0 {
				t.Fatalf("suite bug: %d deliveries with disorder %d never extended a fired session", c.deliveries, c.bound)
			}
		})
	}
}
