//go:build lab || solution

package checkpoint

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The event-time helpers of this suite are internal/windowtest's, shared
// with the other stages' suites; ev, res and upd are short for its
// constructors. What this stage adds is below: snapshots, replayable call
// sequences, restore-and-continue runs, and sessions that checkpoint.
var ev, res, upd = windowtest.Ev, windowtest.Res, windowtest.Upd

// newProcessor returns a new Processor for cfg; it stops the test if
// NewProcessor rejects this valid config.
func newProcessor(t testing.TB, cfg Config) *Processor {
	t.Helper()
	return windowtest.MustNew(t, NewProcessor, cfg)
}

// snapshotOf returns p.Snapshot(); it stops the test if Snapshot fails or
// returns no bytes.
func snapshotOf(t testing.TB, p *Processor) []byte {
	t.Helper()
	b, err := p.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot() returned the error %v; want the processor's state: encoding state in memory cannot fail", err)
	}
	if len(b) < 5 {
		t.Fatalf("Snapshot() returned %d bytes (%q); a snapshot begins with \"FLKS\" and a version byte", len(b), b)
	}
	return b
}

// restoreOf returns RestoreProcessor(snap) for a snapshot that Snapshot
// returned; it stops the test if that fails.
func restoreOf(t testing.TB, snap []byte) *Processor {
	t.Helper()
	p, err := RestoreProcessor(snap)
	if err != nil || p == nil {
		t.Fatalf("RestoreProcessor(a %d-byte snapshot that Snapshot returned) = %v, %v; want a processor and no error",
			len(snap), p, err)
	}
	return p
}

// tryRestore calls RestoreProcessor(input) and returns what it returned,
// or the value it panicked with and where (suite.Catch). A skeleton's
// "TODO" panic is passed on, so that suite.Recover reports the test as not
// implemented yet.
func tryRestore(input []byte) (p *Processor, err error, panicked string) {
	panicked = suite.Catch(func() { p, err = RestoreProcessor(input) })
	return p, err, panicked
}

// expectRestoreError fails t unless RestoreProcessor(input) returns a nil
// Processor and an error, without panicking. what names the input, why
// says why it must be rejected. It returns the error, or nil after failing t.
func expectRestoreError(t testing.TB, what string, input []byte, why string) error {
	t.Helper()
	p, err, panicked := tryRestore(input)
	switch {
	case panicked != "":
		t.Errorf("RestoreProcessor(%s) panicked: %v\nIt must return an error, not panic: a snapshot comes from a file that may be\n"+
			"truncated, corrupted or not a snapshot at all, and a job that crashes while recovering never recovers.\n"+
			"Check every length against the bytes left before slicing.\n%s", what, panicked, suite.HexHead(input))
		return nil
	case err == nil:
		t.Errorf("RestoreProcessor(%s) returned a processor and no error; want an error: %s\n%s", what, why, suite.HexHead(input))
		return nil
	case p != nil:
		t.Errorf("RestoreProcessor(%s) returned the error %q AND a processor; on error, return nil: half-restored state\n"+
			"must not be usable by mistake", what, err)
	}
	return err
}

// The call sequences and traces of windowtest, under this suite's names.
type (
	op    = windowtest.Op
	trace = windowtest.Trace
)

var (
	runOps, eventsOf, emitted = windowtest.Replay, windowtest.EventsOf, windowtest.Emitted
)

// genOps returns windowtest.RandomOps for cfg, over keys a to d.
func genOps(r *rand.Rand, cfg Config, n int, bound int64) []op {
	return windowtest.RandomOps(r, []string{"a", "b", "c", "d"}, n, cfg.WindowSize, cfg.WatermarkDelay, bound)
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg Config) picture.Windows {
	return picture.Windows{Size: cfg.WindowSize, Lateness: cfg.AllowedLateness}
}

// fmtResults renders results one per line, or "  (nothing)"; past twelve
// it says how many more there are.
func fmtResults(rs []kit.Result) string { return windowtest.FmtResultsUpTo(rs, 12) }

