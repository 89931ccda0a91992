//go:build flink

package parity

import (
	"bytes"
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
	// changelog, when set, derives from Flink's steps, one per call, what
	// the course's results must be in full, view not applied (a session's
	// retractions and updates, say, from the merges Flink reports): every
	// call's results are compared with it too.
	changelog func(fl []flinkrun.Step) [][]kit.Result
	// flinkDedups, when set, sends every delivery to Flink, redeliveries
	// too, through the runner's "seenttl" kind, whose keyed dedup function
	// remembers an ID until the watermark reaches its TS + ttl (0: forever)
	// and drops its redeliveries meanwhile; each call's dedup is compared
	// too (courseStep.dropped, .remembered). Without it a redelivery never
	// reaches Flink (flinkOps).
	flinkDedups bool
	ttl         int64
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
	results []kit.Result // through the case's view
	all     []kit.Result // every result, view not applied
	late    []kit.Event  // what the call added to Late()
	wm      int64        // Watermark() after the call

	// Set only for a windowCase with flinkDedups:
	dedup      bool        // the fields below are the reference's
	dropped    []kit.Event // the call's event, if the call dropped it as a redelivery
	remembered int         // RememberedIDs() after the call

	err error // a restore that failed, or the processor's Err()
}

// dedupProcessor is what a reference processor with a seen TTL offers
// beyond windowtest.Processor: the IDs it remembers, and a snapshot, whose
// bytes tell a call that changed nothing.
type dedupProcessor interface {
	windowtest.Processor
	RememberedIDs() int
	Snapshot() ([]byte, error)
}

// replay makes the calls on a new reference processor. A restore call
// replaces the processor with the one c.restore returns, whose Late()
// starts empty: its step holds what that Late() holds. A processor that is
// an io.Closer is closed when the calls are done.
//
// With flinkDedups, a Process call is taken as dropped when it returned
// nothing, sent nothing to the side output and left the processor's
// snapshot byte for byte as it was: an event taken as new either goes to
// the side output or changes a window's count, and so the snapshot.
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
		var before []byte
		if c.flinkDedups && o.Kind == "process" {
			before = mustSnapshot(p)
		}
		if o.Kind == restoreKind {
			q, err := c.restoreOf(p)
			if err != nil {
				steps[i] = courseStep{wm: p.Watermark(), err: fmt.Errorf("restore: %w", err)}
				continue
			}
			p, seen = q, 0
		} else {
			steps[i].all = o.Apply(p)
		}
		steps[i].results = steps[i].all
		if c.view != nil {
			steps[i].results = c.view(steps[i].all)
		}
		late := p.Late()
		steps[i].late, seen = late[seen:], len(late)
		steps[i].wm = p.Watermark()
		if c.flinkDedups {
			steps[i].dedup = true
			steps[i].remembered = p.(dedupProcessor).RememberedIDs()
			if before != nil && len(steps[i].results) == 0 && len(steps[i].late) == 0 && bytes.Equal(before, mustSnapshot(p)) {
				steps[i].dropped = []kit.Event{o.Event}
			}
		}
		if f, ok := p.(interface{ Err() error }); ok && f.Err() != nil {
			steps[i].err = f.Err()
		}
	}
	return steps
}

