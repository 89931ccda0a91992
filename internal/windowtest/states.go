package windowtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/flk-byo/course/kit"
)

// The configuration the States scenarios are written for: windows of 10 ms,
// a watermark 5 ms behind the largest timestamp, and corrections until 20 ms
// after a window's end.
const (
	StateWindow   = int64(10)
	StateDelay    = int64(5)
	StateLateness = int64(20)
)

// State is one kind of state a processor can be in when a snapshot, or a
// rescale, is taken: the calls that put it there, and the calls that follow
// the restore. The calls after redeliver every event before, then reach
// every kind of window (open, fired, expired) with new events, raise the
// watermark, flush and go on after the end, so that whatever the snapshot
// lost shows in what the restored processor returns.
type State struct {
	Name   string // what the processor holds when the snapshot is taken
	Before []Op   // the calls before the snapshot
	After  []Op   // the calls after the restore
}

// Ops returns the whole call sequence, Before then After, and where it is
// cut: len(Before).
func (s State) Ops() (ops []Op, cut int) {
	return slices.Concat(s.Before, s.After), len(s.Before)
}

// States returns every kind of state a window processor can be in at a
// snapshot, for StateWindow, StateDelay and StateLateness, over the keys
// x, y and z (distinct; a stage may pick them to land on chosen key groups,
// or make them awkward): states no event has produced (a new processor, a
// watermark from AdvanceWatermark alone), open and fired windows, windows
// all expired with their seen IDs kept, a key whose only event went to the
// side output, a watermark raised above max − delay, a flushed processor,
// and awkward IDs (kit.AwkwardStrings) with values at the int64 edges
// (kit.EdgeValues). Every ID belongs to one key: a redelivery is the same
// event.
func States(x, y, z string) []State {
	if x == y || y == z || x == z {
		panic(fmt.Sprintf("windowtest.States: the keys must be distinct, got %q, %q and %q", x, y, z))
	}
	n := 0
	// ev returns a new event of key at ts with value v, named "b1", "b2"
	// and so on before the snapshot.
	ev := func(key string, ts, v int64) Op {
		n++
		return ProcessOp(Ev(fmt.Sprintf("b%d", n), key, ts, v))
	}
	states := []State{
		{Name: "a new processor"},
		{Name: "a watermark from AdvanceWatermark alone, before any event",
			Before: []Op{AdvanceOp(25)}},
		{Name: "open windows, none fired",
			Before: []Op{ev(x, 2, 1), ev(y, 4, 2), ev(x, 12, 4)}},
		{Name: "a window fired and still inside its allowed lateness",
			Before: []Op{ev(x, 2, 1), ev(y, 8, 2), ev(z, 17, 4)}},
		{Name: "every window expired, their seen IDs kept",
			Before: []Op{ev(x, 2, 1), ev(y, 3, 2), AdvanceOp(40)}},
		{Name: "a key whose only event went to the side output",
			Before: []Op{AdvanceOp(40), ev(z, 3, 8)}},
		{Name: "a watermark raised by AdvanceWatermark above max − delay",
			Before: []Op{ev(x, 12, 1), AdvanceOp(18), ev(y, 9, 2)}},
		{Name: "late and redelivered events among open and fired windows",
			Before: []Op{ev(x, 30, 1), ev(y, 12, 2), ev(z, 1, 4), ev(y, -4, 8), ev(x, 2, 16)}},
		{Name: "a flushed processor",
			Before: []Op{ev(x, 2, 1), ev(y, 15, 2), FlushOp()}},
	}
	// Redeliveries within the late-and-redelivered state: a counted event,
	// the late one, a correction.
	mixed := &states[7]
	mixed.Before = append(mixed.Before, mixed.Before[0], mixed.Before[3], mixed.Before[1])

	// Awkward IDs with values at the int64 edges: five counted in [0,10)
	// and [10,20), which AdvanceWatermark(45) then expires, two sent to the
	// side output, three counted in fired and open windows after it.
	var awkward []Op
	keys := []string{x, y, z}
	times := []int64{3, 7, 11, 15, 19, 5, 13, 23, 31, 47}
	for i, id := range kit.AwkwardStrings() {
		if i == 5 {
			awkward = append(awkward, AdvanceOp(45))
		}
		awkward = append(awkward, ProcessOp(Ev(id, keys[i%3], times[i], kit.EdgeValues[i%len(kit.EdgeValues)])))
	}
	states = append(states, State{Name: "awkward IDs, values at the int64 edges", Before: awkward})

	for i := range states {
		states[i].After = after(states[i].Before, x, y, z)
	}
	return states
}

// after returns the calls that follow a snapshot taken after before: every
// event of before again, in order (each a no-op), then new events in every
// window the states use, a watermark raised past some of them, Flush, and
// a redelivery and a new event after the end.
func after(before []Op, x, y, z string) []Op {
	var ops []Op
	for _, o := range before {
		if o.Kind == "process" {
			ops = append(ops, o)
		}
	}
	n := 0
	ev := func(key string, ts, v int64) Op {
		n++
		return ProcessOp(Ev(fmt.Sprintf("a%d", n), key, ts, v))
	}
	first := ev(x, 3, 16)
	ops = append(ops,
		ev(y, 26, 32), first, ev(z, 14, 64), AdvanceOp(33), ev(x, 14, 128),
		ev(y, 3, 256), ev(z, 41, 512), ev(x, 48, 1024), AdvanceOp(60), ev(y, 44, 2048),
		FlushOp(), first, ev(x, 70, 4096))
	return ops
}

// SamplePositions returns the byte positions of an n-byte input that a
// test corrupts or cuts at: all of them when n ≤ 4096; otherwise the first
// and last 32 and a seeded sample of about 4096 in between, in ascending
// order, so that a snapshot holding a 70 000-byte key is still checked in
// well under a second.
func SamplePositions(r *rand.Rand, n int) []int {
	const all, ends = 4096, 32
	positions := make([]int, 0, min(n, all+2*ends))
	for i := range n {
		if n <= all || i < ends || i >= n-ends || r.IntN(n) < all {
			positions = append(positions, i)
		}
	}
	return positions
}