// cutRun is a restore-and-continue run to check against the uninterrupted
// run of the same calls: the processor is snapshotted after the first Cut
// calls and restored, and the restored processor makes the rest.
type cutRun struct {
	Cut         int            // calls made before the snapshot
	LateAtCut   []kit.Event    // Late() of the snapshotted processor
	WMAtCut     int64          // Watermark() of the snapshotted processor
	WMRestored  int64          // Watermark() right after RestoreProcessor
	Continued   trace          // what the restored processor did with ops[Cut:]
	SnapshotLen int            // size of the snapshot, for messages
	Where       string         // "in this process" or "in a fresh process"
	PrefixOuts  [][]kit.Result // what the first Cut calls returned
}

// checkCutRun fails t unless c continued exactly as the uninterrupted run
// full of ops did, and says what went wrong and why it matters.
func checkCutRun(t *testing.T, cfg Config, ops []op, full trace, c cutRun) bool {
	t.Helper()
	head := fmt.Sprintf("Config %+v, %d calls; snapshot after call %d of %d (%d bytes), restored %s.\n",
		cfg, len(ops), c.Cut, len(ops), c.SnapshotLen, c.Where)
	w := pictureWindows(cfg)
	cut := windowtest.Cut{Ops: ops, Full: full, At: c.Cut, LateAtCut: c.LateAtCut, Cont: c.Continued}
	if c.WMRestored != c.WMAtCut {
		msg := fmt.Sprintf("%sWatermark() of the restored processor is %s, the snapshotted processor's was %s.\n"+
			"The watermark is state: without it, windows that fired before the snapshot fire again, and events\n"+
			"that were late are counted. Save the watermark itself (AdvanceWatermark may have raised it above\n"+
			"max timestamp − delay), not only what you derive it from.",
			head, kit.FormatWatermark(c.WMRestored), kit.FormatWatermark(c.WMAtCut))
		t.Errorf("%s%s", msg, cut.Picture(t, msg, w))
		return false
	}
	for i, got := range c.Continued.Outs {
		at := c.Cut + i
		want := full.Outs[at]
		if slices.Equal(got, want) {
			continue
		}
		msg := fmt.Sprintf("%sAfter the restore, call %d %v returned\n%s\nthe uninterrupted run returned\n%s",
			head, at+1, ops[at], fmtResults(got), fmtResults(want))
		cut.Cont = trace{Outs: c.Continued.Outs[:i+1], WMs: c.Continued.WMs[:i+1], Late: c.Continued.Late}
		t.Errorf("%s\n%s\n\n%s%s", msg, explainDivergence(c, ops, at, got, want), cutTimeline(cfg, ops, c, at, got, want),
			cut.Picture(t, msg, w))
		return false
	}
	late := append(slices.Clone(c.LateAtCut), c.Continued.Late...)
	if !slices.Equal(late, full.Late) {
		msg := fmt.Sprintf("%sLate() before the snapshot: %s\nLate() of the restored processor: %s\nthe uninterrupted run's Late(): %s\n%s",
			head, windowtest.FmtEvents(c.LateAtCut), windowtest.FmtEvents(c.Continued.Late), windowtest.FmtEvents(full.Late), explainLate(c, ops, late, full.Late))
		t.Errorf("%s%s", msg, cut.Picture(t, msg, w))
		return false
	}
	if c.Continued.WM != full.WM {
		msg := fmt.Sprintf("%sWatermark() at the end is %s, the uninterrupted run's is %s", head, kit.FormatWatermark(c.Continued.WM), kit.FormatWatermark(full.WM))
		t.Errorf("%s%s", msg, cut.Picture(t, msg, w))
		return false
	}
	return true
}

// firstDelivery returns the index of the first call among ops[:before]
// that processed an event with this ID, or -1.
func firstDelivery(ops []op, before int, id string) int {
	return slices.IndexFunc(ops[:before], func(o op) bool { return o.Kind == "process" && o.Event.ID == id })
}

// seenMessage explains a redelivery that was not a no-op after a restore.
func seenMessage(ops []op, cut, first int, id string) string {
	when := "before the snapshot"
	if first >= cut {
		when = "after the restore"
	}
	return fmt.Sprintf("%s was already delivered at call %d (%s), so this redelivery must be a no-op.\n"+
		"Seen IDs are state, late ones included: after a crash the source replays from its checkpointed\n"+
		"offset, and the processor must still recognise what it has seen.", kit.ShowString(id), first+1, when)
}

