package windowtest

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// CutPicture draws, with pictures on, a restore-and-continue run as a page
// for test t (picture.Save) and returns the line that links it, or "".
// The run is the calls ops: the first cut as the uninterrupted run full
// made them (a snapshotted processor made the same calls), then the
// restore, then cont, what the restored processor did with the calls after
// the cut (as far as it got); the page marks where it first differs from
// what full returned for the same calls. w says the windows to draw.
func CutPicture(t testing.TB, note string, w picture.Windows, ops []Op, full Trace, cut int, cont Trace) string {
	if !picture.Enabled() {
		return ""
	}
	var steps []picture.Step
	add := func(o Op, out []kit.Result, wm int64) {
		s := picture.Step{Op: picture.OpFlush, Partition: -1, Watermark: wm, Emitted: out}
		switch o.Kind {
		case "process":
			s.Op, s.Event = picture.OpEvent, o.Event
		case "advance":
			s.Op, s.Label = picture.OpWatermark, o.String()
		}
		steps = append(steps, s)
	}
	for i := range cut {
		add(ops[i], full.Outs[i], full.WMs[i])
	}
	wmAtCut := int64(math.MinInt64)
	if cut > 0 {
		wmAtCut = full.WMs[cut-1]
	}
	steps = append(steps, picture.Step{Op: picture.OpRestore, Partition: -1, Watermark: wmAtCut})
	n := min(len(cont.Outs), len(ops)-cut)
	for j := range n {
		wm := wmAtCut
		if j < len(cont.WMs) {
			wm = cont.WMs[j]
		}
		add(ops[cut+j], cont.Outs[j], wm)
	}
	return "\n" + picture.Save(t, picture.Run{
		Title:   fmt.Sprintf("%s: snapshot after call %d, restored", t.Name(), cut),
		Note:    note,
		Windows: w,
		Steps:   steps,
		Late:    cont.Late,
		Want:    Emitted(full.Outs[:cut+n]),
	})
}
