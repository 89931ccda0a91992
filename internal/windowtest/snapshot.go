package windowtest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// SnapshotCopy describes, to CheckSnapshotIsACopy, a kind of processor
// whose state is snapshotted and restored: stage 04's Processor, stage
// 06's ParallelProcessor, stage 08's SessionProcessor.
type SnapshotCopy[P Processor] struct {
	// Ops is the seeded call sequence; Want is what the uninterrupted
	// oracle did over it (one Processor, for a parallel one).
	Ops  []Op
	Want Trace
	// Cuts are the positions in Ops at which snapshots are taken.
	Cuts []int
	// Prefix returns a new processor after the calls Ops[:cut].
	Prefix func(t *testing.T, cut int) P
	// Snapshot returns p's snapshot, stopping t if that fails.
	Snapshot func(t *testing.T, p P) []byte
	// Restore restores snap, stopping t if that fails; which (0, 1, 2)
	// lets a kind that restores in several ways use each (a parallel
	// snapshot at another parallelism).
	Restore func(t *testing.T, snap []byte, which int) P
	// Other is an event the first of two restores processes after the
	// rest, so that the two would differ if they shared state.
	Other kit.Event
	// Restorer names the restore function in messages, "RestoreProcessor".
	Restorer string
	// Windows says which windows the processor assigns, for the picture
	// of a restored processor that goes on differently (Cut.Picture).
	Windows picture.Windows
}

// CheckSnapshotIsACopy runs, as subtests of t, the four ways a snapshot
// must be a copy, each at every cut of c: its bytes never change while the
// processor goes on and takes more snapshots; it restores the state it was
// taken from, however far the live processor got; a restored processor
// keeps no reference to the snapshot's bytes (the test overwrites them);
// and two restores of one snapshot share nothing. A restored processor is
// right when it makes the calls after the cut as the oracle did, side
// output included.
func CheckSnapshotIsACopy[P Processor](t *testing.T, c SnapshotCopy[P]) {
	// continues fails t and returns false unless p makes the calls
	// Ops[cut:] as the oracle did.
	continues := func(t *testing.T, p P, cut int, why string) bool {
		t.Helper()
		got := Replay(p, c.Ops[cut:])
		cutRun := Cut{Ops: c.Ops, Full: c.Want, At: cut, LateAtCut: c.Prefix(t, cut).Late(), Cont: got}
		for i, out := range got.Outs {
			if want := c.Want.Outs[cut+i]; !slices.Equal(out, want) {
				msg := fmt.Sprintf("Restored from the snapshot taken after call %d of %d, call %d %v returned\n%s\nthe uninterrupted run returned\n%s\n%s",
					cut, len(c.Ops), cut+i+1, c.Ops[cut+i], FmtResults(out), FmtResults(want), why)
				cutRun.Cont = Trace{Outs: got.Outs[:i+1], WMs: got.WMs[:i+1], Late: got.Late}
				t.Errorf("%s%s", msg, cutRun.Picture(t, msg, c.Windows))
				return false
			}
		}
		if want := c.Want.Late[len(cutRun.LateAtCut):]; !slices.Equal(got.Late, want) {
			msg := fmt.Sprintf("Restored from the snapshot taken after call %d of %d, the calls after it sent %s to the side output;\n"+
				"the uninterrupted run sent %s\n%s", cut, len(c.Ops), FmtEvents(got.Late), FmtEvents(want), why)
			t.Errorf("%s%s", msg, cutRun.Picture(t, msg, c.Windows))
			return false
		}
		return true
	}

	t.Run("its bytes never change", func(t *testing.T) {
		defer suite.Recover(t)
		for _, cut := range c.Cuts {
			p := c.Prefix(t, cut)
			snap := c.Snapshot(t, p)
			kept := bytes.Clone(snap)
			for _, o := range c.Ops[cut:] {
				o.Apply(p)
				c.Snapshot(t, p) // a job checkpoints again and again
			}
			if !bytes.Equal(snap, kept) {
				t.Errorf("The snapshot taken after call %d changed while the processor went on and took more snapshots:\n%s\n"+
					"Snapshot must return bytes of their own: a fresh slice, not a buffer you reuse, not a view of live\n"+
					"state. A snapshot is stored while processing continues; Flink's asynchronous snapshots copy (on\n"+
					"write) for the same reason.", cut, suite.ByteDiff(kept, snap))
				return
			}
		}
	})

	t.Run("it restores the state it was taken from", func(t *testing.T) {
		defer suite.Recover(t)
		for _, cut := range c.Cuts {
			p := c.Prefix(t, cut)
			snap := c.Snapshot(t, p)
			Replay(p, c.Ops[cut:]) // the live processor moves on: windows fire, expire, take updates
			c.Snapshot(t, p)
			if !continues(t, c.Restore(t, snap, 0), cut,
				"After the snapshot, the live processor went on to the end. Restoring the older snapshot must give\n"+
					"the state as it was when the snapshot was taken: the snapshot must copy, not alias, live state.") {
				return
			}
		}
	})

	t.Run("a restored processor keeps no reference to the snapshot", func(t *testing.T) {
		defer suite.Recover(t)
		for _, cut := range c.Cuts {
			snap := c.Snapshot(t, c.Prefix(t, cut))
			r := c.Restore(t, snap, 1)
			for i := range snap {
				snap[i] = 'x' // the caller may reuse its buffer
			}
			if !continues(t, r, cut,
				"After "+c.Restorer+" returned, the test overwrote the snapshot's bytes. The restored processor must\n"+
					"own its state: copy what it keeps out of the input (string(b) copies; unsafe.String does not).") {
				return
			}
		}
	})

	t.Run("two restores of one snapshot are independent", func(t *testing.T) {
		defer suite.Recover(t)
		for _, cut := range c.Cuts {
			snap := c.Snapshot(t, c.Prefix(t, cut))
			r1, r2 := c.Restore(t, snap, 1), c.Restore(t, snap, 2)
			Replay(r1, c.Ops[cut:])
			r1.Process(c.Other)
			if !continues(t, r2, cut,
				"Two processors restored from the same snapshot share nothing: running one must not change the other.\n"+
					"Does "+c.Restorer+" reuse a package-level map or buffer, or state it decoded once?") {
				return
			}
		}
	})
}