// explainDivergence guesses, from how call at went wrong after the
// restore, which piece of state the snapshot lost.
func explainDivergence(c cutRun, ops []op, at int, got, want []kit.Result) string {
	if o := ops[at]; o.Kind == "process" && len(want) == 0 {
		if first := firstDelivery(ops, at, o.Event.ID); first >= 0 {
			return seenMessage(ops, c.Cut, first, o.Event.ID)
		}
	}
	before := emitted(c.PrefixOuts)
	for _, g := range got {
		if g.IsUpdate || slices.Contains(want, g) {
			continue
		}
		for _, b := range before {
			if b.Key == g.Key && b.Start == g.Start && b.End == g.End {
				return fmt.Sprintf("%v is a first result, but window [%d,%d) of %s had already fired before the snapshot (%v).\n"+
					"Whether a window has fired is state: a restored processor must never emit a window's first result\n"+
					"twice, and a late event for a fired window must re-fire it as an update.", g, g.Start, g.End, kit.ShowString(g.Key), b)
			}
		}
	}
	for _, g := range got {
		for _, w := range want {
			if g.Key != w.Key || g.Start != w.Start || g.End != w.End {
				continue
			}
			switch {
			case g.Count > w.Count:
				return fmt.Sprintf("%s [%d,%d) counts %d events, the uninterrupted run %d: an event was counted twice.\n"+
					"Is a redelivered event (an ID seen before the snapshot) a no-op after the restore? Seen IDs are state.",
					kit.ShowString(g.Key), g.Start, g.End, g.Count, w.Count)
			case g.Count < w.Count:
				return fmt.Sprintf("%s [%d,%d) counts %d events, the uninterrupted run %d: events counted before the snapshot\n"+
					"are missing. Every unexpired window is state, fired ones too (they still take corrections).",
					kit.ShowString(g.Key), g.Start, g.End, g.Count, w.Count)
			case g.IsUpdate != w.IsUpdate:
				return fmt.Sprintf("%v differs from %v only in IsUpdate: whether this key's result was emitted before the\n"+
					"snapshot is state.", g, w)
			}
		}
	}
	return "A restored processor must continue exactly where the snapshotted one was: the config, the watermark,\n" +
		"every unexpired window (fired or not) with its per-key counts and sums, and every seen ID."
}

// explainLate says why the side output of a restore-and-continue run (the
// snapshotted processor's, then the restored one's) differs from want.
func explainLate(c cutRun, ops []op, got, want []kit.Event) string {
	restored := c.Continued.Late
	if len(c.LateAtCut) > 0 && len(restored) >= len(c.LateAtCut) && slices.Equal(restored[:len(c.LateAtCut)], c.LateAtCut) {
		return "The restored processor's Late() repeats the late events from before the snapshot. The side output\n" +
			"is output, not state: those events were emitted downstream when they happened, and restoring them\n" +
			"would emit them twice. Late() of a restored processor starts empty."
	}
	for _, e := range restored {
		if slices.Contains(want, e) {
			continue
		}
		// e went to the side output, but not in the uninterrupted run.
		at := c.Cut + slices.IndexFunc(ops[c.Cut:], func(o op) bool { return o.Kind == "process" && o.Event.ID == e.ID })
		if first := firstDelivery(ops, at, e.ID); first >= 0 {
			return fmt.Sprintf("%v went to the side output after the restore. ", e) + seenMessage(ops, c.Cut, first, e.ID)
		}
		return fmt.Sprintf("%v went to the side output after the restore, but not in the uninterrupted run: was its window\n"+
			"lost from the snapshot, or the AllowedLateness from the config?", e)
	}
	for _, e := range want {
		if !slices.Contains(got, e) {
			return fmt.Sprintf("%v is late in the uninterrupted run, but not after the restore: its window had expired\n"+
				"(watermark ≥ end + AllowedLateness). Is the watermark in the snapshot?", e)
		}
	}
	return "Late() before the snapshot followed by Late() of the restored processor must be the side output of\n" +
		"the uninterrupted run: the restored processor's starts empty, and every later late event is caught."
}

