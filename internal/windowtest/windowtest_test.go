package windowtest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/kit"
)

// todo is a skeleton's Processor: every method panics with a TODO.
type todo struct{}

func (todo) Process(kit.Event) []kit.Result      { panic("TODO: process") }
func (todo) AdvanceWatermark(int64) []kit.Result { panic("TODO: advance") }
func (todo) Watermark() int64                    { panic("TODO: watermark") }
func (todo) Flush() []kit.Result                 { panic("TODO: flush") }
func (todo) Late() []kit.Event                   { panic("TODO: late") }

// echo emits, for each event, the result of a window [ts, ts+1), and sends
// events with a negative timestamp to Late.
type echo struct {
	wm   int64
	late []kit.Event
}

func (p *echo) Process(e kit.Event) []kit.Result {
	if e.TS < 0 {
		p.late = append(p.late, e)
		return nil
	}
	p.wm = max(p.wm, e.TS)
	return []kit.Result{Res(e.Key, e.TS, e.TS+1, 1, e.Value)}
}
func (p *echo) AdvanceWatermark(wm int64) []kit.Result { p.wm = max(p.wm, wm); return nil }
func (p *echo) Watermark() int64                       { return p.wm }
func (p *echo) Flush() []kit.Result                    { p.wm = math.MaxInt64; return nil }
func (p *echo) Late() []kit.Event                      { return slices.Clone(p.late) }

// TestTimelineSurvivesTODOGetters checks that drawing a skeleton's run blanks
// what panics, while the run's own getters pass the TODO panic on.
func TestTimelineSurvivesTODOGetters(t *testing.T) {
	r := NewRun(t, todo{}, 10, 0)
	tl := r.Timeline()
	if !strings.HasPrefix(tl, "timeline: 0 events, window size 10, watermark none (MinInt64)") {
		t.Errorf("Timeline() of a skeleton = %q; want a timeline with no watermark", tl)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "TODO") {
			t.Errorf("Watermark() on a skeleton recovered %v; want its TODO panic passed on", r)
		}
	}()
	r.Watermark()
}

// TestRunRecordsAndRestores checks what a Run records, before and after
// Restored.
func TestRunRecordsAndRestores(t *testing.T) {
	r := NewRun(t, &echo{}, 10, 5)
	r.ProcessAll(Ev("e1", "a", 3, 2), Ev("e2", "a", -4, 1))
	r.Restored(&echo{wm: 3})
	r.Process(Ev("e3", "b", -1, 7))
	if got, want := r.Emitted(), []kit.Result{Res("a", 3, 4, 1, 2)}; !slices.Equal(got, want) {
		t.Errorf("Emitted() = %v, want %v", got, want)
	}
	if got, want := r.Late(), []kit.Event{Ev("e3", "b", -1, 7)}; !slices.Equal(got, want) {
		t.Errorf("Late() after Restored = %v, want the restored processor's only, %v", got, want)
	}
	tl := r.Timeline()
	for _, want := range []string{"snapshot taken and restored after arrival 2\n", "3 events", "allowed lateness 5", "e2", "e3"} {
		if !strings.Contains(tl, want) {
			t.Errorf("Timeline() lacks %q:\n%s", want, tl)
		}
	}
}

// TestMustNewRejectsNilAndError checks that MustNew stops the test on an
// error and on a nil processor.
func TestMustNewRejectsNilAndError(t *testing.T) {
	if p := MustNew(t, func(int) (*echo, error) { return &echo{}, nil }, 1); p == nil {
		t.Fatal("MustNew returned nil for a valid processor")
	}
	for name, f := range map[string]func(int) (*echo, error){
		"nil":   func(int) (*echo, error) { return nil, nil },
		"error": func(int) (*echo, error) { return &echo{}, errors.New("bad") },
	} {
		ft := &fatalT{TB: t}
		func() {
			defer func() { _ = recover() }()
			MustNew(ft, f, 7)
		}()
		if !strings.Contains(ft.msg, "NewProcessor(7) = ") {
			t.Errorf("%s: MustNew failed with %q; want a NewProcessor(7) message", name, ft.msg)
		}
	}
}

