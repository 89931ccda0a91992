//go:build flink

package parity

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// A windowCase is one random scenario of a window stage: a config, said
// for both sides, and the calls to make.
type windowCase struct {
	config string                      // the course's config, for messages
	spec   flinkrun.WindowSpec         // the same config in Flink's terms
	newP   func() windowtest.Processor // a new reference processor for config
	ops    []windowtest.Op
	// view, when set, is what of one call's results Flink can be compared
	// with (a session's retractions, say, which Flink does not emit): the
	// results are compared, and shown, through it.
	view func([]kit.Result) []kit.Result
	// changelog, when set, derives from Flink's steps, one per call, what
	// the course's results must be in full, view not applied (a session's
	// retractions and updates, say, from the merges Flink reports): every
	// call's results are compared with it too.
	changelog func(fl []flinkrun.Step) [][]kit.Result
}

// A courseStep is what the reference did on one call.
type courseStep struct {
	results []kit.Result // through the case's view
	all     []kit.Result // every result, view not applied
	late    []kit.Event  // what the call added to Late()
	wm      int64        // Watermark() after the call
}

// replay makes the calls on a new reference processor.
func (c windowCase) replay() []courseStep {
	p := c.newP()
	steps := make([]courseStep, len(c.ops))
	seen := 0
	for i, o := range c.ops {
		steps[i].all = o.Apply(p)
		steps[i].results = steps[i].all
		if c.view != nil {
			steps[i].results = c.view(steps[i].all)
		}
		late := p.Late()
		steps[i].late, seen = late[seen:], len(late)
		steps[i].wm = p.Watermark()
	}
	return steps
}

// flinkWM maps a course watermark to Flink's: w − 1, but for the ends of
// the range, which mean the same in both (no watermark yet; the end of the
// input).
func flinkWM(w int64) int64 {
	if w == math.MinInt64 || w == math.MaxInt64 {
		return w
	}
	return w - 1
}

// flinkOps maps the calls to Flink's arrivals: an event (its first
// delivery only: a redelivered ID never reaches Flink), an upstream
// watermark w as w − 1, Flush as the end of the input. at[i] is the index
// of call i's arrival, or −1 for a redelivery.
func flinkOps(ops []windowtest.Op) (fops []flinkrun.Op, at []int) {
	seen := map[string]bool{}
	at = make([]int, len(ops))
	for i, o := range ops {
		at[i] = len(fops)
		switch {
		case o.Kind == "process" && seen[o.Event.ID]:
			at[i] = -1
		case o.Kind == "process":
			seen[o.Event.ID] = true
			fops = append(fops, flinkrun.EventOp(flinkrun.Event(o.Event)))
		case o.Kind == "flush", o.Kind == "advance" && o.WM == math.MaxInt64:
			fops = append(fops, flinkrun.EndOp())
		case o.Kind == "advance":
			fops = append(fops, flinkrun.WatermarkOp(flinkWM(o.WM)))
		}
	}
	return fops, at
}

// flinkSteps aligns Flink's steps with the course's calls: a redelivery's
// step is empty, at the watermark of the step before.
func flinkSteps(steps []flinkrun.Step, at []int) []flinkrun.Step {
	out := make([]flinkrun.Step, len(at))
	wm := int64(math.MinInt64)
	for i, j := range at {
		if j < 0 {
			out[i] = flinkrun.Step{Watermark: wm}
			continue
		}
		out[i] = steps[j]
		wm = steps[j].Watermark
	}
	return out
}

// inCourseOrder returns Flink's results of one step as kit.Results, in the
// course's (End, Start, Key) order: Flink fires the timers that fall due
// together in its timer queue's order. The sort is stable, so a window's
// results keep Flink's order within it.
func inCourseOrder(rs []flinkrun.Result) []kit.Result {
	out := make([]kit.Result, len(rs))
	for i, r := range rs {
		out[i] = kit.Result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, IsUpdate: r.Update}
	}
	return kit.SortResults(out)
}

// differs returns the first call at which the course and Flink differ, or
// −1.
func (c windowCase) differs(course []courseStep, fl []flinkrun.Step) int {
	bad, _ := c.compare(course, fl)
	return slices.Index(bad, true)
}

// compare says, call by call, whether the course and Flink differ: in the
// results (the course's through c.view, Flink's in the course's order), the
// side output, the watermark after the documented mapping, or, when c has
// a changelog, in the course's whole results against the ones it derives
// from Flink's steps, which it returns too (nil without a changelog).
func (c windowCase) compare(course []courseStep, fl []flinkrun.Step) (bad []bool, want [][]kit.Result) {
	if c.changelog != nil {
		want = c.changelog(fl)
	}
	bad = make([]bool, len(course))
	for i := range course {
		bad[i] = !slices.Equal(course[i].results, inCourseOrder(fl[i].Results)) ||
			!slices.EqualFunc(course[i].late, fl[i].Late, func(a kit.Event, b flinkrun.Event) bool { return a == kit.Event(b) }) ||
			flinkWM(course[i].wm) != fl[i].Watermark ||
			want != nil && !slices.Equal(course[i].all, want[i])
	}
	return bad, want
}

