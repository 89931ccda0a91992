//go:build lab || solution

package lateness

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/kit"
)

// The helpers below mirror stage 01's (a test package cannot import
// another's test files), plus what this stage adds: updates and the
// per-(key, window) history of what was emitted.

// ev returns the event id key@ts=value.
func ev(id, key string, ts, value int64) kit.Event {
	return kit.Event{ID: id, Key: key, TS: ts, Value: value}
}

// res returns the first (non-update) result of key in [start, end).
func res(key string, start, end, count, sum int64) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum}
}

// upd returns a correction (IsUpdate) of key's result in [start, end).
func upd(key string, start, end, count, sum int64) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum, IsUpdate: true}
}

// run drives one Processor and records what went in and what came out, so
// that a failing test can draw the timeline of what happened.
type run struct {
	t       *testing.T
	cfg     Config
	p       *Processor
	events  []kit.Event  // every event handed to Process, in arrival order
	emitted []kit.Result // every result returned, in emission order
}

// newRun returns a run on a new Processor for cfg; it stops the test if
// NewProcessor rejects this valid config.
func newRun(t *testing.T, cfg Config) *run {
	t.Helper()
	p, err := NewProcessor(cfg)
	if err != nil || p == nil {
		t.Fatalf("NewProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, p, err)
	}
	return &run{t: t, cfg: cfg, p: p}
}

// process hands e to Process and returns what it returned.
func (r *run) process(e kit.Event) []kit.Result {
	r.events = append(r.events, e)
	out := r.p.Process(e)
	r.emitted = append(r.emitted, out...)
	return out
}

// advance calls AdvanceWatermark(wm) and returns what it returned.
func (r *run) advance(wm int64) []kit.Result {
	out := r.p.AdvanceWatermark(wm)
	r.emitted = append(r.emitted, out...)
	return out
}

// flush calls Flush and returns what it returned.
func (r *run) flush() []kit.Result {
	out := r.p.Flush()
	r.emitted = append(r.emitted, out...)
	return out
}

// timeline draws the run so far. It reads Watermark and Late, but a panic
// there (a TODO) only blanks that part of the picture.
func (r *run) timeline() string {
	return kit.Timeline{
		WindowSize: r.cfg.WindowSize,
		Lateness:   r.cfg.AllowedLateness,
		Events:     r.events,
		Watermark:  watermarkOrNone(r.p),
		Results:    r.emitted,
		Late:       lateOrNone(r.p),
	}.String()
}

// expect fails the test unless got equals want, naming the call, saying why
// want is right, and drawing the timeline.
func (r *run) expect(call string, got, want []kit.Result, why string) {
	r.t.Helper()
	if slices.Equal(got, want) {
		return
	}
	r.t.Errorf("%s returned\n%s\nwant\n%s\n%s%s\n\n%s", call, fmtResults(got), fmtResults(want), why, updateHint(got, want), r.timeline())
}

// expectLate fails the test unless the side output is exactly want.
func (r *run) expectLate(want []kit.Event, why string) {
	r.t.Helper()
	if got := r.p.Late(); !slices.Equal(got, want) {
		r.t.Errorf("Late() = %s\nwant      %s\n%s\n\n%s", fmtEvents(got), fmtEvents(want), why, r.timeline())
	}
}

// updateHint explains a difference in IsUpdate alone, the easiest one to
// miss when reading two lists of results.
func updateHint(got, want []kit.Result) string {
	if len(got) != len(want) {
		return ""
	}
	for i := range got {
		g, w := got[i], want[i]
		if g == w {
			continue
		}
		g.IsUpdate = w.IsUpdate
		if g != w {
			return ""
		}
	}
	for i := range got {
		if got[i].IsUpdate == want[i].IsUpdate {
			continue
		}
		if want[i].IsUpdate {
			return fmt.Sprintf("\nOnly IsUpdate differs: %v re-emits a (key, window) that was emitted before, so it is an update.", want[i])
		}
		return fmt.Sprintf("\nOnly IsUpdate differs: %v is the FIRST result of its (key, window), and a first result is never an update.", want[i])
	}
	return ""
}

// watermarkOrNone returns p.Watermark(), or math.MinInt64 if it panics.
func watermarkOrNone(p *Processor) (wm int64) {
	defer func() {
		if recover() != nil {
			wm = math.MinInt64
		}
	}()
	return p.Watermark()
}

// lateOrNone returns p.Late(), or nothing if it panics.
func lateOrNone(p *Processor) (late []kit.Event) {
	defer func() {
		if recover() != nil {
			late = nil
		}
	}()
	return p.Late()
}

// fmtResults renders results one per line, or "  (nothing)".
func fmtResults(rs []kit.Result) string {
	if len(rs) == 0 {
		return "  (nothing)"
	}
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = "  " + r.String()
	}
	return strings.Join(lines, "\n")
}