// fatalT records Fatalf instead of stopping the test.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

// backwards flushes two results of window [0,10) in the wrong order.
type backwards struct{ echo }

func (p *backwards) Flush() []kit.Result {
	return []kit.Result{Res("b", 0, 10, 1, 1), Res("a", 0, 10, 1, 1)}
}

// TestDeliveryAndOracle checks Deliver, its methods and InOrderResults.
func TestDeliveryAndOracle(t *testing.T) {
	events := []kit.Event{Ev("e1", "a", -3, 1), Ev("e2", "a", 7, 2), Ev("e1", "a", -3, 1), Ev("e3", "b", 12, 4)}
	if got, want := InOrderResults(events, 10), []kit.Result{Res("a", -10, 0, 1, 1), Res("a", 0, 10, 1, 2), Res("b", 10, 20, 1, 4)}; !slices.Equal(got, want) {
		t.Errorf("InOrderResults = %v, want %v", got, want)
	}
	d := Deliver(t, &echo{}, 10, 0, events)
	if len(d.Calls) != len(events)+1 || !d.Redelivered("e1") || d.Redelivered("e2") {
		t.Errorf("Deliver recorded %d calls, Redelivered(e1)=%v, Redelivered(e2)=%v", len(d.Calls), d.Redelivered("e1"), d.Redelivered("e2"))
	}
	if msg := d.Unordered(); msg != "" {
		t.Errorf("Unordered() = %q among calls of one result each", msg)
	}
	msg := Deliver(t, &backwards{}, 10, 0, events).Unordered()
	for _, want := range []string{"Flush() returned results out of order:\n  b [0,10)", "want\n  a [0,10)", "only window [0,10)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Unordered() of an unordered Flush lacks %q:\n%s", want, msg)
		}
	}
	if got := d.WindowTimeline(0, 10); !strings.HasPrefix(got, "only window [0,10), arrival order:\ntimeline: 1 events") {
		t.Errorf("WindowTimeline(0, 10) =\n%s", got)
	}
}

// TestShufflesAreNamedAndBounded checks the names and the number of the
// shuffles, and that each holds the events (and only duplicates beyond them).
func TestShufflesAreNamedAndBounded(t *testing.T) {
	events := kit.RandomEvents(kit.NewRand(1), 50, []string{"a", "b"}, 0, 1000)
	var names []string
	for what, shuffled := range Shuffles(kit.NewRand(2), events, 3, 100, 0.5) {
		names = append(names, what)
		if len(shuffled) < len(events) || len(InOrderResults(shuffled, 10)) != len(InOrderResults(events, 10)) {
			t.Errorf("%s has %d events for %d, or other results", what, len(shuffled), len(events))
		}
		if len(names) == 2 {
			break
		}
	}
	if want := []string{"shuffle 1 of 3 (with duplicates)", "shuffle 2 of 3 (with duplicates)"}; !slices.Equal(names, want) {
		t.Errorf("Shuffles yielded %q, want %q", names, want)
	}
}

