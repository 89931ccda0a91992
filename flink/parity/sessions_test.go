//go:build flink

package parity

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestSessionWindowsMatchFlink checks stage 08 against Flink's
// EventTimeSessionWindows in its WindowOperator, with allowedLateness and
// sideOutputLateData and the watermark from upstream only (the session
// processor's comes from AdvanceWatermark alone): merging, touching windows
// included ([10,20) and [20,30) make [10,30)); firings; late events that
// extend a fired session or bridge two, within the lateness, which Flink
// fires merged at once; late events beyond it, to the side output; an
// expired session forgotten, so that a late event opens a new one beside
// it; duplicates; negative timestamps and the ends of the int64 range as
// far as Flink's arithmetic holds (docs/PARITY.md); and up to twenty keys.
//
// Flink emits each firing and never takes one back; the course's output is
// a changelog, which first retracts what a firing session supersedes. So
// every call is compared twice:
//
//   - Flink's firings against the course's results without its
//     retractions and with IsUpdate cleared (Flink's merging windows have
//     no per-window state to tell a late firing: the runner never marks
//     one), together with the side output and the watermark, as in every
//     window test;
//   - the course's whole results against the changelog that Flink's
//     firings make, retractions and updates included, derived by
//     sessionChangelog from the merges Flink's MergingWindowSet reports.
//
// The second comparison is what certifies the retractions. A firing
// replaces what downstream holds for exactly the windows that merged into
// the firing window since they last fired: Flink's own merges say which.
// Bounds alone cannot: a session that expired is forgotten, and a later
// session may cover it without replacing it (both are downstream, in the
// course and in Flink). Since the course's changelog equals the derived
// one, summing it per (Key, Start, End) leaves downstream holding exactly
// the latest firing of each of Flink's sessions, after every call.
func TestSessionWindowsMatchFlink(t *testing.T) {
	checkWindows(t, "stage 08, session windows", sessionCase)
}

// sessionCase returns a random session scenario: a gap, an allowed
// lateness (none in a quarter of them), and events over up to 41 gaps, so
// that keys have separate sessions as well as merged ones, delivered up to
// 8 gaps out of order, with an AdvanceWatermark about delay behind them
// before about every other event: late events extend and bridge fired
// sessions within the lateness, or go to the side output beyond it.
func sessionCase(r *seeded) windowCase {
	gap := r.size()
	delay := r.Int64N(3*gap + 1)
	var allowed int64
	if r.IntN(4) != 0 {
		allowed = r.Int64N(8*gap + 1)
	}
	cfg := solutions.SessionConfig{Gap: gap, AllowedLateness: allowed}
	ops := r.callsWith(gap, delay, allowed, callSpec{spread: 40, disorder: 8, every: 2, keys: r.sessionKeys})
	return windowCase{
		config: fmt.Sprintf("SessionConfig%+v, upstream watermarks about %d behind the events", cfg, delay),
		// No EventWatermarks: like the session processor, Flink's operator
		// sees only the watermarks the calls send.
		spec:      flinkrun.WindowSpec{Assigner: "session", Gap: gap, Lateness: allowed},
		newP:      func() windowtest.Processor { return must(solutions.NewSessionProcessor(cfg)) },
		ops:       r.atAnEdge(ops, gap, allowed),
		view:      firings,
		changelog: sessionChangelog,
	}
}

// sessionKeys returns a session scenario's keys: mostly one to four, as
// the window tests', so that sessions merge, and now and then twenty, so
// that many keys' sessions fire in one call and tie on (End, Start).
func (r *seeded) sessionKeys() []string {
	if r.IntN(4) != 0 {
		return r.keys()
	}
	keys := slices.Clone(keyPool)
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("s%d", i))
	}
	return keys
}

