//go:build lab || solution

package sessions

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The call sequences and traces of windowtest, under this suite's names.
type (
	op    = windowtest.Op
	trace = windowtest.Trace
)

var runOps = windowtest.Replay

// genOps returns a seeded call sequence for cfg: n events over span, with
// keys, IDs and values made awkward at rate awkward (kit.WithAwkwardFields),
// shuffled with disorder bound and a tenth redelivered, with
// AdvanceWatermark(max timestamp − lag) every 1 to 6 events. The disorder
// is beyond the lag, so sessions are extended and bridged after they fired
// and some events are late. Then Flush, a redelivery and a new event after
// the end.
func genOps(r *rand.Rand, n int, span, bound, lag int64, awkward float64) []op {
	ordered := kit.WithAwkwardFields(r, kit.RandomEvents(r, n, []string{"a", "b", "c", "d"}, -span/4, span), awkward)
	events := shuffled(r, ordered, bound, 0.1)
	var ops []op
	maxTS, next := int64(math.MinInt64), 1+r.IntN(6)
	for _, e := range events {
		ops = append(ops, windowtest.ProcessOp(e))
		maxTS = max(maxTS, e.TS)
		if next--; next == 0 {
			ops = append(ops, windowtest.AdvanceOp(maxTS-lag))
			next = 1 + r.IntN(6)
		}
	}
	return append(ops, windowtest.FlushOp(), windowtest.ProcessOp(events[r.IntN(len(events))]),
		windowtest.ProcessOp(ev("after-end", "a", maxTS, 1)))
}

// awkwardRate is how often the seeded generators of this suite give an
// event an awkward key, ID or value (kit.WithAwkwardFields): often enough
// that the restore and shuffle tests meet them, rarely enough that most
// events, and most failures, stay readable.
const awkwardRate = 0.04

// cutConfigs are the restore-and-continue runs: a config, the span of the
// timestamps, the disorder, and the watermark's lag behind the largest
// timestamp.
var cutConfigs = []struct {
	cfg              SessionConfig
	span, bound, lag int64
}{
	{SessionConfig{Gap: 50, AllowedLateness: 100}, 3000, 300, 30},
	{SessionConfig{Gap: 20}, 2000, 100, 10},
	{SessionConfig{Gap: 200, AllowedLateness: 400}, 8000, 700, 50},
}

const cutEvents = 100

// snapshotOf returns s.Snapshot(); it stops the test if that fails.
func snapshotOf(t testing.TB, s *SessionProcessor) []byte {
	t.Helper()
	b, err := s.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot() returned the error %v; want the processor's state: encoding state in memory cannot fail", err)
	}
	if len(b) < 5 {
		t.Fatalf("Snapshot() returned %d bytes (%q); a session snapshot begins with \"FLSW\" and a version byte", len(b), b)
	}
	return b
}

// restoreOf returns RestoreSessionProcessor(snap) for a snapshot that
// Snapshot returned; it stops the test if that fails.
func restoreOf(t testing.TB, snap []byte) *SessionProcessor {
	t.Helper()
	s, err := RestoreSessionProcessor(snap)
	if err != nil || s == nil {
		t.Fatalf("RestoreSessionProcessor(a %d-byte snapshot that Snapshot returned) = %v, %v; want a processor and no error", len(snap), s, err)
	}
	return s
}

