//go:build lab || solution

package sliding

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The event-time helpers of this suite are internal/windowtest's; ev, res
// and upd are short for its constructors. What this stage adds is below:
// an oracle of which windows hold a timestamp, the naive oracle of a whole
// run, and a run that draws each event's sliding windows.
var ev, res, upd = windowtest.Ev, windowtest.Res, windowtest.Upd

// newSliding returns a new SlidingProcessor for cfg; it stops the test if
// NewSlidingProcessor rejects this valid config.
func newSliding(t testing.TB, cfg SlidingConfig) *SlidingProcessor {
	t.Helper()
	return windowtest.MustNew(t, NewSlidingProcessor, cfg)
}

// windowsOf returns the starts of the windows of size, one every slide,
// that hold ts, latest first: every multiple s of slide with
// ts − size < s ≤ ts that fits in an int64. It counts in math/big, apart
// from any int64 arithmetic a processor might get wrong.
func windowsOf(ts, size, slide int64) []int64 {
	bt, bs, bl := big.NewInt(ts), big.NewInt(size), big.NewInt(slide)
	// Div is Euclidean division: for a positive divisor it floors.
	hi := new(big.Int).Div(bt, bl)                          // the last k with k·slide ≤ ts
	lo := new(big.Int).Div(new(big.Int).Sub(bt, bs), bl)    // the last k with k·slide ≤ ts − size
	minK := new(big.Int).Div(big.NewInt(math.MinInt64), bl) // k·slide ≥ MinInt64 from here up…
	if new(big.Int).Mul(minK, bl).Cmp(big.NewInt(math.MinInt64)) < 0 {
		minK.Add(minK, big.NewInt(1)) // …once rounded up
	}
	var starts []int64
	for k := new(big.Int).Set(hi); k.Cmp(lo) > 0 && k.Cmp(minK) >= 0; k.Sub(k, big.NewInt(1)) {
		starts = append(starts, new(big.Int).Mul(k, bl).Int64())
	}
	return starts
}

// naiveResults is the oracle of a whole bounded input with nothing late:
// each event, once per ID (the first delivery), added to every window that
// holds it, then every window's results in (End, Start, Key) order.
func naiveResults(events []kit.Event, size, slide int64) []kit.Result {
	type cell struct {
		key   string
		start int64
	}
	tallies := map[cell]*kit.Result{}
	seen := map[string]bool{}
	for _, e := range events {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		for _, s := range windowsOf(e.TS, size, slide) {
			c := cell{e.Key, s}
			r, ok := tallies[c]
			if !ok {
				r = &kit.Result{Key: e.Key, Start: s, End: s + size}
				tallies[c] = r
			}
			r.Count++
			r.Sum += e.Value
		}
	}
	out := make([]kit.Result, 0, len(tallies))
	for _, r := range tallies {
		out = append(out, *r)
	}
	return kit.SortResults(out)
}

// run drives one SlidingProcessor through a hand-written scenario, as
// windowtest.Run does, and draws each event's sliding windows under the
// timeline when a check fails: the timeline itself draws no windows, since
// sliding windows overlap.
type run struct {
	*windowtest.Run
	t      testing.TB
	cfg    SlidingConfig
	events []kit.Event
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg SlidingConfig) picture.Windows {
	return picture.Windows{Size: cfg.Size, Slide: cfg.Slide, Lateness: cfg.AllowedLateness}
}

// newRun returns a run on a new SlidingProcessor for cfg.
func newRun(t testing.TB, cfg SlidingConfig) *run {
	t.Helper()
	r := &run{Run: windowtest.NewRun(t, newSliding(t, cfg), 0, cfg.AllowedLateness), t: t, cfg: cfg}
	r.SetWindows(pictureWindows(cfg))
	return r
}

// Process hands e to Process and returns what it returned.
func (r *run) Process(e kit.Event) []kit.Result {
	r.events = append(r.events, e)
	return r.Run.Process(e)
}

// ProcessAll hands every event to Process, in order, and returns
// everything emitted.
func (r *run) ProcessAll(events ...kit.Event) []kit.Result {
	var out []kit.Result
	for _, e := range events {
		out = append(out, r.Process(e)...)
	}
	return out
}