// TestDiffs checks the comparisons and renderings of results.
func TestDiffs(t *testing.T) {
	a, b, c := Res("a", 0, 10, 1, 1), Res("b", 0, 10, 1, 1), Upd("a", 0, 10, 1, 1)
	missing, extra := Unmatched([]kit.Result{a, a, c}, []kit.Result{a, b})
	if !slices.Equal(missing, []kit.Result{b}) || !slices.Equal(extra, []kit.Result{a, c}) {
		t.Errorf("Unmatched = %v, %v", missing, extra)
	}
	if d := DiffResults([]kit.Result{b, a}, []kit.Result{a, b}); d != "" {
		t.Errorf("DiffResults of a reordering = %q, want empty", d)
	}
	if r, ok := FirstDifference([]kit.Result{a}, []kit.Result{a, Res("a", 10, 20, 1, 1)}); !ok || r != Res("a", 10, 20, 1, 1) {
		t.Errorf("FirstDifference = %v, %v, want the result got lacks", r, ok)
	}
	if r, ok := FirstDifference([]kit.Result{a, b}, []kit.Result{a, c}); !ok || r != b {
		t.Errorf("FirstDifference = %v, %v, want got's result where they differ", r, ok)
	}
	if _, ok := FirstDifference([]kit.Result{a}, []kit.Result{a}); ok {
		t.Error("FirstDifference of equal results reports a difference")
	}
	if s := SideBySide([]kit.Result{a, b}, []kit.Result{b, a}); !strings.Contains(s, "first difference at position 0") || !strings.Contains(s, "≠") {
		t.Errorf("SideBySide of a reordering =\n%s", s)
	}
	if s := SideBySide([]kit.Result{a}, []kit.Result{a}); s != "" {
		t.Errorf("SideBySide of equal results = %q, want empty", s)
	}
	many := make([]kit.Result, 20)
	for i := range many {
		many[i] = Res("k", int64(i)*10, int64(i)*10+10, 1, 1)
	}
	if d := DiffResults(many, nil); !strings.Contains(d, "unexpected (returned, but not expected, or more often than expected) (20):") || !strings.Contains(d, "… 8 more") {
		t.Errorf("DiffResults of 20 unexpected results does not list 12 and count the rest:\n%s", d)
	}
	if d := DiffResultsAs([]kit.Result{a}, nil, func(kit.Result) string { return "shown" }); !strings.Contains(d, "  shown\n") {
		t.Errorf("DiffResultsAs does not render with show:\n%s", d)
	}
	if h := updateHint([]kit.Result{a}, []kit.Result{c}); !strings.Contains(h, "Only IsUpdate differs") {
		t.Errorf("updateHint of an IsUpdate-only difference = %q", h)
	}
	if got := FmtResultsUpTo([]kit.Result{a, b, c}, 2); !strings.HasSuffix(got, "  … 1 more") {
		t.Errorf("FmtResultsUpTo(3 results, 2) =\n%s", got)
	}
	if got := WindowStart(-1, 10); got != -10 {
		t.Errorf("WindowStart(-1, 10) = %d, want -10", got)
	}
}

func TestReplayRecordsEveryCall(t *testing.T) {
	ops := []Op{ProcessOp(Ev("e1", "a", 5, 2)), AdvanceOp(9), ProcessOp(Ev("e2", "b", -1, 1)), FlushOp()}
	tr := Replay(&echo{}, ops)
	want := Trace{
		Outs: [][]kit.Result{{Res("a", 5, 6, 1, 2)}, nil, nil, nil},
		WMs:  []int64{5, 9, 9, math.MaxInt64},
		Late: []kit.Event{Ev("e2", "b", -1, 1)},
		WM:   math.MaxInt64,
	}
	if !reflect.DeepEqual(tr, want) {
		t.Errorf("Replay = %+v, want %+v", tr, want)
	}
	if got := EventsOf(ops); len(got) != 2 || got[1].ID != "e2" {
		t.Errorf("EventsOf = %v, want the two Process events", got)
	}
	if got := Emitted(tr.Outs); len(got) != 1 {
		t.Errorf("Emitted = %v, want the one result", got)
	}
	if s := ops[1].String(); s != "AdvanceWatermark(9)" {
		t.Errorf("String = %q", s)
	}
}

func TestRandomOpsEndsAfterFlushWithARedeliveryAndANewEvent(t *testing.T) {
	keys := []string{"x", "y"}
	ops := RandomOps(kit.NewRand(7), keys, 50, 10, 5, 20)
	if again := RandomOps(kit.NewRand(7), keys, 50, 10, 5, 20); !reflect.DeepEqual(ops, again) {
		t.Fatalf("RandomOps is not deterministic for one seed:\n%v\n%v", ops, again)
	}
	n := len(ops)
	if n < 53 || ops[n-3].Kind != "flush" || ops[n-2].Kind != "process" || ops[n-1].Kind != "process" {
		t.Fatalf("RandomOps(50 events) = %d ops ending %v, want at least 50 events, then Flush, a redelivery and a new event", n, ops[max(0, n-3):])
	}
	seen := map[string]bool{}
	for _, e := range EventsOf(ops[:n-3]) {
		seen[e.ID] = true
	}
	if !seen[ops[n-2].Event.ID] {
		t.Errorf("op %v after Flush is not a redelivery of an earlier event", ops[n-2])
	}
	if last := ops[n-1].Event; last.ID != "after-end" || last.Key != ops[0].Event.Key {
		t.Errorf("last op %v, want a new event after-end of the first event's key", ops[n-1])
	}
}