// TestRestoreAtEveryCutPointEqualsUninterruptedRun certifies that snapshotting a session processor after any call, restoring it and continuing gives exactly the results, side output and watermark of one uninterrupted run, up to the session of an event at math.MaxInt64.
//
// The inputs are seeded and shuffled beyond the watermark's lag, so that
// fired sessions are extended and bridged late (retractions) and some
// events are late; with duplicates, a Flush and events after it, and now
// and then an awkward key, ID or value (kit.WithAwkwardFields).
func TestRestoreAtEveryCutPointEqualsUninterruptedRun(t *testing.T) {
	defer suite.Recover(t)
	for _, cc := range cutConfigs {
		t.Run(fmt.Sprintf("gap=%d/lateness=%d/disorder=%d/lag=%d", cc.cfg.Gap, cc.cfg.AllowedLateness, cc.bound, cc.lag), func(t *testing.T) {
			defer suite.Recover(t)
			checkEveryCut(t, cc.cfg, genOps(suite.Rand(t), cutEvents, cc.span, cc.bound, cc.lag, awkwardRate))
		})
	}
	// At the top of the int64 range a session's end saturates: an event at
	// math.MaxInt64 opens [MaxInt64, MaxInt64), empty but real, and the
	// snapshot that holds it (open, then fired and kept for lateness) must
	// restore like any other. Rejecting every span with End ≤ Start as
	// damaged makes such a checkpoint one the job can never restart from.
	t.Run("top of the int64 range", func(t *testing.T) {
		defer suite.Recover(t)
		const top = math.MaxInt64
		checkEveryCut(t, SessionConfig{Gap: 10, AllowedLateness: 5}, []op{
			windowtest.ProcessOp(ev("e1", "a", top, 1)),
			windowtest.ProcessOp(ev("e2", "b", top-4, 2)),
			windowtest.AdvanceOp(top - 1),
			windowtest.ProcessOp(ev("e3", "a", top, 4)),
			windowtest.FlushOp(),
			windowtest.ProcessOp(ev("e4", "b", top, 8)),
		})
	})
}

// checkEveryCut stops t unless, for every k, snapshotting a processor for
// cfg after ops[:k], restoring it and making the calls ops[k:] on the
// restored one gives what one uninterrupted run of ops gives: the same
// results call by call, the same side output (the snapshotted processor's
// up to the cut, then the restored one's) and the same final watermark.
func checkEveryCut(t *testing.T, cfg SessionConfig, ops []op) {
	t.Helper()
	full := runOps(newSessions(t, cfg), ops)
	s := newSessions(t, cfg)
	for k := 0; k <= len(ops); k++ {
		snap := snapshotOf(t, s)
		lateAtCut, wmAtCut := s.Late(), s.Watermark()
		head := fmt.Sprintf("Config %+v, %d calls; snapshot after call %d (%d bytes), restored.\n", cfg, len(ops), k, len(snap))
		r, err := RestoreSessionProcessor(snap)
		if err != nil || r == nil {
			t.Fatalf("%sRestoreSessionProcessor(the snapshot Snapshot just returned) = %v, %v; want a processor and no error:\n"+
				"whatever state a processor holds, its snapshot restores.%s", head, r, err, awkwardNote(ops[:k]))
		}
		w := pictureWindows(cfg)
		cut := windowtest.Cut{Ops: ops, Full: full, At: k, LateAtCut: lateAtCut}
		if wm := r.Watermark(); wm != wmAtCut {
			msg := fmt.Sprintf("%sWatermark() of the restored processor = %s, the snapshotted one's = %s: the watermark is state.",
				head, kit.FormatWatermark(wm), kit.FormatWatermark(wmAtCut))
			t.Fatalf("%s%s", msg, cut.Picture(t, msg, w))
		}
		cont := runOps(r, ops[k:])
		cut.Cont = cont
		for i, got := range cont.Outs {
			at := k + i
			if want := full.Outs[at]; !slices.Equal(got, want) {
				msg := fmt.Sprintf("%sAfter the restore, call %d %v returned\n%s\nthe uninterrupted run returned\n%s",
					head, at+1, ops[at], windowtest.FmtResults(got), windowtest.FmtResults(want))
				cut.Cont = trace{Outs: cont.Outs[:i+1], WMs: cont.WMs[:i+1], Late: cont.Late}
				t.Fatalf("%s\n%s\n\n%s%s", msg, explainCut(ops, full, k, at, got, want)+awkwardNote(ops[:k]), cutTimeline(cfg, ops, full, k, at, cont.Outs[:i+1]),
					cut.Picture(t, msg, w))
			}
		}
		if late := slices.Concat(lateAtCut, cont.Late); !slices.Equal(late, full.Late) {
			msg := fmt.Sprintf("%sLate() before the snapshot, then the restored processor's: %s\nthe uninterrupted run's: %s\n"+
				"The side output is not state (a restored Late() starts empty), but every later late event must be caught:\n"+
				"the seen IDs and the sessions decide which events are late.",
				head, windowtest.FmtEvents(late), windowtest.FmtEvents(full.Late))
			t.Fatalf("%s%s", msg, cut.Picture(t, msg, w))
		}
		if cont.WM != full.WM {
			msg := fmt.Sprintf("%sWatermark() at the end = %s, the uninterrupted run's = %s", head, kit.FormatWatermark(cont.WM), kit.FormatWatermark(full.WM))
			t.Fatalf("%s%s", msg, cut.Picture(t, msg, w))
		}
		if k < len(ops) {
			ops[k].Apply(s)
		}
	}
}

