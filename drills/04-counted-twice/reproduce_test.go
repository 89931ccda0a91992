//go:build lab || solution

package countedtwice

import (
	"math/rand/v2"
	"testing"

	"github.com/flk-byo/course/drills/04-counted-twice/engine"
	"github.com/flk-byo/course/internal/suite"
)

// TestReproduceTotalsDoubledAfterARestart certifies that the usage job, killed for real between a write to the usage table and the next checkpoint (SIGKILL), or in the middle of a write (the kernel's SIGXFSZ), and restarted 30 s later, leaves every customer's totals exactly as the log makes them: the symptom on-call reported, some totals doubled after Tuesday's restart.
//
// The job runs in a child process of the test binary, which kills itself
// at the chosen write; the test reads the table while it is down, restarts
// it in a fresh child from the same directory, and compares the table with
// the one the log makes.
func TestReproduceTotalsDoubledAfterARestart(t *testing.T) {
	defer suite.Recover(t)
	if isChild(t) {
		return
	}
	r := newReplay(t)
	last := killableWrite(t, r.clean, r.rnd)
	why := "the restart resumes from the last checkpoint and replays the log from its offset, so every increment\n" +
		"written after that checkpoint and before the kill is written again. An append is not idempotent, whatever a comment\n" +
		"says, and a flag nothing reads (AtLeastOnce) changes nothing. What would have to be true of what a reader sees\n" +
		"before a checkpoint completes, for a replay to be harmless?"
	r.runCases(t, []crashCase{
		{"killed between a write and the next checkpoint", []crashPoint{{engine.StepWrite, last}}, why},
		{"killed in the middle of a write", []crashPoint{{tornAfterWrite, last - 1}}, why},
	}, (*history).checkTable)
}

// killableWrite returns a write of the job's run h to kill it at: the last
// write before a checkpoint, after at least 3 writes since the checkpoint
// before, in the middle half of the run (seeded among those), so that a
// restart replays several increments. It stops the test if there is none.
func killableWrite(t *testing.T, h *history, rnd *rand.Rand) int {
	t.Helper()
	var candidates []int
	writes, inRow, checkpointed := 0, 0, false
	for i, ob := range h.obs {
		if ob.step == engine.StepWrite {
			writes++
			inRow++
			continue
		}
		if inRow >= 3 && checkpointed && i > len(h.obs)/4 && i < 3*len(h.obs)/4 {
			candidates = append(candidates, writes)
		}
		checkpointed, inRow = true, 0
	}
	if len(candidates) == 0 {
		t.Fatalf("the job's run without a crash never wrote 3 increments between two checkpoints in the middle of its run:\n%s\n%s\n"+
			"It must write each minute's increment to the usage table as it closes (calling OnStep(StepWrite, id) after each)\n"+
			"and checkpoint every CheckpointInterval (calling OnStep at each step of the checkpoint).",
			h.fmtStory(), h.timeline(len(h.obs)/2, -1))
	}
	return candidates[rnd.IntN(len(candidates))]
}
