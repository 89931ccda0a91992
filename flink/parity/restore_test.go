//go:build flink

package parity

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/solutions"
)

// TestRestoreAndContinueMatchesFlink checks stage 04 against Flink's own
// snapshot and restore of its WindowOperator (the keyed state and the
// timers an OperatorSubtaskState holds): tumbling windows with allowed
// lateness, restored at one to three random points (before the first call
// and after Flush included), or after every call. At each point the course
// snapshots its Processor and carries on with RestoreProcessor's, and the
// runner snapshots Flink's operator and carries on with a new one
// initialized from the snapshot. Four runs must agree call by call: the
// course's restored run with Flink's restored run, and each with its own
// side's uninterrupted run (a restore's own step: no results, no side
// output, the watermark unchanged). After each restore the course's Late()
// starts empty, as the new harness's side output does: each step holds
// what its call added to the side output of the processor of the moment.
// Flink's snapshot holds no watermark: the runner passes the restored
// operator its last one (docs/PARITY.md).
func TestRestoreAndContinueMatchesFlink(t *testing.T) {
	checkWindows(t, "stage 04, restore and continue", func(r *seeded) windowCase {
		c := tumblingCase(r, true)
		if r.IntN(10) == 0 {
			c.ops = restoreAfterEach(c.ops)
		} else {
			c.ops = r.restores(c.ops)
		}
		c.restore = restoreProcessor
		c.variants = uninterrupted()
		return c
	})
}

// restoreProcessor restores stage 01's Processor from its snapshot, as
// stage 04 does: Snapshot, then RestoreProcessor.
func restoreProcessor(p windowtest.Processor) (windowtest.Processor, error) {
	snapshot, err := p.(*solutions.Processor).Snapshot()
	if err != nil {
		return nil, fmt.Errorf("Snapshot: %w", err)
	}
	q, err := solutions.RestoreProcessor(snapshot)
	if err != nil {
		return nil, fmt.Errorf("RestoreProcessor: %w", err)
	}
	return q, nil
}

// restores returns ops with one to three restore calls among them, at
// random places: before the first call and after the last too, and now and
// then two in a row.
func (r *seeded) restores(ops []windowtest.Op) []windowtest.Op {
	out := slices.Clone(ops)
	for range 1 + r.IntN(3) {
		out = slices.Insert(out, r.IntN(len(out)+1), restoreOp())
	}
	return out
}

// restoreAfterEach returns ops with a restore call after every call.
func restoreAfterEach(ops []windowtest.Op) []windowtest.Op {
	out := make([]windowtest.Op, 0, 2*len(ops))
	for _, o := range ops {
		out = append(out, o, restoreOp())
	}
	return out
}
