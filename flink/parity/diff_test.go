//go:build flink

package parity

import (
	"fmt"
	"io"
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
	// restore, when set, is how the course's side makes a restore call (an
	// op of kind restoreKind): it returns the processor that carries on
	// from p's snapshot; p is not used after it. Flink's side snapshots and
	// restores its operator (flinkrun.RestoreOp).
	restore func(p windowtest.Processor) (windowtest.Processor, error)
	// variants, when set, are further runs of the same calls, each of which
	// must do exactly what the main run of its side does, call by call.
	variants []variant
}

// A variant is a further run of a scenario's calls, on the course's side
// or on Flink's, that must do exactly what that side's main run does, call
// by call: the uninterrupted run beside one restored along the way, say, or
// the same job on another state backend. Exactly one of course and flink
// is set.
type variant struct {
	name   string // the run's name in messages, as "course, Pebble"
	course func(t *testing.T, c windowCase) []courseStep
	flink  func(t *testing.T, c windowCase) ([]flinkrun.Step, error)
}

// restoreKind is the kind of a windowtest.Op that stands for a restore:
// the processor is snapshotted and a restored one carries on from the
// snapshot (windowCase.restore on the course's side, the runner's
// "restore" on Flink's). windowtest has no such call; only these tests
// make it.
const restoreKind = "restore"

// restoreOp returns a restore call.
func restoreOp() windowtest.Op { return windowtest.Op{Kind: restoreKind} }

// opString renders a call, a restore too.
func opString(o windowtest.Op) string {
	if o.Kind == restoreKind {
		return "Restore(Snapshot())"
	}
	return o.String()
}

// A courseStep is what the reference did on one call.
type courseStep struct {
	results []kit.Result
	late    []kit.Event // what the call added to Late()
	wm      int64       // Watermark() after the call
	err     error       // a restore that failed, or the processor's Err()
}

// replay makes the calls on a new reference processor. A restore call
// replaces the processor with the one c.restore returns, whose Late()
// starts empty: its step holds what that Late() holds. A processor that
// is an io.Closer is closed when the calls are done.
func (c windowCase) replay() []courseStep {
	p := c.newP()
	defer func() {
		if cl, ok := p.(io.Closer); ok {
			cl.Close()
		}
	}()
	steps := make([]courseStep, len(c.ops))
	seen := 0
	for i, o := range c.ops {
		if o.Kind == restoreKind {
			q, err := c.restoreOf(p)
			if err != nil {
				steps[i] = courseStep{wm: p.Watermark(), err: fmt.Errorf("restore: %w", err)}
				continue
			}
			p, seen = q, 0
		} else {
			steps[i].results = o.Apply(p)
		}
		if c.view != nil {
			steps[i].results = c.view(steps[i].results)
		}
		late := p.Late()
		steps[i].late, seen = late[seen:], len(late)
		steps[i].wm = p.Watermark()
		if f, ok := p.(interface{ Err() error }); ok && f.Err() != nil {
			steps[i].err = f.Err()
		}
	}
	return steps
}

// restoreOf returns the processor that carries on from p's snapshot.
func (c windowCase) restoreOf(p windowtest.Processor) (windowtest.Processor, error) {
	if c.restore == nil {
		return nil, fmt.Errorf("the scenario (%s) has a restore call but no restore", c.config)
	}
	return c.restore(p)
}

// uncut returns c without its restore calls, and for each of c's calls the
// index of its call in the returned case, or −1 for a restore.
func uncut(c windowCase) (windowCase, []int) {
	u := c
	u.ops = nil
	at := make([]int, len(c.ops))
	for i, o := range c.ops {
		at[i] = -1
		if o.Kind != restoreKind {
			at[i] = len(u.ops)
			u.ops = append(u.ops, o)
		}
	}
	return u, at
}

