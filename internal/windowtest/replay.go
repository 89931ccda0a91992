package windowtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/kit"
)

// Op is one call on a Processor: a Process, an AdvanceWatermark or a
// Flush. It is plain data, so that a test can generate a seeded call
// sequence, replay it on several processors, cut it anywhere for a
// snapshot, or hand it to a child process. (Hand it over with encoding/gob,
// not encoding/json: JSON replaces invalid UTF-8 in a key or an ID, and
// RandomOps makes some.)
type Op struct {
	Kind  string    // "process", "advance" or "flush"
	Event kit.Event // the event of a "process" call
	WM    int64     // the watermark of an "advance" call
}

// ProcessOp returns the call Process(e).
func ProcessOp(e kit.Event) Op { return Op{Kind: "process", Event: e} }

// AdvanceOp returns the call AdvanceWatermark(wm).
func AdvanceOp(wm int64) Op { return Op{Kind: "advance", WM: wm} }

// FlushOp returns the call Flush().
func FlushOp() Op { return Op{Kind: "flush"} }

// String renders the call, e.g. "Process(e7 a@1500=3)".
func (o Op) String() string {
	switch o.Kind {
	case "process":
		return fmt.Sprintf("Process(%v)", o.Event)
	case "advance":
		return fmt.Sprintf("AdvanceWatermark(%s)", kit.FormatWatermark(o.WM))
	}
	return "Flush()"
}

// Apply makes the call on p and returns its results.
func (o Op) Apply(p Processor) []kit.Result {
	switch o.Kind {
	case "process":
		return p.Process(o.Event)
	case "advance":
		return p.AdvanceWatermark(o.WM)
	case "flush":
		return p.Flush()
	}
	panic("windowtest: unknown op kind " + o.Kind)
}

// Trace is what a Processor did over a sequence of calls: the oracle that
// a restored, rescaled or differently built run must equal.
type Trace struct {
	Outs [][]kit.Result // what each call returned
	WMs  []int64        // Watermark() after each call
	Late []kit.Event    // Late() at the end
	WM   int64          // Watermark() at the end
}

// Replay makes the calls ops on p, in order, and returns what it did.
func Replay(p Processor, ops []Op) Trace {
	tr := Trace{Outs: make([][]kit.Result, len(ops)), WMs: make([]int64, len(ops))}
	for i, o := range ops {
		tr.Outs[i] = o.Apply(p)
		tr.WMs[i] = p.Watermark()
	}
	tr.Late, tr.WM = p.Late(), p.Watermark()
	return tr
}

// Emitted returns every result of outs, in emission order.
func Emitted(outs [][]kit.Result) []kit.Result {
	var all []kit.Result
	for _, o := range outs {
		all = append(all, o...)
	}
	return all
}

// EventsOf returns the events of the Process calls among ops.
func EventsOf(ops []Op) []kit.Event {
	var evs []kit.Event
	for _, o := range ops {
		if o.Kind == "process" {
			evs = append(evs, o.Event)
		}
	}
	return evs
}

// RandomOps returns a seeded call sequence for a processor with windows of
// size and the given watermark delay: n random events over keys, shuffled
// with disorder up to bound (above the delay, some events are late:
// corrections within the allowed lateness, side output beyond it), a
// fifth of them delivered twice, with a few AdvanceWatermark calls among
// them (some raising the watermark past max − delay, some too low to
// matter); then Flush, then a redelivery and a new event, both after the
// end.
//
// A few keys, IDs and values are awkward (kit.WithAwkwardFields at
// awkwardRate): a key or an ID may be empty, 70 000 bytes long, hold a NUL
// byte or invalid UTF-8, and a value may be an int64 extreme, so that every
// test that snapshots and restores these calls meets what breaks naive
// encodings. Each ID keeps one key, so a redelivery is still the same
// event, with the same key. Keys are therefore not only those of keys.
func RandomOps(r *rand.Rand, keys []string, n int, size, delay, bound int64) []Op {
	ordered := kit.WithAwkwardFields(r, kit.RandomEvents(r, n, keys, -3*size, 12*size), awkwardRate)
	events := kit.WithDuplicates(r, kit.BoundedShuffle(r, ordered, bound), 0.2)
	var ops []Op
	maxTS := int64(math.MinInt64)
	for i, e := range events {
		if i > 0 && r.IntN(20) == 0 {
			ops = append(ops, AdvanceOp(maxTS-delay+r.Int64N(size)-size/3))
		}
		ops = append(ops, ProcessOp(e))
		maxTS = max(maxTS, e.TS)
	}
	ops = append(ops, FlushOp())
	ops = append(ops, ProcessOp(events[r.IntN(len(events))]))
	ops = append(ops, ProcessOp(Ev("after-end", events[0].Key, maxTS, 1)))
	return ops
}

// awkwardRate is how often RandomOps makes a key, an ID or a value awkward:
// often enough that a suite's restore-and-continue runs meet every kind
// over their seeds, rarely enough that most events, and so most failure
// messages, stay ordinary.
const awkwardRate = 0.05