// eventWindows lists the sliding windows of each event of the run.
func (r *run) eventWindows() string {
	var b strings.Builder
	fmt.Fprintf(&b, "windows of size %d every %d (delay %d, allowed lateness %d), per event:\n",
		r.cfg.Size, r.cfg.Slide, r.cfg.WatermarkDelay, r.cfg.AllowedLateness)
	for i, e := range r.events {
		var ws []string
		for _, s := range windowsOf(e.TS, r.cfg.Size, r.cfg.Slide) {
			ws = append(ws, fmt.Sprintf("[%d,%d)", s, s+r.cfg.Size))
		}
		if len(ws) == 0 {
			ws = []string{"none: it falls in a gap between windows"}
		}
		fmt.Fprintf(&b, "  %2d. %v → %s\n", i+1, e, strings.Join(ws, " "))
	}
	return b.String()
}

// Expect fails the test unless got equals want (nil and empty are the
// same), naming the call, saying why want is right and drawing the run.
func (r *run) Expect(call string, got, want []kit.Result, why string) {
	r.t.Helper()
	if slices.Equal(got, want) {
		return
	}
	msg := fmt.Sprintf("%s returned\n%s\nwant\n%s\n%s", call, windowtest.FmtResults(got), windowtest.FmtResults(want), why)
	r.t.Errorf("%s", r.Failure(msg, got, want, r.eventWindows()))
}

// ExpectLate fails the test unless the processor's Late() is exactly want.
func (r *run) ExpectLate(want []kit.Event, why string) {
	r.t.Helper()
	r.Run.ExpectLate(want, why, r.eventWindows())
}

// ExpectWatermark fails the test unless the processor's Watermark() is want.
func (r *run) ExpectWatermark(want int64, why string) {
	r.t.Helper()
	r.Run.ExpectWatermark(want, why, r.eventWindows())
}

// snapshotOf returns s.Snapshot(); it stops the test if Snapshot fails or
// returns too few bytes to be a framed snapshot.
func snapshotOf(t testing.TB, s *SlidingProcessor) []byte {
	t.Helper()
	b, err := s.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot() returned the error %v; want the processor's state: encoding state in memory cannot fail", err)
	}
	if len(b) < 5 {
		t.Fatalf("Snapshot() returned %d bytes (%q); want the state: even a new processor has a config and a watermark to save", len(b), b)
	}
	return b
}

// restoreOf returns RestoreSlidingProcessor(snap) for a snapshot that
// Snapshot returned; it stops the test if that fails.
func restoreOf(t testing.TB, snap []byte) *SlidingProcessor {
	t.Helper()
	s, err := RestoreSlidingProcessor(snap)
	if err != nil || s == nil {
		t.Fatalf("RestoreSlidingProcessor(a %d-byte snapshot that Snapshot returned) = %v, %v; want a processor and no error", len(snap), s, err)
	}
	return s
}

// replay makes the calls ops on a new processor for cfg and returns what it
// did: the uninterrupted run.
func replay(t testing.TB, cfg SlidingConfig, ops []windowtest.Op) windowtest.Trace {
	t.Helper()
	return windowtest.Replay(newSliding(t, cfg), ops)
}

// oracleKeys are the keys of the seeded runs.
var oracleKeys = []string{"a", "b", "c", "zz"}

// randomOps returns a seeded call sequence (windowtest.RandomOps) of 60
// events for windows of size and the watermark delay, with disorder up to
// bound (above the delay, some events are late: corrections within the
// allowed lateness, side output beyond it), redeliveries, a few
// AdvanceWatermark calls, Flush, then a redelivery and an event after the
// end.
func randomOps(rnd *rand.Rand, size, delay, bound int64) []windowtest.Op {
	return windowtest.RandomOps(rnd, oracleKeys, 60, size, delay, bound)
}

// firstCallDiff describes the first call of ops where got and want differ,
// or the side outputs if only they differ; "" if the traces are equal. It
// also returns got up to that call, all of it when only the side outputs
// differ: what a picture of the failure draws.
func firstCallDiff(ops []windowtest.Op, got, want windowtest.Trace) (string, windowtest.Trace) {
	for i := range ops {
		if !slices.Equal(got.Outs[i], want.Outs[i]) {
			upTo := windowtest.Trace{Outs: got.Outs[:i+1], WMs: got.WMs[:i+1], Late: got.Late}
			return fmt.Sprintf("call %d of %d, %v, returned\n%s\nwant\n%s", i+1, len(ops), ops[i],
				windowtest.FmtResults(got.Outs[i]), windowtest.FmtResults(want.Outs[i])), upTo
		}
	}
	if !slices.Equal(got.Late, want.Late) {
		return fmt.Sprintf("Late() = %s\nwant      %s", windowtest.FmtEvents(got.Late), windowtest.FmtEvents(want.Late)), got
	}
	return "", got
}