// fmtEvents renders events on one line, or "(none)"; past ten it says
// how many more there are.
func fmtEvents(es []kit.Event) string {
	if len(es) == 0 {
		return "(none)"
	}
	var parts []string
	for i, e := range es {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("… %d more", len(es)-i))
			break
		}
		parts = append(parts, e.String())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// floorStart is the start of the tumbling window of size size holding ts,
// computed independently of the code under test.
func floorStart(ts, size int64) int64 {
	return ts - ((ts%size)+size)%size
}

// windowKey names one (key, window) pair: the unit a result describes and
// an update replaces.
type windowKey struct {
	key        string
	start, end int64
}

func (w windowKey) String() string { return fmt.Sprintf("%s [%d,%d)", w.key, w.start, w.end) }

// keyOf returns the (key, window) that r describes.
func keyOf(r kit.Result) windowKey { return windowKey{r.Key, r.Start, r.End} }

// inOrderFold is the oracle: the final result of every (key, window) of a
// bounded input with no late events, counting each event ID once, as
// first (non-update) results sorted by (End, Start, Key).
func inOrderFold(events []kit.Event, size int64) []kit.Result {
	seen := map[string]bool{}
	acc := map[windowKey]*kit.Result{}
	var order []windowKey
	for _, e := range events {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		start := floorStart(e.TS, size)
		k := windowKey{e.Key, start, start + size}
		r := acc[k]
		if r == nil {
			r = &kit.Result{Key: e.Key, Start: k.start, End: k.end}
			acc[k] = r
			order = append(order, k)
		}
		r.Count++
		r.Sum += e.Value
	}
	out := make([]kit.Result, 0, len(order))
	for _, k := range order {
		out = append(out, *acc[k])
	}
	return kit.SortResults(out)
}

// histories groups emitted results by (key, window), each group in
// emission order, and returns the groups' keys in first-emission order.
func histories(emitted []kit.Result) (map[windowKey][]kit.Result, []windowKey) {
	h := map[windowKey][]kit.Result{}
	var order []windowKey
	for _, r := range emitted {
		k := keyOf(r)
		if _, ok := h[k]; !ok {
			order = append(order, k)
		}
		h[k] = append(h[k], r)
	}
	return h, order
}

// finalResults returns the last result emitted for each (key, window), as
// a consumer that upserts by (key, window) ends up holding it, with
// IsUpdate cleared, sorted by (End, Start, Key).
func finalResults(emitted []kit.Result) []kit.Result {
	h, order := histories(emitted)
	out := make([]kit.Result, 0, len(order))
	for _, k := range order {
		last := h[k][len(h[k])-1]
		last.IsUpdate = false
		out = append(out, last)
	}
	return kit.SortResults(out)
}

// diffResults describes how got differs from want, both sorted: the
// results missing from got, then the unexpected ones.
func diffResults(got, want []kit.Result) string {
	count := map[kit.Result]int{}
	for _, r := range want {
		count[r]++
	}
	var extra []kit.Result
	for _, r := range got {
		if count[r] > 0 {
			count[r]--
			continue
		}
		extra = append(extra, r)
	}
	var missing []kit.Result
	for _, r := range want {
		if count[r] > 0 {
			count[r]--
			missing = append(missing, r)
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "missing (expected, not emitted):\n%s\n", fmtResults(missing))
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, "unexpected (emitted, not expected):\n%s\n", fmtResults(extra))
	}
	return b.String()
}

// firstDifference returns the window [start, end) of the first result that
// differs between got and want (both sorted), for a focused timeline.
func firstDifference(got, want []kit.Result) (start, end int64, ok bool) {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return want[i].Start, want[i].End, true
		case i >= len(want), got[i] != want[i]:
			return got[i].Start, got[i].End, true
		}
	}
	return 0, 0, false
}

// windowTimeline draws only the events and results of window [start, end),
// in arrival and emission order: a focused view of a long run.
func windowTimeline(cfg Config, events []kit.Event, emitted []kit.Result, late []kit.Event, wm, start, end int64) string {
	in := func(e kit.Event) bool { return e.TS >= start && e.TS < end }
	tl := kit.Timeline{WindowSize: cfg.WindowSize, Lateness: cfg.AllowedLateness, Watermark: wm}
	for _, e := range events {
		if in(e) {
			tl.Events = append(tl.Events, e)
		}
	}
	for _, r := range emitted {
		if r.Start == start && r.End == end {
			tl.Results = append(tl.Results, r)
		}
	}
	for _, e := range late {
		if in(e) {
			tl.Late = append(tl.Late, e)
		}
	}
	return fmt.Sprintf("only window [%d,%d), arrival order:\n%s", start, end, tl.String())
}