// awkwardNote says which state that breaks naive encodings the events of
// ops put into a processor, with the mistakes each exposes; "" if none.
func awkwardNote(ops []op) string {
	var notes []string
	seen := map[string]bool{}
	note := func(what, mistake string) {
		if !seen[what] {
			seen[what] = true
			notes = append(notes, fmt.Sprintf("\n  - %s: %s", what, mistake))
		}
	}
	for _, e := range windowtest.EventsOf(ops) {
		for _, f := range []struct{ name, s string }{{"key", e.Key}, {"ID", e.ID}} {
			switch {
			case f.s == "":
				note("an empty "+f.name, "an empty string is a length of 0, not a missing field")
			case len(f.s) > 255:
				note(fmt.Sprintf("a %s of more than 255 bytes", f.name), "a length written in one byte (or two, past 65 535) is cut short")
			}
			if strings.IndexByte(f.s, 0) >= 0 {
				note("a "+f.name+" with a NUL byte", "a NUL-terminated string ends there")
			}
			if !utf8.ValidString(f.s) {
				note("a "+f.name+" that is not valid UTF-8", "a text format (encoding/json) replaces the bytes it cannot encode")
			}
		}
		if e.Value > 1<<53 || e.Value < -(1<<53) {
			note("values beyond 2^53", "a float64 (a JSON number decoded into interface{}) loses their low digits; sums wrap as int64 does")
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "\nThe state holds what breaks naive encodings:" + strings.Join(notes, "")
}

// explainCut guesses which piece of state the snapshot lost, from how call
// at went wrong after a restore at cut.
func explainCut(ops []op, full trace, cut, at int, got, want []kit.Result) string {
	if o := ops[at]; o.Kind == "process" && len(want) == 0 &&
		slices.ContainsFunc(ops[:at], func(x op) bool { return x.Kind == "process" && x.Event.ID == o.Event.ID }) {
		return o.Event.ID + " was delivered before: its redelivery is a no-op. Seen IDs are state, late ones included."
	}
	wantRet := slices.ContainsFunc(want, func(r kit.Result) bool { return r.Count < 0 })
	gotRet := slices.ContainsFunc(got, func(r kit.Result) bool { return r.Count < 0 })
	if wantRet && !gotRet {
		return "The uninterrupted run retracts results emitted before (some before the snapshot). What downstream holds for\n" +
			"each session (the results its next firing retracts) is state: without it a restored processor emits the\n" +
			"merged session as if it were new, and downstream counts the old sessions' events twice."
	}
	prior := slices.Concat(full.Outs[:cut]...)
	for _, g := range got {
		if g.IsUpdate || slices.Contains(want, g) {
			continue
		}
		if slices.ContainsFunc(prior, func(p kit.Result) bool { return p.Key == g.Key && p.Start == g.Start && p.End == g.End }) {
			return fmt.Sprintf("%v is a first result, but that session was emitted before the snapshot: which sessions have fired\n"+
				"(and what downstream holds of them) is state.", g)
		}
	}
	return "A restored processor continues exactly where the snapshotted one was: the config, the watermark, every unexpired\n" +
		"session with its count and sum and what downstream holds of it, and every seen ID."
}

// cutTimeline draws the key of the first differing result of call at,
// before the snapshot and after the restore up to that call.
func cutTimeline(cfg SessionConfig, ops []op, full trace, cut, at int, contOuts [][]kit.Result) string {
	rs := slices.Concat(full.Outs[at], contOuts[len(contOuts)-1])
	key := ""
	if len(rs) > 0 {
		key = rs[0].Key
	} else if ops[at].Kind == "process" {
		key = ops[at].Event.Key
	}
	var events []kit.Event
	for _, o := range ops[:at+1] {
		if o.Kind == "process" && o.Event.Key == key {
			events = append(events, o.Event)
		}
	}
	var emitted []kit.Result
	for _, r := range slices.Concat(slices.Concat(full.Outs[:cut]...), slices.Concat(contOuts...)) {
		if r.Key == key {
			emitted = append(emitted, r)
		}
	}
	wm := int64(math.MinInt64)
	for _, o := range ops[:at+1] {
		switch o.Kind {
		case "advance":
			wm = max(wm, o.WM)
		case "flush":
			wm = math.MaxInt64
		}
	}
	tl := kit.Timeline{Gap: cfg.Gap, Lateness: cfg.AllowedLateness, Events: events, Watermark: wm, Results: emitted}
	return fmt.Sprintf("only key %s, up to call %d (snapshot and restore after call %d; emitted: before the snapshot, then after the restore):\n%s",
		key, at+1, cut, tl.String())
}

// formatCfg is the configuration of the format tests' processors.
var formatCfg = SessionConfig{Gap: 50, AllowedLateness: 100}

// busySnapshot returns a snapshot of a processor holding every kind of
// state: seen IDs (counted and late), open sessions, fired sessions not yet
// expired, sessions that swallowed fired ones, a raised watermark.
func busySnapshot(t testing.TB, seed uint64) []byte {
	t.Helper()
	s := newSessions(t, formatCfg)
	ops := genOps(kit.NewRand(seed), 60, 3000, 300, 30, 0) // no 70 000-byte key: the damage tests try every byte
	for _, o := range ops[:len(ops)-3] {                   // stop before Flush: sessions still open
		o.Apply(s)
	}
	return snapshotOf(t, s)
}

// TestSessionSnapshotHasVersionedHeader certifies that every session snapshot begins with the magic "FLSW" and the format version byte 1.
func TestSessionSnapshotHasVersionedHeader(t *testing.T) {
	defer suite.Recover(t)
	flushed := newSessions(t, formatCfg)
	flushed.Process(ev("e1", "a", 5, 1))
	flushed.Flush()
	for _, c := range []struct {
		what string
		snap []byte
	}{
		{"a new processor", snapshotOf(t, newSessions(t, formatCfg))},
		{"a processor with open and fired sessions", busySnapshot(t, 1)},
		{"a flushed processor", snapshotOf(t, flushed)},
	} {
		if !bytes.HasPrefix(c.snap, []byte("FLSW\x01")) {
			t.Errorf("Snapshot() of %s begins % x (%q), want the magic \"FLSW\" then the version byte 1 (46 4c 53 57 01).\n"+
				"A session snapshot is a savepoint of its own kind: its own magic keeps stage 04's RestoreProcessor from\n"+
				"reading it as tumbling-window state, and the other way round.", c.what, c.snap[:min(len(c.snap), 5)], c.snap[:min(len(c.snap), 5)])
		}
	}
}

// tryRestore calls RestoreSessionProcessor(input) and returns what it
// returned, or what it panicked with. A skeleton's "TODO" panic is passed
// on, so that suite.Recover reports the test as not implemented yet.
func tryRestore(input []byte) (s *SessionProcessor, err error, panicked any) {
	defer func() {
		if r := recover(); r != nil {
			if strings.HasPrefix(fmt.Sprint(r), "TODO") {
				panic(r)
			}
			s, err, panicked = nil, nil, r
		}
	}()
	s, err = RestoreSessionProcessor(input)
	return s, err, nil
}

// expectRestoreError fails t unless RestoreSessionProcessor(input) returns
// a nil processor and an error without panicking. It returns the error, or
// nil after failing t.
func expectRestoreError(t testing.TB, what string, input []byte, why string) error {
	t.Helper()
	s, err, panicked := tryRestore(input)
	switch {
	case panicked != nil:
		t.Errorf("RestoreSessionProcessor(%s) panicked: %v\nIt must return an error: a snapshot comes from a file that may be truncated,\n"+
			"corrupted or not a snapshot at all. Check every length against the bytes left before slicing.", what, panicked)
		return nil
	case err == nil:
		t.Errorf("RestoreSessionProcessor(%s) returned a processor and no error; want an error: %s", what, why)
		return nil
	case s != nil:
		t.Errorf("RestoreSessionProcessor(%s) returned the error %q AND a processor; on error, return nil", what, err)
	}
	return err
}

// TestDamagedSessionSnapshotIsAnError certifies that every proper prefix of a session snapshot, every snapshot with a byte changed and every snapshot with bytes appended is rejected with an error, never a panic, and so is one whose checksum holds but which no processor writes: a config NewSessionProcessor rejects, two sessions of a key that overlap or touch, or a session its watermark has expired.
func TestDamagedSessionSnapshotIsAnError(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, snap := range [][]byte{snapshotOf(t, newSessions(t, formatCfg)), busySnapshot(t, 2)} {
		for n := range len(snap) {
			if expectRestoreError(t, fmt.Sprintf("the first %d of the %d bytes of a snapshot", n, len(snap)), bytes.Clone(snap[:n]),
				"a truncated snapshot is missing state; record the length, or check a checksum, and reject it") == nil {
				return
			}
		}
		for i := range snap {
			for _, mask := range []byte{0x01, byte(1 + rnd.IntN(255))} {
				bad := bytes.Clone(snap)
				bad[i] ^= mask
				what := fmt.Sprintf("a %d-byte snapshot with byte %d changed from %#02x to %#02x", len(snap), i, snap[i], bad[i])
				if expectRestoreError(t, what, bad, "a changed byte would restore a silently different state; a checksum over the body catches it") == nil {
					return
				}
			}
		}
		for _, tail := range [][]byte{{0}, snap} {
			what := fmt.Sprintf("a %d-byte snapshot followed by %d more bytes", len(snap), len(tail))
			if expectRestoreError(t, what, append(bytes.Clone(snap), tail...), "bytes after the end are not state") == nil {
				return
			}
		}
	}

	// Snapshots whose checksum holds, which no processor writes. The suite
	// moves one distinctive value in your bytes, when it can read your
	// format, and seals them again.
	const at = 123_456_789_000
	two := newSessions(t, formatCfg) // gap 50: a's sessions [at, at+90) and [at+95, at+145)
	two.Process(ev("e1", "a", at, 1))
	two.Process(ev("e2", "a", at+40, 2))
	two.Process(ev("e3", "a", at+95, 4))
	expired := newSessions(t, formatCfg) // a's session [at, at+50) fired, expires at watermark at+150
	expired.Process(ev("e1", "a", at, 1))
	expired.AdvanceWatermark(at + 70)
	odd := snapshotOf(t, newSessions(t, SessionConfig{Gap: 123_456_789, AllowedLateness: 987_654_321}))
	windowtest.CheckForged(t, "RestoreSessionProcessor(%s)", []windowtest.Forgery{
		{What: "with a's sessions [at, at+95) and [at+95, at+145), at = 123456789000", Snap: snapshotOf(t, two),
			Moves: [][2]int64{{at + 90, at + 95}},
			Why: "the two sessions touch, and touching sessions merge: no processor holds them apart, and a restored one would fire\n" +
				"them as two sessions where every other run emits one."},
		{What: "with a's sessions [at, at+100) and [at+95, at+145), at = 123456789000", Snap: snapshotOf(t, two),
			Moves: [][2]int64{{at + 90, at + 100}},
			Why: "the two sessions overlap: no processor holds them apart, and a restored one would count their events in two\n" +
				"sessions that downstream holds side by side."},
		{What: "with a's fired session [at, at+50) and the watermark at+150, at = 123456789000", Snap: snapshotOf(t, expired),
			Moves: [][2]int64{{at + 70, at + 150}},
			Why: "the session expired when the watermark reached its end + AllowedLateness (at+150): it was dropped then, so no\n" +
				"processor holds it, and a restored one would merge into it an event that belongs in the side output."},
		{What: "with Gap −123456789 (an empty processor)", Snap: odd,
			Moves: [][2]int64{{123_456_789, -123_456_789}},
			Why: "NewSessionProcessor rejects a Gap that is not positive, so no processor has one: a restore checks the config as\n" +
				"the constructor does, or it makes a processor no constructor makes."},
		{What: "with AllowedLateness −987654321 (an empty processor)", Snap: odd,
			Moves: [][2]int64{{987_654_321, -987_654_321}},
			Why: "NewSessionProcessor rejects a negative AllowedLateness, so no processor has one: a restore checks the config as\n" +
				"the constructor does, or it makes a processor no constructor makes."},
	}, RestoreSessionProcessor)
}

// TestUnknownSessionSnapshotVersionIsAnError certifies that a session snapshot with a format version other than 1 is rejected with an error that says "version".
func TestUnknownSessionSnapshotVersionIsAnError(t *testing.T) {
	defer suite.Recover(t)
	snap := busySnapshot(t, 3)
	for _, v := range []byte{0, 2, 0xff} {
		bad := bytes.Clone(snap)
		bad[4] = v
		what := fmt.Sprintf("a session snapshot whose version byte is %d", v)
		err := expectRestoreError(t, what, bad, "this code reads format version 1 only")
		if err != nil && !strings.Contains(strings.ToLower(err.Error()), "version") {
			t.Errorf("RestoreSessionProcessor(%s) returned the error %q; want a message that says \"version\": check the version\n"+
				"before the checksum, so that a newer savepoint is reported as one and not as corrupt.", what, err)
		}
	}
}

// TestSnapshotKindsAreNotInterchangeable certifies that RestoreSessionProcessor rejects a stage 04 Processor snapshot and RestoreProcessor rejects a session snapshot, each with an error.
func TestSnapshotKindsAreNotInterchangeable(t *testing.T) {
	defer suite.Recover(t)
	p, err := NewProcessor(Config{WindowSize: 50, AllowedLateness: 100})
	if err != nil {
		t.Fatalf("NewProcessor: %v", err)
	}
	p.Process(ev("e1", "a", 5, 1))
	tumbling, err := p.Snapshot()
	if err != nil {
		t.Fatalf("Processor.Snapshot: %v", err)
	}
	expectRestoreError(t, "a stage 04 Processor snapshot (magic \"FLKS\")", tumbling,
		"it holds tumbling windows, not sessions; only the magic tells the two apart before decoding")

	session := busySnapshot(t, 4)
	var restored *Processor
	var rerr error
	var panicked any
	func() {
		defer func() {
			if r := recover(); r != nil {
				if strings.HasPrefix(fmt.Sprint(r), "TODO") {
					panic(r)
				}
				panicked = r
			}
		}()
		restored, rerr = RestoreProcessor(session)
	}()
	switch {
	case panicked != nil:
		t.Errorf("RestoreProcessor(a session snapshot) panicked: %v; it must return an error", panicked)
	case rerr == nil || restored != nil:
		t.Errorf("RestoreProcessor(a session snapshot, magic \"FLSW\") = %v, %v; want nil and an error: a session snapshot is\n"+
			"not tumbling-window state. Your stage 04 code checks the magic first: does it?", restored, rerr)
	}
}

// TestEqualSessionStateGivesEqualBytes certifies that session processors in the same state give byte-for-byte equal snapshots, and that a restored snapshot snapshots again to the same bytes.
func TestEqualSessionStateGivesEqualBytes(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	t.Run("restore then snapshot", func(t *testing.T) {
		defer suite.Recover(t)
		ops := genOps(rnd, 80, 3000, 300, 30, awkwardRate)
		s := newSessions(t, formatCfg)
		for i := 0; i <= len(ops); i++ {
			if i%5 == 0 || i == len(ops) {
				snap := snapshotOf(t, s)
				if again := snapshotOf(t, restoreOf(t, snap)); !bytes.Equal(snap, again) {
					t.Fatalf("after %d calls, Snapshot() of RestoreSessionProcessor(snapshot) differs from the snapshot\n"+
						"(%d and %d bytes): the restore lost or changed something, or the encoding depends on map order.", i, len(snap), len(again))
				}
			}
			if i < len(ops) {
				ops[i].Apply(s)
			}
		}
	})
	t.Run("two delivery orders of the same events", func(t *testing.T) {
		defer suite.Recover(t)
		ordered := kit.WithAwkwardFields(rnd, kit.RandomEvents(rnd, 150, []string{"a", "b", "c", "d", "e"}, -500, 4000), awkwardRate)
		var snaps [2][]byte
		for i := range snaps {
			s := newSessions(t, formatCfg)
			for _, e := range shuffled(rnd, ordered, 4000, 0.3) {
				s.Process(e)
			}
			s.AdvanceWatermark(2000)
			snaps[i] = snapshotOf(t, s)
		}
		if !bytes.Equal(snaps[0], snaps[1]) {
			t.Errorf("two delivery orders of the same 150 events (some duplicated), then AdvanceWatermark(2000), gave different\n"+
				"snapshots (%d and %d bytes). Both processors hold the same sessions, seen IDs and watermark: equal state, so\n"+
				"equal bytes. Write keys, sessions and IDs in a sorted order, never in map or arrival order.", len(snaps[0]), len(snaps[1]))
		}
	})
}