// TestRandomOpsMeetsAwkwardFieldsAndKeepsOneKeyPerID checks that over a few
// seeds RandomOps produces awkward keys, awkward IDs and edge values, while
// most events stay ordinary and every ID keeps one key and one value.
func TestRandomOpsMeetsAwkwardFieldsAndKeepsOneKeyPerID(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	awkward := kit.AwkwardStrings()
	var events, odd, oddKeys, oddIDs, edges int
	for seed := range uint64(40) {
		byID := map[string]kit.Event{}
		for _, e := range EventsOf(RandomOps(kit.NewRand(seed), keys, 120, 100, 30, 250)) {
			events++
			if first, ok := byID[e.ID]; ok && (first.Key != e.Key || first.Value != e.Value || first.TS != e.TS) {
				t.Fatalf("seed %d: ID %s arrives as %v and as %v: a redelivery must be the same event, with the same key", seed, kit.ShowString(e.ID), first, e)
			}
			byID[e.ID] = e
			k, id, v := !slices.Contains(keys, e.Key), !strings.HasPrefix(e.ID, "e") && e.ID != "after-end", slices.Contains(kit.EdgeValues, e.Value)
			if k || id || v {
				odd++
			}
			if k && slices.ContainsFunc(awkward, func(a string) bool { return strings.HasPrefix(e.Key, a) }) {
				oddKeys++
			}
			if id {
				oddIDs++
			}
			if v {
				edges++
			}
		}
	}
	if oddKeys == 0 || oddIDs == 0 || edges == 0 {
		t.Errorf("over 40 seeds, %d events with an awkward key, %d with an awkward ID, %d with an edge value; want some of each", oddKeys, oddIDs, edges)
	}
	if odd*4 > events {
		t.Errorf("%d of %d events are awkward; want most events ordinary, so that failure messages stay readable", odd, events)
	}
}

// TestStatesCutBeforeARestoreAndContinue checks the shape of States: named,
// distinct, each continuation redelivering every event of its state before
// new ones, with one key per ID.
func TestStatesCutBeforeARestoreAndContinue(t *testing.T) {
	states := States("x", "y", "z")
	names := map[string]bool{}
	for _, s := range states {
		if s.Name == "" || names[s.Name] {
			t.Errorf("state %q: every state needs a name of its own", s.Name)
		}
		names[s.Name] = true
		ops, cut := s.Ops()
		if cut != len(s.Before) || len(ops) != len(s.Before)+len(s.After) {
			t.Errorf("state %q: Ops() = %d calls cut at %d, want %d + %d cut at %d", s.Name, len(ops), cut, len(s.Before), len(s.After), len(s.Before))
		}
		before := EventsOf(s.Before)
		if got := EventsOf(s.After)[:len(before)]; !slices.Equal(got, before) {
			t.Errorf("state %q: After begins %v, want the events before again, %v", s.Name, got, before)
		}
		key := map[string]string{}
		for _, e := range EventsOf(ops) {
			if k, ok := key[e.ID]; ok && k != e.Key {
				t.Errorf("state %q: ID %s has keys %s and %s", s.Name, kit.ShowString(e.ID), kit.ShowString(k), kit.ShowString(e.Key))
			}
			key[e.ID] = e.Key
		}
	}
	if len(states) < 10 {
		t.Errorf("States returned %d states, want the ten kinds it documents", len(states))
	}
	defer func() {
		if recover() == nil {
			t.Error("States(x, x, y) did not panic; the keys must be distinct")
		}
	}()
	States("x", "x", "y")
}