// atAnEdge now and then slides a whole scenario, events and watermarks, up
// or down the int64 range (a constant shift of event time changes nothing
// else) to the very edge of what Flink's sessions can hold: its latest
// event's own session then expires exactly at math.MaxInt64 (ts + Gap +
// AllowedLateness = math.MaxInt64), or its earliest event is at
// math.MinInt64 (math.MinInt64 + 1 when Gap is 1, whose session would end
// at math.MinInt64 + 1). Past either, Flink's arithmetic differs from the
// course's (docs/PARITY.md); short of them, every session is compared. A
// watermark pushed below math.MinInt64 becomes math.MinInt64, which moves
// nothing in either.
func (r *seeded) atAnEdge(ops []windowtest.Op, gap, allowed int64) []windowtest.Op {
	var d int64
	switch r.IntN(8) {
	case 0:
		d = math.MaxInt64 - gap - allowed - maxTS(ops)
	case 1:
		lowest := int64(math.MinInt64)
		if gap == 1 {
			lowest++
		}
		d = lowest - minTS(ops)
	default:
		return ops
	}
	out := slices.Clone(ops)
	for i, o := range out {
		switch o.Kind {
		case "process":
			out[i].Event.TS += d // within range: d moves the extreme event to the edge
		case "advance":
			if d < 0 && o.WM < math.MinInt64-d {
				out[i].WM = math.MinInt64
			} else {
				out[i].WM += d // at most a gap above the latest event: in range
			}
		}
	}
	return out
}

func maxTS(ops []windowtest.Op) int64 {
	m := int64(math.MinInt64)
	for _, e := range windowtest.EventsOf(ops) {
		m = max(m, e.TS)
	}
	return m
}

func minTS(ops []windowtest.Op) int64 {
	m := int64(math.MaxInt64)
	for _, e := range windowtest.EventsOf(ops) {
		m = min(m, e.TS)
	}
	return m
}

// firings is the view of a session call's results that Flink's can be
// compared with: the sessions it fires, without the retractions before
// them, and with IsUpdate cleared.
func firings(rs []kit.Result) []kit.Result {
	var out []kit.Result
	for _, r := range rs {
		if r.Count < 0 { // a retraction: no result has a count below 1
			continue
		}
		r.IsUpdate = false
		out = append(out, r)
	}
	return out
}

// A sessionWindow is a window of one key.
type sessionWindow struct {
	key        string
	start, end int64
}

// sessionChangelog returns, call by call, the changelog that Flink's
// session firings make, as the course writes one: each firing, in the
// course's (End, Start, Key) order, right after the retraction of every
// result downstream holds that it replaces (in ascending Start order, Count
// and Sum negated, IsUpdate true), and itself an update exactly when it
// replaces something. What it replaces follows from Flink's merges: a
// window's firing replaces its own last firing, and a merge's window
// inherits everything the windows it merged with would have replaced.
// Windows that expire are dropped from Flink's state unmerged, so what
// downstream holds of them is never replaced.
func sessionChangelog(fl []flinkrun.Step) [][]kit.Result {
	held := map[sessionWindow]kit.Result{} // downstream: the latest firing of each window
	// replaces holds, for each window in Flink's state, the fired windows
	// whose results its firing replaces.
	replaces := map[sessionWindow][]sessionWindow{}
	out := make([][]kit.Result, len(fl))
	for i, step := range fl {
		for _, m := range step.Merges {
			var old []sessionWindow
			for _, w := range m.With {
				from := sessionWindow{m.Key, w.Start, w.End}
				old = append(old, replaces[from]...)
				delete(replaces, from)
			}
			replaces[sessionWindow{m.Key, m.Into.Start, m.Into.End}] = old
		}
		for _, r := range inCourseOrder(step.Results) {
			w := sessionWindow{r.Key, r.Start, r.End}
			old := slices.SortedFunc(slices.Values(replaces[w]), func(a, b sessionWindow) int { return cmp.Compare(a.start, b.start) })
			for _, o := range old {
				h := held[o]
				out[i] = append(out[i], kit.Result{Key: h.Key, Start: h.Start, End: h.End, Count: -h.Count, Sum: -h.Sum, IsUpdate: true})
				delete(held, o)
			}
			r.IsUpdate = len(old) > 0
			out[i] = append(out[i], r)
			held[w] = r
			replaces[w] = []sessionWindow{w}
		}
	}
	return out
}