// Cut is a restore-and-continue run, checked against the uninterrupted run
// of the same calls: a processor made the first At calls of Ops (as Full
// made them: the test checks it, or takes it as given) and was
// snapshotted, and a processor restored from the snapshot made the calls
// after them.
type Cut struct {
	Ops  []Op
	Full Trace // the uninterrupted run of every call of Ops: what the cut run must equal
	At   int   // calls made before the snapshot
	// LateAtCut is the snapshotted processor's Late(): the side output of
	// the calls before the snapshot.
	LateAtCut []kit.Event
	// Cont is what the restored processor did with the calls Ops[At:], as
	// far as the test let it go: its Outs and WMs may be shorter.
	Cont Trace
}

// Picture draws c, with pictures on, as a page for test t (picture.Save)
// and returns the line that links it, or "". The page shows the calls
// before the cut as the uninterrupted run made them, the restore, then
// what the restored processor did, and marks where it first differs from
// what the uninterrupted run returned for the same calls; when the
// restored processor made every call, also the watermark the
// uninterrupted run ended with. note is the failure's message; w says the
// windows to draw.
func (c Cut) Picture(t testing.TB, note string, w picture.Windows) string {
	if !picture.Enabled() {
		return ""
	}
	var steps []picture.Step
	for i := range c.At {
		steps = append(steps, opStep(c.Ops[i], c.Full.Outs[i], c.Full.WMs[i]))
	}
	wmAtCut := int64(math.MinInt64)
	if c.At > 0 {
		wmAtCut = c.Full.WMs[c.At-1]
	}
	steps = append(steps, picture.Step{Op: picture.OpRestore, Partition: -1, Watermark: wmAtCut})
	n := min(len(c.Cont.Outs), len(c.Ops)-c.At)
	for j := range n {
		wm := wmAtCut
		if j < len(c.Cont.WMs) {
			wm = c.Cont.WMs[j]
		}
		steps = append(steps, opStep(c.Ops[c.At+j], c.Cont.Outs[j], wm))
	}
	run := picture.Run{
		Title:   fmt.Sprintf("%s: snapshot after call %d, restored", t.Name(), c.At),
		Note:    note,
		Windows: w,
		Steps:   steps,
		Late:    slices.Concat(c.LateAtCut, c.Cont.Late),
		Want:    wanted(Emitted(c.Full.Outs[:c.At+n])),
	}
	if c.At+n == len(c.Ops) {
		run.WantWatermark, run.HasWantWatermark = c.Full.WM, true
	}
	return "\n" + picture.Save(t, run)
}

// TracePicture draws, with pictures on, the calls ops as a processor made
// them as a page for test t (picture.Save) and returns the line that links
// it, or "": got is what it did, as far as the test let it go (its Outs
// and WMs may be shorter than ops), and want what another processor, the
// test's oracle, did over the same calls; the page marks where what got
// returned first differs from what want returned and, when got made every
// call, the watermark want ended with. A test whose oracle is not a run of
// the same calls (a batch computation, a count) passes a zero want, and the
// page marks nothing. A run longer than the page holds is
// drawn from its last tracedCalls calls. note is the failure's message; w
// says the windows to draw.
func TracePicture(t testing.TB, note string, w picture.Windows, ops []Op, got, want Trace) string {
	if !picture.Enabled() {
		return ""
	}
	n := min(len(got.Outs), len(ops))
	from := max(0, n-tracedCalls)
	var steps []picture.Step
	for i := from; i < n; i++ {
		wm := int64(math.MinInt64)
		if i < len(got.WMs) {
			wm = got.WMs[i]
		}
		steps = append(steps, opStep(ops[i], got.Outs[i], wm))
	}
	title := t.Name()
	if from > 0 {
		title = fmt.Sprintf("%s: calls %d to %d of %d", t.Name(), from+1, n, len(ops))
	}
	run := picture.Run{Title: title, Note: note, Windows: w, Steps: steps, Late: got.Late}
	if want.Outs != nil {
		run.Want = wanted(Emitted(want.Outs[from:n]))
		if n == len(ops) {
			run.WantWatermark, run.HasWantWatermark = want.WM, true
		}
	}
	return "\n" + picture.Save(t, run)
}

// wanted is rs as a picture's Want: never nil, since a nil Want says the
// test stated no expectation, where an empty one says nothing at all was
// wanted.
func wanted(rs []kit.Result) []kit.Result {
	if rs == nil {
		return []kit.Result{}
	}
	return rs
}

// tracedCalls is how many calls TracePicture draws at most: the last ones
// up to where the test stopped, which a page of at most 400 rows holds.
const tracedCalls = 300

// opStep is the picture's step of the call o, which returned out and left
// the watermark at wm.
func opStep(o Op, out []kit.Result, wm int64) picture.Step {
	s := picture.Step{Op: picture.OpFlush, Partition: -1, Watermark: wm, Emitted: out}
	switch o.Kind {
	case "process":
		s.Op, s.Event = picture.OpEvent, o.Event
	case "advance":
		s.Op, s.Label = picture.OpWatermark, o.String()
	}
	return s
}