// TestFormattersKeepAwkwardStringsShort checks that events, results, calls
// and lists of them with a 70 000-byte key or ID stay short.
func TestFormattersKeepAwkwardStringsShort(t *testing.T) {
	long := kit.AwkwardStrings()[6]
	if len(long) != 70_000 {
		t.Fatalf("suite bug: kit.AwkwardStrings()[6] is %d bytes, want the 70 000-byte one", len(long))
	}
	e := Ev(long, long, 5, 1)
	r := Res(long, 0, 10, 1, 1)
	tl := kit.Timeline{WindowSize: 10, Events: []kit.Event{e}, Results: []kit.Result{r}, Late: []kit.Event{e}}
	for what, s := range map[string]string{
		"FmtEvents":   FmtEvents([]kit.Event{e, e}),
		"FmtResults":  FmtResults([]kit.Result{r, r}),
		"DiffResults": DiffResults([]kit.Result{r}, nil),
		"Op.String":   ProcessOp(e).String(),
		"OnlyWindow":  OnlyWindow(tl, 0, 10).String(),
		"Timeline":    tl.String(),
	} {
		if len(s) > 2000 {
			t.Errorf("%s with a 70 000-byte key is %d bytes long; want it short (kit.ShowString)", what, len(s))
		}
	}
}

// TestSamplePositions checks that small inputs are checked at every byte
// and large ones at both ends and a sample in between.
func TestSamplePositions(t *testing.T) {
	if got := SamplePositions(kit.NewRand(1), 100); len(got) != 100 || got[0] != 0 || got[99] != 99 {
		t.Errorf("SamplePositions(100) = %d positions, want all 100", len(got))
	}
	got := SamplePositions(kit.NewRand(1), 70_000)
	if len(got) < 3000 || len(got) > 6000 || got[0] != 0 || got[31] != 31 || got[len(got)-1] != 69_999 || !slices.IsSorted(got) {
		t.Errorf("SamplePositions(70 000) = %d positions from %d to %d; want about 4096, sorted, with both ends", len(got), got[0], got[len(got)-1])
	}
}

