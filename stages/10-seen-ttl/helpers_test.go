//go:build lab || solution

package seenttl

import (
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

// The event-time helpers of this suite are internal/windowtest's; ev, res
// and upd are short for its constructors. What this stage adds is below:
// the rule of forgetting as an oracle built on your stage 1 Processor, and
// a run that shows how many IDs are remembered.
var ev, res, upd = windowtest.Ev, windowtest.Res, windowtest.Upd

// newTTL returns NewSeenTTLProcessor(cfg, ttl); it stops the test if that
// rejects this valid config.
func newTTL(t testing.TB, cfg Config, ttl int64) *Processor {
	t.Helper()
	p, err := NewSeenTTLProcessor(cfg, ttl)
	if err != nil || p == nil {
		t.Fatalf("NewSeenTTLProcessor(%+v, %d) = %v, %v; want a processor: the config is valid and the TTL is not negative", cfg, ttl, p, err)
	}
	return p
}

// newPlain returns NewProcessor(cfg), the stage 1 processor that remembers
// every ID forever.
func newPlain(t testing.TB, cfg Config) *Processor {
	t.Helper()
	return windowtest.MustNew(t, NewProcessor, cfg)
}

// line returns the shortest seen TTL that keeps exactly-once results for
// cfg: WindowSize + AllowedLateness. An event at its window's start is then
// forgotten exactly when its window expires.
func line(cfg Config) int64 {
	return cfg.WindowSize + cfg.AllowedLateness
}

// expiryOf returns ts + ttl, or math.MaxInt64 if that overflows: the
// watermark that forgets an ID of an event at ts.
func expiryOf(ts, ttl int64) int64 {
	if ts > math.MaxInt64-ttl {
		return math.MaxInt64
	}
	return ts + ttl
}

// ruled is what the rule of forgetting predicts for a call sequence: what
// each call returns, the watermark after it, how many IDs are remembered
// after it, and the side output at the end.
type ruled struct {
	windowtest.Trace
	Remembered []int
}

// byTheRule returns what a processor with seen TTL ttl (positive) does over
// ops, by the rule stated on the card, computed with your stage 1 Processor
// that never forgets: a redelivery of an ID the rule has forgotten is handed
// to it under a fresh ID, so that it is an event like any other; every other
// event goes to it as it is. The rule itself is a map from each remembered
// ID to the watermark that forgets it: set when an event with that ID is
// taken as new, to its TS + ttl, and emptied of every ID whose watermark has
// come after each call.
func byTheRule(t testing.TB, cfg Config, ttl int64, ops []windowtest.Op) ruled {
	t.Helper()
	p := newPlain(t, cfg)
	used := map[string]bool{}
	for _, e := range windowtest.EventsOf(ops) {
		used[e.ID] = true
	}
	seen := map[string]bool{}
	forgetAt := map[string]int64{}
	renamed := map[string]kit.Event{} // fresh ID → the redelivery it stands for
	var out ruled
	for _, o := range ops {
		if o.Kind == "process" {
			e := o.Event
			if _, remembered := forgetAt[e.ID]; !remembered {
				if seen[e.ID] {
					fresh := e
					for n := 0; used[fresh.ID]; n++ {
						fresh.ID = fmt.Sprintf("%s (forgotten, delivery %d)", e.ID, n)
					}
					used[fresh.ID], renamed[fresh.ID] = true, e
					o = windowtest.ProcessOp(fresh)
				}
				seen[e.ID] = true
				forgetAt[e.ID] = expiryOf(e.TS, ttl)
			}
		}
		out.Outs = append(out.Outs, o.Apply(p))
		wm := p.Watermark()
		out.WMs = append(out.WMs, wm)
		for id, at := range forgetAt {
			if wm >= at {
				delete(forgetAt, id)
			}
		}
		out.Remembered = append(out.Remembered, len(forgetAt))
	}
	for _, e := range p.Late() {
		if orig, ok := renamed[e.ID]; ok {
			e = orig
		}
		out.Late = append(out.Late, e)
	}
	out.WM = p.Watermark()
	return out
}

// replayCounting makes the calls ops on p and returns what it did, with
// RememberedIDs after each call.
func replayCounting(p *Processor, ops []windowtest.Op) ruled {
	var out ruled
	for _, o := range ops {
		out.Outs = append(out.Outs, o.Apply(p))
		out.WMs = append(out.WMs, p.Watermark())
		out.Remembered = append(out.Remembered, p.RememberedIDs())
	}
	out.Late, out.WM = p.Late(), p.Watermark()
	return out
}

// firstDiff describes the first call of ops after which got and want
// differ (results, watermark or remembered IDs), or the side outputs if
// only they differ; "" if they agree. offset numbers the calls when ops is
// the rest of a longer run. It also returns got up to that call, all of it
// when only the side outputs differ: what a picture of the failure draws.
func firstDiff(ops []windowtest.Op, offset int, got, want ruled) (string, windowtest.Trace) {
	upTo := func(i int) windowtest.Trace {
		return windowtest.Trace{Outs: got.Outs[:i+1], WMs: got.WMs[:i+1], Late: got.Late}
	}
	for i := range ops {
		n := fmt.Sprintf("call %d, %v,", offset+i+1, ops[i])
		switch {
		case !slices.Equal(got.Outs[i], want.Outs[i]):
			return fmt.Sprintf("%s returned\n%s\nwant\n%s", n, windowtest.FmtResults(got.Outs[i]), windowtest.FmtResults(want.Outs[i])), upTo(i)
		case got.WMs[i] != want.WMs[i]:
			return fmt.Sprintf("after %s Watermark() = %s, want %s", n, kit.FormatWatermark(got.WMs[i]), kit.FormatWatermark(want.WMs[i])), upTo(i)
		case got.Remembered[i] != want.Remembered[i]:
			return fmt.Sprintf("after %s RememberedIDs() = %d, want %d (watermark %s)", n, got.Remembered[i], want.Remembered[i], kit.FormatWatermark(want.WMs[i])), upTo(i)
		}
	}
	if !slices.Equal(got.Late, want.Late) {
		return fmt.Sprintf("Late() = %s\nwant      %s", windowtest.FmtEvents(got.Late), windowtest.FmtEvents(want.Late)), got.Trace
	}
	return "", got.Trace
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg Config) picture.Windows {
	return picture.Windows{Size: cfg.WindowSize, Lateness: cfg.AllowedLateness}
}

// oracleKeys are the keys of the seeded runs.
var oracleKeys = []string{"a", "b", "c", "zz"}

// ruleConfigs are the configs of the seeded runs: with and without allowed
// lateness and watermark delay, so that the line WindowSize +
// AllowedLateness is met with fired-but-open windows and without.
var ruleConfigs = []Config{
	{WindowSize: 10, WatermarkDelay: 0, AllowedLateness: 0},
	{WindowSize: 10, WatermarkDelay: 6, AllowedLateness: 0},
	{WindowSize: 10, WatermarkDelay: 6, AllowedLateness: 15},
	{WindowSize: 7, WatermarkDelay: 2, AllowedLateness: 30},
}

// randomOps returns a seeded call sequence (windowtest.RandomOps) of n
// events for cfg, with disorder up to the delay plus two windows: late
// events, corrections, redeliveries long after their window, a few
// AdvanceWatermark calls, Flush, then a redelivery and an event after the
// end.
func randomOps(rnd *rand.Rand, cfg Config, n int) []windowtest.Op {
	return windowtest.RandomOps(rnd, oracleKeys, n, cfg.WindowSize, cfg.WatermarkDelay, cfg.WatermarkDelay+2*cfg.WindowSize)
}

// run drives one processor through a hand-written scenario, as
// windowtest.Run does, and also notes RememberedIDs after each call, which
// the picture of a failure shows.
type run struct {
	*windowtest.Run
	t     testing.TB
	p     *Processor
	cfg   Config
	ttl   int64
	notes []string
}

// newRun returns a run on a new processor with seen TTL ttl.
func newRun(t testing.TB, cfg Config, ttl int64) *run {
	t.Helper()
	p := newTTL(t, cfg, ttl)
	return &run{Run: windowtest.NewRun(t, p, cfg.WindowSize, cfg.AllowedLateness), t: t, p: p, cfg: cfg, ttl: ttl}
}

// checkpoint snapshots the processor and carries on with one restored from
// the snapshot, as a job does after a crash.
func (r *run) checkpoint() {
	r.t.Helper()
	r.p = restoreOf(r.t, snapshotOf(r.t, r.p))
	r.Restored(r.p)
}

// note records a call and what RememberedIDs said after it.
func (r *run) note(call string) {
	r.notes = append(r.notes, fmt.Sprintf("  %-36s → watermark %s, RememberedIDs() = %d", call, kit.FormatWatermark(r.p.Watermark()), r.p.RememberedIDs()))
}

// Process hands e to Process, notes the call and returns what it returned.
func (r *run) Process(e kit.Event) []kit.Result {
	out := r.Run.Process(e)
	r.note(fmt.Sprintf("Process(%v)", e))
	return out
}

// Advance calls AdvanceWatermark(wm), notes it and returns what it returned.
func (r *run) Advance(wm int64) []kit.Result {
	out := r.Run.Advance(wm)
	r.note(fmt.Sprintf("AdvanceWatermark(%s)", kit.FormatWatermark(wm)))
	return out
}

// Flush calls Flush, notes it and returns what it returned.
func (r *run) Flush() []kit.Result {
	out := r.Run.Flush()
	r.note("Flush()")
	return out
}

// calls lists the config and each call of the run with the watermark and
// the remembered IDs after it, for the end of a failure's timeline.
func (r *run) calls() string {
	return fmt.Sprintf("windows of %d, delay %d, allowed lateness %d, seen TTL %d (the line is WindowSize + AllowedLateness = %d); the calls:\n%s\n",
		r.cfg.WindowSize, r.cfg.WatermarkDelay, r.cfg.AllowedLateness, r.ttl, line(r.cfg), strings.Join(r.notes, "\n"))
}

// Expect fails the test unless got equals want (nil and empty are the
// same), naming the call, saying why want is right and drawing the run.
func (r *run) Expect(call string, got, want []kit.Result, why string) {
	r.t.Helper()
	if slices.Equal(got, want) {
		return
	}
	msg := fmt.Sprintf("%s returned\n%s\nwant\n%s\n%s", call, windowtest.FmtResults(got), windowtest.FmtResults(want), why)
	r.t.Errorf("%s", r.Failure(msg, got, want, r.calls()))
}

// ExpectRemembered fails the test unless RememberedIDs() is want.
func (r *run) ExpectRemembered(want int, why string) {
	r.t.Helper()
	if got := r.p.RememberedIDs(); got != want {
		r.t.Errorf("%s", r.Report(fmt.Sprintf("RememberedIDs() = %d, want %d\n%s", got, want, why), r.calls()))
	}
}

// ExpectLate fails the test unless Late() is exactly want
// (windowtest.Run.ExpectLate, with the calls).
func (r *run) ExpectLate(want []kit.Event, why string) {
	r.t.Helper()
	r.Run.ExpectLate(want, why, r.calls())
}

// snapshotOf returns p.Snapshot(); it stops the test if Snapshot fails or
// returns too few bytes to be a framed snapshot.
func snapshotOf(t testing.TB, p *Processor) []byte {
	t.Helper()
	b, err := p.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot() returned the error %v; want the processor's state: encoding state in memory cannot fail", err)
	}
	if len(b) < 5 {
		t.Fatalf("Snapshot() returned %d bytes (%q); want the state: even a new processor has a config and a watermark to save", len(b), b)
	}
	return b
}

// restoreOf returns RestoreProcessor(snap) for a snapshot that Snapshot
// returned; it stops the test if that fails.
func restoreOf(t testing.TB, snap []byte) *Processor {
	t.Helper()
	p, err := RestoreProcessor(snap)
	if err != nil || p == nil {
		t.Fatalf("RestoreProcessor(a %d-byte snapshot that Snapshot returned) = %v, %v; want a processor and no error", len(snap), p, err)
	}
	return p
}