// runFlink runs c through Flink and aligns its steps with c's calls.
func runFlink(t *testing.T, c windowCase) ([]flinkrun.Step, error) {
	t.Helper()
	fops, at := flinkOps(c.ops)
	w := c.spec
	steps, err := flink.RunWindows(w, fops)
	if err != nil {
		return nil, err
	}
	return flinkSteps(steps, at), nil
}

// checkWindows runs the scenarios gen makes, one per seed from the test's
// seed on, through the reference and through Flink, and stops t at the
// first difference with the seed that replays it, the scenario shrunk to
// the calls that still show it, and both sides call by call.
func checkWindows(t *testing.T, what string, gen func(r *seeded) windowCase) {
	t.Helper()
	needFlink(t)
	base := suite.Seed(t)
	for i := range uint64(*scenarios) {
		seed := base + i
		c := gen(&seeded{kit.NewRand(seed)})
		fl, err := runFlink(t, c)
		if err != nil {
			t.Fatalf("scenario seed %d (%s, %d calls): %v", seed, c.config, len(c.ops), err)
		}
		course := c.replay()
		at := c.differs(course, fl)
		if at < 0 {
			continue
		}
		full := len(c.ops)
		c.ops = shrink(c.ops, func(ops []windowtest.Op) bool {
			c2 := c
			c2.ops = ops
			fl2, err := runFlink(t, c2)
			return err == nil && c2.differs(c2.replay(), fl2) >= 0
		})
		fl, _ = runFlink(t, c)
		course = c.replay()
		t.Fatalf("%s: the reference and Flink differ (scenario seed %d; replay it alone with FLK_SEED=%d go test -tags flink -run '^%s$' ./flink/parity -flink.scenarios 1).\n"+
			"%s\nShrunk from %d calls to %d that still differ (≠ marks the calls that do):\n\n%s",
			what, seed, seed, t.Name(), c.config, full, len(c.ops), c.sideBySide(course, fl))
	}
	t.Logf("%d scenarios from seed %d: the reference and Flink agree on every call", *scenarios, base)
}

// shrink returns a shortest-it-finds subsequence of ops on which fails
// still holds: it drops runs of calls, halving their length, while the
// difference stays.
func shrink(ops []windowtest.Op, fails func([]windowtest.Op) bool) []windowtest.Op {
	for chunk := max(len(ops)/2, 1); ; chunk /= 2 {
		for i := 0; i+chunk <= len(ops); {
			cand := slices.Concat(ops[:i], ops[i+chunk:])
			if len(cand) > 0 && fails(cand) {
				ops = cand
			} else {
				i += chunk
			}
		}
		if chunk == 1 {
			return ops
		}
	}
}

// sideBySide renders both sides call by call; with a changelog, also the
// course's whole results and the ones derived from Flink's steps, on the
// calls where either has more than the view shows.
func (c windowCase) sideBySide(course []courseStep, fl []flinkrun.Step) string {
	bad, want := c.compare(course, fl)
	var b strings.Builder
	for i, o := range c.ops {
		mark := " "
		if bad[i] {
			mark = "≠"
		}
		fmt.Fprintf(&b, "%s %2d  %v\n", mark, i+1, o)
		fmt.Fprintf(&b, "       course  %-60s watermark %s%s\n", fmtResults(course[i].results), kit.FormatWatermark(course[i].wm), fmtLate(course[i].late))
		fw := fl[i].Watermark
		shown := kit.FormatWatermark(fw)
		if fw != math.MinInt64 && fw != math.MaxInt64 {
			shown += fmt.Sprintf(" (course's %d)", fw+1)
		}
		late := make([]kit.Event, len(fl[i].Late))
		for j, e := range fl[i].Late {
			late[j] = kit.Event(e)
		}
		fmt.Fprintf(&b, "       Flink   %-60s watermark %s%s\n", fmtResults(inCourseOrder(fl[i].Results)), shown, fmtLate(late))
		if want != nil && (!slices.Equal(course[i].all, course[i].results) || !slices.Equal(want[i], course[i].results)) {
			fmt.Fprintf(&b, "       course, in full         %s\n", fmtResults(course[i].all))
			fmt.Fprintf(&b, "       Flink's, as a changelog %s%s\n", fmtResults(want[i]), fmtMerges(fl[i].Merges))
		}
	}
	return b.String()
}

func fmtResults(rs []kit.Result) string {
	if len(rs) == 0 {
		return "—"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

func fmtMerges(ms []flinkrun.Merge) string {
	if len(ms) == 0 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		with := make([]string, len(m.With))
		for j, w := range m.With {
			with[j] = fmt.Sprintf("[%d,%d)", w.Start, w.End)
		}
		parts[i] = fmt.Sprintf("%s [%d,%d) with %s into [%d,%d)", kit.ShowString(m.Key), m.Window.Start, m.Window.End, strings.Join(with, ", "), m.Into.Start, m.Into.End)
	}
	return "   merged " + strings.Join(parts, "; ")
}

func fmtLate(es []kit.Event) string {
	if len(es) == 0 {
		return ""
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return "   side output " + strings.Join(parts, ", ")
}