// TestWholeCheckpoints checks how a reader's view of committed output is
// matched to the checkpoints of an uninterrupted run.
func TestWholeCheckpoints(t *testing.T) {
	a, b, c := Res("a", 0, 10, 1, 1), Res("b", 0, 10, 1, 1), Res("c", 0, 10, 1, 1)
	per := [][]kit.Result{{a}, {}, {b, c}}
	cases := []struct {
		name    string
		got     []kit.Result
		want    int
		wantErr string
	}{
		{"nothing", nil, 0, ""},
		{"first checkpoint, and the empty one after it", []kit.Result{a}, 2, ""},
		{"everything", []kit.Result{a, b, c}, 3, ""},
		{"part of a transaction", []kit.Result{a, b}, 0, "the first 1 of the 2 results of checkpoint 3, a part of its transaction"},
		{"more than a run commits", []kit.Result{a, b, c, a}, 0, "though that is all an uninterrupted run commits"},
		{"another result", []kit.Result{a, c}, 0, "which are not checkpoint 3's 2 results"},
	}
	for _, tc := range cases {
		k, err := WholeCheckpoints(tc.got, per)
		switch {
		case tc.wantErr == "" && (err != nil || k != tc.want):
			t.Errorf("%s: WholeCheckpoints = %d, %v, want %d, nil", tc.name, k, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: WholeCheckpoints = %d, %v, want an error saying %q", tc.name, k, err, tc.wantErr)
		}
	}
}

// TestCheckRestoreInput checks the checker behind every stage's restore
// fuzz target: each way a restore breaks its contract stops the test with
// a message naming the call, and a refusal or a faithful restore passes.
func TestCheckRestoreInput(t *testing.T) {
	type state struct{ b []byte }
	snapshot := func(_ testing.TB, s *state) []byte { return s.b }
	faithful := func(_ testing.TB, b []byte) *state { return &state{b: b} }
	lossy := func(_ testing.TB, b []byte) *state { return &state{b: b[:len(b)-1]} }
	cases := []struct {
		name    string
		restore func() (*state, error)
		again   func(testing.TB, []byte) *state
		want    string // "" when it must pass
		wantNil bool
	}{
		{"accepted and faithful", func() (*state, error) { return &state{b: []byte("ab")}, nil }, faithful, "", false},
		{"refused", func() (*state, error) { return nil, errors.New("bad") }, faithful, "", true},
		{"panics", func() (*state, error) { panic("index out of range") }, faithful, "Restore(<x>) panicked: index out of range", false},
		{"both", func() (*state, error) { return &state{}, errors.New("bad") }, faithful, `returned the error "bad" AND a processor`, false},
		{"neither", func() (*state, error) { return nil, nil }, faithful, "returned neither a processor nor an error", false},
		{"lossy", func() (*state, error) { return &state{b: []byte("ab")}, nil }, lossy, "restore and snapshot differently", false},
	}
	for _, c := range cases {
		ft := &fatalT{TB: t}
		var got *state
		func() {
			defer func() { recover() }()
			got = CheckRestoreInput(ft, "Restore(<x>)", c.restore, snapshot, c.again, "a window")
		}()
		switch {
		case c.want == "" && ft.msg != "":
			t.Errorf("%s: the check failed with %q; want it to pass", c.name, ft.msg)
		case c.want != "" && !strings.Contains(ft.msg, c.want):
			t.Errorf("%s: the check said %q; want a failure containing %q", c.name, ft.msg, c.want)
		case c.want == "" && (got == nil) != c.wantNil:
			t.Errorf("%s: returned %v; want nil = %v", c.name, got, c.wantNil)
		}
	}
}

// TestDamagedSnapshotsAreAllDamaged: every seed DamagedSnapshots makes
// differs from the snapshot, and the snapshot itself is left as it was.
func TestDamagedSnapshotsAreAllDamaged(t *testing.T) {
	snap := []byte("FLKS\x01 a snapshot of forty bytes or so ..")
	orig := bytes.Clone(snap)
	damaged := DamagedSnapshots(snap)
	if len(damaged) < 15 {
		t.Errorf("DamagedSnapshots made %d seeds of a %d-byte snapshot; want prefixes, an extra byte and flips (15 or more)", len(damaged), len(snap))
	}
	for i, d := range damaged {
		if bytes.Equal(d, snap) {
			t.Errorf("seed %d equals the snapshot: it damages nothing", i)
		}
	}
	if !bytes.Equal(snap, orig) {
		t.Errorf("DamagedSnapshots changed its input")
	}
	if got := DamagedSnapshots([]byte{7}); len(got) != 2 {
		t.Errorf("DamagedSnapshots of 1 byte made %d seeds; want 2 (one byte more, the byte flipped)", len(got))
	}
}

// errorsOf is a testing.TB that keeps what Errorf reports.
type errorsOf struct {
	testing.TB
	got []string
}

func (r *errorsOf) Helper() {}
func (r *errorsOf) Errorf(format string, args ...any) {
	r.got = append(r.got, fmt.Sprintf(format, args...))
}

// TestCheckRefusedFailsWhatARestoreMustRefuse checks the check: a restore
// that refuses everything passes it; one that accepts an input, returns a
// processor with its error, or panics, fails it once for that input, named.
func TestCheckRefusedFailsWhatARestoreMustRefuse(t *testing.T) {
	good := []byte("FLKX\x01 a snapshot of some twenty-odd bytes")
	inputs := DamagedCopies(rand.New(rand.NewPCG(1, 2)), good)
	if len(inputs) != 4+len(good) {
		t.Fatalf("DamagedCopies returned %d inputs, want 4 cuts and appends plus a flip of each of the %d bytes", len(inputs), len(good))
	}
	proc := 1
	for _, tc := range []struct {
		name    string
		restore func([]byte) (*int, error)
		want    string
	}{
		{"refuses all", func([]byte) (*int, error) { return nil, errors.New("bad") }, ""},
		{"accepts a cut", func(b []byte) (*int, error) {
			if len(b) == 4 {
				return &proc, nil
			}
			return nil, errors.New("bad")
		}, "Restore(the first 4 bytes) = "},
		{"returns both", func(b []byte) (*int, error) {
			if len(b) == len(good)+1 {
				return &proc, errors.New("bad")
			}
			return nil, errors.New("bad")
		}, "Restore(a byte appended) = "},
		{"panics", func(b []byte) (*int, error) {
			if len(b) == len(good)-1 {
				panic("index out of range")
			}
			return nil, errors.New("bad")
		}, "Restore(all but the last byte) panicked: index out of range"},
	} {
		r := &errorsOf{TB: t}
		CheckRefused(r, "Restore(%s)", inputs, tc.restore, "check the length")
		switch {
		case tc.want == "" && len(r.got) != 0:
			t.Errorf("%s: CheckRefused reported %q, want nothing", tc.name, r.got)
		case tc.want != "" && (len(r.got) != 1 || !strings.HasPrefix(r.got[0], tc.want)):
			t.Errorf("%s: CheckRefused reported %q, want one report starting %q", tc.name, r.got, tc.want)
		}
	}
}

// TestTimeOfDay pins the clock readings the replays' timelines print.
func TestTimeOfDay(t *testing.T) {
	for ms, want := range map[int64]string{
		0:                               "00:00:00",
		14*3600_000 + 3*60_000 + 20_000: "14:03:20",
		14*3600_000 + 3*60_000 + 19_999: "14:03:19.999",
		math.MinInt64:                   "none",
	} {
		if got := TimeOfDay(ms); got != want {
			t.Errorf("TimeOfDay(%d) = %q, want %q", ms, got, want)
		}
	}
}

// page reads the page a picture link names, or fails t.
func page(t *testing.T, link string) string {
	t.Helper()
	path, ok := strings.CutPrefix(strings.TrimSpace(link), "picture: file://")
	if !ok {
		t.Fatalf("link = %q; want a line \"picture: file://…\"", link)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPictures checks the pages of a Run, a Cut and a TracePicture: none
// with pictures off, and with them on a page that shows the restore, the
// first difference and the watermark wanted.
func TestPictures(t *testing.T) {
	ops := []Op{ProcessOp(Ev("e1", "a", 3, 2)), AdvanceOp(5), ProcessOp(Ev("e2", "b", 4, 1)), FlushOp()}
	full := Replay(&echo{}, ops)
	t.Run("off", func(t *testing.T) {
		t.Setenv(picture.Env, "")
		r := NewRun(t, &echo{}, 10, 0)
		r.Apply(ops[0])
		if got := r.Picture("msg", nil, nil) + (Cut{Ops: ops, Full: full, At: 1}).Picture(t, "msg", picture.Windows{Size: 10}) +
			TracePicture(t, "msg", picture.Windows{Size: 10}, ops, full, full); got != "" {
			t.Errorf("with pictures off the links are %q; want none", got)
		}
	})
	t.Setenv(picture.Env, t.TempDir())
	t.Run("run", func(t *testing.T) {
		r := NewRun(t, &echo{}, 10, 0)
		for _, o := range ops[:2] {
			r.Apply(o)
		}
		r.RestoredFrom(&echo{wm: 5}, nil)
		got := r.Apply(ops[2])
		html := page(t, r.Picture("the restored run went on differently", got, nil))
		for _, want := range []string{"the restored run went on differently", "snapshot → restore", "first difference"} {
			if !strings.Contains(html, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
	})
	t.Run("cut", func(t *testing.T) {
		cont := Replay(&echo{wm: 3}, ops[1:])
		cont.Outs[1] = nil // the restored processor lost e2's result
		html := page(t, (Cut{Ops: ops, Full: full, At: 1, Cont: cont}).Picture(t, "lost a result", picture.Windows{Size: 10}))
		for _, want := range []string{"snapshot after call 1, restored", "lost a result", "first difference", "wanted"} {
			if !strings.Contains(html, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
	})
	t.Run("a long trace", func(t *testing.T) {
		var long []Op
		for i := range tracedCalls + 50 {
			long = append(long, ProcessOp(Ev(fmt.Sprint(i), "a", int64(i), 1)))
		}
		tr := Replay(&echo{}, long)
		html := page(t, TracePicture(t, "the end of a long run", picture.Windows{Size: 10}, long, tr, tr))
		if want := fmt.Sprintf("calls 51 to %d of %d", tracedCalls+50, tracedCalls+50); !strings.Contains(html, want) {
			t.Errorf("the page of a run of %d calls lacks %q: it draws the last %d", tracedCalls+50, want, tracedCalls)
		}
	})
}