// uninterrupted returns the variants that make a case's calls without its
// restores, on each side: what a run restored along the way must equal
// call by call, a restore's step being an empty one at the watermark of
// the call before.
func uninterrupted() []variant {
	return []variant{
		{name: "course, uninterrupted", course: func(t *testing.T, c windowCase) []courseStep {
			u, at := uncut(c)
			return courseAt(u.replay(), at)
		}},
		{name: "Flink, uninterrupted", flink: func(t *testing.T, c windowCase) ([]flinkrun.Step, error) {
			u, at := uncut(c)
			steps, err := runFlink(t, u)
			if err != nil {
				return nil, err
			}
			return flinkSteps(steps, at), nil
		}},
	}
}

// courseAt places the steps of a run at calls at, as flinkSteps does
// Flink's: at[i] < 0 is a call that does nothing, at the watermark of the
// call before.
func courseAt(steps []courseStep, at []int) []courseStep {
	out := make([]courseStep, len(at))
	wm := int64(math.MinInt64)
	for i, j := range at {
		if j < 0 {
			out[i] = courseStep{wm: wm}
			continue
		}
		out[i] = steps[j]
		wm = steps[j].wm
	}
	return out
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
		case o.Kind == restoreKind:
			fops = append(fops, flinkrun.RestoreOp())
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
// −1: results (Flink's in the course's order), the side output, and the
// watermark after the documented mapping.
func differs(course []courseStep, fl []flinkrun.Step) int {
	for i := range course {
		if course[i].err != nil ||
			!slices.Equal(course[i].results, inCourseOrder(fl[i].Results)) ||
			!slices.EqualFunc(course[i].late, fl[i].Late, func(a kit.Event, b flinkrun.Event) bool { return a == kit.Event(b) }) ||
			flinkWM(course[i].wm) != fl[i].Watermark {
			return i
		}
	}
	return -1
}

// courseDiffers returns the first call at which two runs of the course
// differ, or −1.
func courseDiffers(a, b []courseStep) int {
	for i := range a {
		if a[i].err != nil || b[i].err != nil ||
			!slices.Equal(a[i].results, b[i].results) || !slices.Equal(a[i].late, b[i].late) || a[i].wm != b[i].wm {
			return i
		}
	}
	return -1
}

// flinkDiffers returns the first call at which two runs of Flink differ,
// or −1: their results are compared in the course's order, as with the
// course's.
func flinkDiffers(a, b []flinkrun.Step) int {
	for i := range a {
		if !slices.Equal(inCourseOrder(a[i].Results), inCourseOrder(b[i].Results)) ||
			!slices.Equal(a[i].Late, b[i].Late) || a[i].Watermark != b[i].Watermark {
			return i
		}
	}
	return -1
}

// A difference is where the runs of a scenario part: which two, and both
// side by side, call by call.
type difference struct {
	between string // "the reference and Flink"
	shown   string
}

// compare runs c through the reference and Flink, and c's variants, and
// returns the first difference between a side's main run and the other
// side's or one of its variants, or nil when all agree on every call.
func compare(t *testing.T, c windowCase) (*difference, error) {
	t.Helper()
	fl, err := runFlink(t, c)
	if err != nil {
		return nil, err
	}
	course := c.replay()
	if differs(course, fl) >= 0 {
		return &difference{"the reference and Flink", sideBySide(c.ops, course, fl)}, nil
	}
	for _, v := range c.variants {
		if v.course != nil {
			other := v.course(t, c)
			if courseDiffers(course, other) >= 0 {
				marks := func(i int) bool { return courseDiffers(course[i:i+1], other[i:i+1]) >= 0 }
				return &difference{fmt.Sprintf("the runs %q and %q", "course", v.name),
					showLanes(c.ops, marks, courseLane("course", course), courseLane(v.name, other))}, nil
			}
			continue
		}
		other, err := v.flink(t, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		if flinkDiffers(fl, other) >= 0 {
			marks := func(i int) bool { return flinkDiffers(fl[i:i+1], other[i:i+1]) >= 0 }
			return &difference{fmt.Sprintf("the runs %q and %q", "Flink", v.name),
				showLanes(c.ops, marks, flinkLane("Flink", fl), flinkLane(v.name, other))}, nil
		}
	}
	return nil, nil
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
// seed on, through the reference and through Flink (and a scenario's
// variants), and stops t at the first difference with the seed that
// replays it, the scenario shrunk to the calls that still show it, and both
// runs call by call.
func checkWindows(t *testing.T, what string, gen func(r *seeded) windowCase) {
	t.Helper()
	needFlink(t)
	base := suite.Seed(t)
	for i := range uint64(*scenarios) {
		seed := base + i
		c := gen(&seeded{kit.NewRand(seed)})
		d, err := compare(t, c)
		if err != nil {
			t.Fatalf("scenario seed %d (%s, %d calls): %v", seed, c.config, len(c.ops), err)
		}
		if d == nil {
			continue
		}
		full := len(c.ops)
		c.ops = shrink(c.ops, func(ops []windowtest.Op) bool {
			c2 := c
			c2.ops = ops
			d, err := compare(t, c2)
			return err == nil && d != nil
		})
		if shrunk, err := compare(t, c); err == nil && shrunk != nil {
			d = shrunk
		}
		t.Fatalf("%s: %s differ (scenario seed %d; replay it alone with FLK_SEED=%d go test -tags flink ./flink/parity -run '^%s$' -flink.scenarios 1).\n"+
			"%s\nShrunk from %d calls to %d that still differ (≠ marks the calls that do):\n\n%s",
			what, d.between, seed, seed, t.Name(), c.config, full, len(c.ops), d.shown)
	}
	t.Logf("%d scenarios from seed %d: every run of the reference and of Flink agrees on every call", *scenarios, base)
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

// sideBySide renders both sides call by call.
func sideBySide(ops []windowtest.Op, course []courseStep, fl []flinkrun.Step) string {
	marks := func(i int) bool { return differs(course[i:i+1], fl[i:i+1]) >= 0 }
	return showLanes(ops, marks, courseLane("course", course), flinkLane("Flink", fl))
}

// A lane is one run of a scenario as showLanes shows it: its name and a
// line per call.
type lane struct {
	name  string
	lines []string
}

// courseLane renders a run of the course.
func courseLane(name string, steps []courseStep) lane {
	l := lane{name: name}
	for _, s := range steps {
		line := fmt.Sprintf("%-60s watermark %s%s", fmtResults(s.results), kit.FormatWatermark(s.wm), fmtLate(s.late))
		if s.err != nil {
			line += "   error: " + s.err.Error()
		}
		l.lines = append(l.lines, line)
	}
	return l
}

// flinkLane renders a run of Flink: its results in the course's order, its
// watermark with the course's beside it.
func flinkLane(name string, steps []flinkrun.Step) lane {
	l := lane{name: name}
	for _, s := range steps {
		fw := s.Watermark
		shown := kit.FormatWatermark(fw)
		if fw != math.MinInt64 && fw != math.MaxInt64 {
			shown += fmt.Sprintf(" (course's %d)", fw+1)
		}
		late := make([]kit.Event, len(s.Late))
		for j, e := range s.Late {
			late[j] = kit.Event(e)
		}
		l.lines = append(l.lines, fmt.Sprintf("%-60s watermark %s%s", fmtResults(inCourseOrder(s.Results)), shown, fmtLate(late)))
	}
	return l
}

// showLanes renders runs call by call, marking with ≠ the calls marked.
func showLanes(ops []windowtest.Op, marked func(i int) bool, lanes ...lane) string {
	width := 0
	for _, l := range lanes {
		width = max(width, len([]rune(l.name)))
	}
	var b strings.Builder
	for i, o := range ops {
		mark := " "
		if marked(i) {
			mark = "≠"
		}
		fmt.Fprintf(&b, "%s %2d  %s\n", mark, i+1, opString(o))
		for _, l := range lanes {
			fmt.Fprintf(&b, "       %s%s  %s\n", l.name, strings.Repeat(" ", width-len([]rune(l.name))), l.lines[i])
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