// cutTimeline draws the window where call at went wrong: before the
// snapshot, and after the restore up to that call, in arrival and emission
// order.
func cutTimeline(cfg Config, ops []op, c cutRun, at int, got, want []kit.Result) string {
	var r kit.Result
	switch {
	case len(want) > 0 && (len(got) == 0 || !slices.Contains(got, want[0])):
		r = want[0]
	case len(got) > 0:
		r = got[0]
		for _, g := range got {
			if !slices.Contains(want, g) {
				r = g
				break
			}
		}
	default:
		return ""
	}
	draw := func(title string, calls []op, outs [][]kit.Result, late []kit.Event, wm int64) string {
		tl := kit.Timeline{WindowSize: cfg.WindowSize, Lateness: cfg.AllowedLateness, Events: eventsOf(calls),
			Watermark: wm, Results: emitted(outs), Late: late}
		return title + "\n" + windowtest.OnlyWindow(tl, r.Start, r.End).String()
	}
	n := at - c.Cut + 1 // calls made after the restore, the wrong one included
	return fmt.Sprintf("only window [%d,%d):\n%s\n%s", r.Start, r.End,
		draw("before the snapshot (arrival order):", ops[:c.Cut], c.PrefixOuts, c.LateAtCut, c.WMAtCut),
		draw(fmt.Sprintf("after the restore, up to call %d (arrival order):", at+1), ops[c.Cut:at+1], c.Continued.Outs[:n], nil, c.Continued.WMs[at-c.Cut]))
}

// session drives one Processor through a hand-written scenario and can
// checkpoint it mid-way: snapshot, restore, and go on with the restored
// processor. It records everything (windowtest.Run), so a failure can draw
// the timeline, with the restore marked in it.
type session struct {
	*windowtest.Run
	t *testing.T
	p *Processor // the processor the session drives: the restored one after checkpoint
}

// newSession returns a session on a new Processor for cfg.
func newSession(t *testing.T, cfg Config) *session {
	t.Helper()
	p := newProcessor(t, cfg)
	return &session{Run: windowtest.NewRun(t, p, cfg.WindowSize, cfg.AllowedLateness), t: t, p: p}
}

// checkpoint snapshots the processor and carries on with one restored from
// the snapshot, as a job does after a crash.
func (s *session) checkpoint() {
	s.t.Helper()
	s.restored(restoreOf(s.t, snapshotOf(s.t, s.p)))
}

// restored carries on with r, restored from a snapshot of the session's
// processor.
func (s *session) restored(r *Processor) {
	s.p = r
	s.Restored(r)
}

// roundTrip returns a processor restored from a snapshot of p, and the
// snapshot. It fails t (and carries on, so that what the restored processor
// does next can say more) unless the restored processor snapshots to the
// same bytes: it is in the same state.
func roundTrip(t testing.TB, p *Processor) (*Processor, []byte) {
	t.Helper()
	snap := snapshotOf(t, p)
	r := restoreOf(t, snap)
	if again := snapshotOf(t, r); !bytes.Equal(snap, again) {
		t.Errorf("Snapshot() of RestoreProcessor(snapshot) differs from the snapshot it was restored from:\n%s\n"+
			"A restored processor is in the state that was snapshotted, so it snapshots to the same bytes. A\n"+
			"difference means the restore lost or changed something (a key, an ID, a count, a sum, the watermark).",
			suite.ByteDiff(snap, again))
	}
	return r, snap
}

// restoreAt makes the first cut calls of ops on a new processor for cfg,
// snapshots it, restores the snapshot in this process and makes the rest of
// the calls on the restored processor: a cut run for checkCutRun.
func restoreAt(t *testing.T, cfg Config, ops []op, cut int) cutRun {
	t.Helper()
	p := newProcessor(t, cfg)
	prefix := runOps(p, ops[:cut])
	c := cutRun{Cut: cut, LateAtCut: prefix.Late, WMAtCut: prefix.WM, PrefixOuts: prefix.Outs, Where: "in this process"}
	r, snap := roundTrip(t, p)
	c.SnapshotLen, c.WMRestored = len(snap), r.Watermark()
	c.Continued = runOps(r, ops[cut:])
	return c
}