// mustSnapshot returns the snapshot of p, a dedupProcessor.
func mustSnapshot(p windowtest.Processor) []byte {
	b, err := p.(dedupProcessor).Snapshot()
	if err != nil {
		panic(fmt.Sprintf("the reference's Snapshot: %v", err))
	}
	return b
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

// flinkSourceWM maps a watermark the course derives from a partition's
// timestamps (the largest minus OutOfOrderness) to Flink's, from
// BoundedOutOfOrdernessWatermarks (the largest minus the bound minus 1):
// w − 1, and math.MinInt64 (none yet) unchanged, as flinkWM. math.MaxInt64
// too is w − 1 here: it is an event at math.MaxInt64 with no disorder, not
// the course's Flush, and Flink's generator never emits Long.MAX_VALUE.
func flinkSourceWM(w int64) int64 {
	if w == math.MinInt64 {
		return w
	}
	return w - 1
}

// flinkOps maps the calls to Flink's arrivals: an event (its first
// delivery only: a redelivered ID never reaches Flink), an upstream
// watermark w as w − 1, Flush as the end of the input. at[i] is the index
// of call i's arrival, or −1 for a redelivery.
func flinkOps(ops []windowtest.Op) (fops []flinkrun.Op, at []int) {
	return mapOps(ops, deliveries{})
}

// everyDelivery maps the calls as flinkOps does, but sends every delivery
// to Flink, redeliveries too: for a Flink job that deduplicates itself.
func everyDelivery(ops []windowtest.Op) (fops []flinkrun.Op, at []int) {
	return mapOps(ops, nil)
}

// deliveries is the IDs delivered so far, for sending Flink the first
// delivery of each only.
type deliveries map[string]bool

// redelivery reports whether id was delivered before, and notes it; a nil
// deliveries takes every delivery as the first.
func (d deliveries) redelivery(id string) bool {
	if d == nil {
		return false
	}
	seen := d[id]
	d[id] = true
	return seen
}

// mapOps maps the calls to Flink's arrivals, leaving out the redeliveries
// d reports (none when d is nil).
func mapOps(ops []windowtest.Op, d deliveries) (fops []flinkrun.Op, at []int) {
	at = make([]int, len(ops))
	for i, o := range ops {
		at[i] = len(fops)
		switch {
		case o.Kind == "process" && d.redelivery(o.Event.ID):
			at[i] = -1
		case o.Kind == "process":
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
		out[i] = courseResult(r)
	}
	return kit.SortResults(out)
}

// courseResult returns a Flink result as a kit.Result.
func courseResult(r flinkrun.Result) kit.Result {
	return kit.Result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, IsUpdate: r.Update}
}

// sameEvent reports whether a course event and a Flink one are the same.
func sameEvent(a kit.Event, b flinkrun.Event) bool { return a == kit.Event(b) }

// differs returns the first call at which the course and Flink differ, or
// −1: results (the course's through its case's view, Flink's in the
// course's order), the side output, and the watermark after the documented
// mapping; with a dedup in Flink, which deliveries were dropped and how
// many IDs are remembered; and, when want is not nil (the case's changelog
// of Flink's steps), the course's whole results against it.
func differs(course []courseStep, fl []flinkrun.Step, want [][]kit.Result) int {
	for i := range course {
		if course[i].err != nil ||
			want != nil && !slices.Equal(course[i].all, want[i]) ||
			!slices.Equal(course[i].results, inCourseOrder(fl[i].Results)) ||
			!slices.EqualFunc(course[i].late, fl[i].Late, sameEvent) ||
			flinkWM(course[i].wm) != fl[i].Watermark ||
			!slices.EqualFunc(course[i].dropped, fl[i].Dropped, sameEvent) ||
			course[i].remembered != fl[i].Remembered {
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

// runFlink runs c through Flink and aligns its steps with c's calls.
func runFlink(t *testing.T, c windowCase) ([]flinkrun.Step, error) {
	t.Helper()
	if c.flinkDedups {
		fops, _ := everyDelivery(c.ops)
		return flink.RunSeenTTL(flinkrun.SeenTTLSpec{Window: c.spec, TTL: c.ttl}, fops)
	}
	fops, at := flinkOps(c.ops)
	steps, err := flink.RunWindows(c.spec, fops)
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
	check(t, what, func(r *seeded) differential[windowtest.Op] { return gen(r) })
}

// A differential is one random scenario of a differential test, for check:
// its calls, and how to run them on both sides and compare.
type differential[O any] interface {
	// describe says the scenario's configuration, for messages.
	describe() string
	// calls returns the scenario's calls.
	calls() []O
	// with returns the scenario with its calls replaced by ops.
	with(ops []O) differential[O]
	// compare runs the calls through the reference and through Flink and
	// returns the first call at which the two differ, or −1, and a
	// rendering of both sides call by call.
	compare(t *testing.T) (at int, sides func() string, err error)
}

// check runs the scenarios gen makes, one per seed from the test's seed
// on, and stops t at the first difference with the seed that replays it,
// the scenario shrunk to the calls that still show it, and both sides call
// by call.
func check[O any](t *testing.T, what string, gen func(r *seeded) differential[O]) {
	t.Helper()
	needFlink(t)
	base := suite.Seed(t)
	for i := range uint64(*scenarios) {
		seed := base + i
		c := gen(&seeded{kit.NewRand(seed)})
		at, _, err := c.compare(t)
		if err != nil {
			t.Fatalf("scenario seed %d (%s, %d calls): %v", seed, c.describe(), len(c.calls()), err)
		}
		if at < 0 {
			continue
		}
		full := len(c.calls())
		c = c.with(shrink(c.calls(), func(ops []O) bool {
			at, _, err := c.with(ops).compare(t)
			return err == nil && at >= 0
		}))
		_, sides, err := c.compare(t)
		if err != nil {
			t.Fatalf("scenario seed %d (%s): the shrunk scenario: %v", seed, c.describe(), err)
		}
		t.Fatalf("%s: the runs below differ (scenario seed %d; replay it alone with FLK_SEED=%d go test -tags flink -run '^%s$' ./flink/parity -flink.scenarios 1).\n"+
			"%s\nShrunk from %d calls to %d that still differ (≠ marks the calls that do):\n\n%s",
			what, seed, seed, t.Name(), c.describe(), full, len(c.calls()), sides())
	}
	t.Logf("%d scenarios from seed %d: the reference and Flink agree on every call", *scenarios, base)
}

func (c windowCase) describe() string       { return c.config }
func (c windowCase) calls() []windowtest.Op { return c.ops }

func (c windowCase) with(ops []windowtest.Op) differential[windowtest.Op] {
	c.ops = ops
	return c
}

// compare runs c through the reference and Flink, and c's variants, and
// returns the first call at which a side's main run differs from the other
// side's or from one of its own variants, or −1 when all agree on every
// call, with the two runs that part side by side.
func (c windowCase) compare(t *testing.T) (int, func() string, error) {
	fl, err := runFlink(t, c)
	if err != nil {
		return 0, nil, err
	}
	course := c.replay()
	var want [][]kit.Result
	if c.changelog != nil {
		want = c.changelog(fl)
	}
	if at := differs(course, fl, want); at >= 0 {
		return at, func() string { return sideBySide(c.ops, course, fl, want) }, nil
	}
	for _, v := range c.variants {
		if v.course != nil {
			other := v.course(t, c)
			if at := courseDiffers(course, other); at >= 0 {
				marks := func(i int) bool { return courseDiffers(course[i:i+1], other[i:i+1]) >= 0 }
				return at, func() string {
					return showLanes(c.ops, marks, courseLane("course", course), courseLane(v.name, other))
				}, nil
			}
			continue
		}
		other, err := v.flink(t, c)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", v.name, err)
		}
		if at := flinkDiffers(fl, other); at >= 0 {
			marks := func(i int) bool { return flinkDiffers(fl[i:i+1], other[i:i+1]) >= 0 }
			return at, func() string {
				return showLanes(c.ops, marks, flinkLane("Flink", fl, false), flinkLane(v.name, other, false))
			}, nil
		}
	}
	return -1, nil, nil
}

// shrink returns a shortest-it-finds subsequence of ops on which fails
// still holds: it drops runs of calls, halving their length, while the
// difference stays.
func shrink[O any](ops []O, fails func([]O) bool) []O {
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

// sideBySide renders both sides call by call; with want (a changelog of
// Flink's steps), also the course's whole results and want, with the merges
// Flink reported.
func sideBySide(ops []windowtest.Op, course []courseStep, fl []flinkrun.Step, want [][]kit.Result) string {
	marks := func(i int) bool {
		var w [][]kit.Result
		if want != nil {
			w = want[i : i+1]
		}
		return differs(course[i:i+1], fl[i:i+1], w) >= 0
	}
	dedup := len(course) > 0 && course[0].dedup
	lanes := []lane{courseLane("course", course), flinkLane("Flink", fl, dedup)}
	if want != nil {
		full, changelog := lane{name: "course, in full"}, lane{name: "Flink's, as a changelog"}
		for i := range course {
			full.lines = append(full.lines, fmtResults(course[i].all))
			changelog.lines = append(changelog.lines, fmtResults(want[i])+fmtMerges(fl[i].Merges))
		}
		lanes = append(lanes, full, changelog)
	}
	return showLanes(ops, marks, lanes...)
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
		line := fmt.Sprintf("%-60s watermark %s%s%s", fmtResults(s.results), kit.FormatWatermark(s.wm), fmtLate(s.late),
			fmtDedup(s.dedup, s.dropped, s.remembered))
		if s.err != nil {
			line += "   error: " + s.err.Error()
		}
		l.lines = append(l.lines, line)
	}
	return l
}

// flinkLane renders a run of Flink: its results in the course's order, its
// watermark with the course's beside it, and with dedup what its dedup did.
func flinkLane(name string, steps []flinkrun.Step, dedup bool) lane {
	l := lane{name: name}
	for _, s := range steps {
		l.lines = append(l.lines, fmt.Sprintf("%-60s watermark %s%s%s", fmtResults(inCourseOrder(s.Results)), fmtFlinkWM(s.Watermark),
			fmtLate(courseEvents(s.Late)), fmtDedup(dedup, courseEvents(s.Dropped), s.Remembered)))
	}
	return l
}

// courseEvents returns Flink's events as kit.Events.
func courseEvents(es []flinkrun.Event) []kit.Event {
	out := make([]kit.Event, len(es))
	for i, e := range es {
		out[i] = kit.Event(e)
	}
	return out
}

// showLanes renders runs call by call, marking with ≠ the calls marked.
func showLanes(ops []windowtest.Op, marked func(i int) bool, lanes ...lane) string {
	calls := make([]string, len(ops))
	for i, o := range ops {
		calls[i] = opString(o)
	}
	return showCalls(calls, marked, lanes...)
}

// showCalls renders runs call by call, each call as calls says it, marking
// with ≠ the calls marked: showLanes for calls that are no windowtest.Op.
func showCalls(calls []string, marked func(i int) bool, lanes ...lane) string {
	width := 0
	for _, l := range lanes {
		width = max(width, len([]rune(l.name)))
	}
	var b strings.Builder
	for i, call := range calls {
		mark := " "
		if marked(i) {
			mark = "≠"
		}
		fmt.Fprintf(&b, "%s %2d  %s\n", mark, i+1, call)
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

// fmtMerges renders the merges of session windows Flink reported.
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

// fmtFlinkWM renders a Flink watermark, with the course's for it.
func fmtFlinkWM(fw int64) string {
	shown := kit.FormatWatermark(fw)
	if fw != math.MinInt64 && fw != math.MaxInt64 {
		shown += fmt.Sprintf(" (course's %d)", fw+1)
	}
	return shown
}

// fmtDedup renders what a dedup did on one call, when the case compares it.
func fmtDedup(shown bool, dropped []kit.Event, remembered int) string {
	if !shown {
		return ""
	}
	s := fmt.Sprintf("   %d IDs remembered", remembered)
	if len(dropped) > 0 {
		s = "   dropped as a redelivery" + s
	}
	return s
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
