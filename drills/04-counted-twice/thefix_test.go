//go:build lab || solution

package countedtwice

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/flk-byo/course/drills/04-counted-twice/engine"
	"github.com/flk-byo/course/internal/suite"
)

// TestFixKeepsEqualIncrements certifies that without any crash the usage table counts every minute's increment once, the pollers' equal increments too (count 1, units 1, every minute of the hour), and that a reader sees only what completed checkpoints committed.
//
// The two pollers, a status page and an uptime probe, call once a minute
// for one unit: within an hour, each of their minutes adds the same line to
// their row, and each is a minute of real usage.
func TestFixKeepsEqualIncrements(t *testing.T) {
	defer suite.Recover(t)
	if isChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes: let the tests run together
	h := newReplay(t).clean
	h.checkTable(t, "statuspage and uptime-probe add count=1 units=1 to their row every minute: equal increments, each one\n"+
		"a real minute of usage. A table that drops a line because an equal one is there already (deduplication by\n"+
		"content, on the reader's side or the sink's) undercounts every steady customer; what tells a replayed increment\n"+
		"from a new one is where it is in the job's checkpoints, not what it says.")
	h.checkReader(t, "billing and the dashboard read the table at any moment, and whatever they read is final for them:\n"+
		"an increment must become visible only when the checkpoint after it completes (after StepStored, by\n"+
		"StepAfterCommit), all of a checkpoint's increments at once, never one at a time as they are written.")
}

// TestFixIsExactlyOnceWhereverItIsKilled certifies that the job, killed for real at a seeded point of every step of stage 05's protocol (a write, before and after the pre-commit, after the checkpoint is stored, after the commit), at its first checkpoint, in the middle of a write (its file torn), and twice in a row, then restarted 30 s later each time, leaves exactly the usage table the log makes.
func TestFixIsExactlyOnceWhereverItIsKilled(t *testing.T) {
	defer suite.Recover(t)
	if isChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes: let the tests run together
	r := newReplay(t)
	rnd, clean := r.rnd, r.clean
	// seeded returns a point of step in the middle half of the run without
	// a crash: a write, or a checkpoint whose transaction holds increments
	// (most hold none: a minute closes every sixth checkpoint).
	seeded := func(step engine.Step) crashPoint { return busyPoint(clean, step, rnd) }
	sizes, err := suite.FileSizes(clean.dir)
	if err != nil || len(sizes) < 2 {
		t.Fatalf("the job's run without a crash left %d non-empty files in its Dir (%v): it keeps its checkpoints and the usage\n"+
			"table there", len(sizes), err)
	}
	largest, second := int(sizes[len(sizes)-1]), int(sizes[len(sizes)-2])
	why := map[engine.Step]string{
		engine.StepWrite: "the kill dropped the open transaction: nothing of it was visible, and the restart replays the log from the\n" +
			"last checkpoint, which writes those increments again, once.",
		engine.StepBeforePreCommit: "the checkpoint had begun but nothing of it was durable: the restart resumes from the one before, and\n" +
			"the replay writes the open transaction's increments again.",
		engine.StepAfterPreCommit: "the transaction was durable but its checkpoint not stored, so the checkpoint never completed: the restart\n" +
			"resumes from the one before and replays those increments, so recovery must abort the transaction, not commit it;\n" +
			"and nothing may be visible before the checkpoint is stored.",
		engine.StepStored: "the checkpoint was complete but its transaction not committed: the restart resumes after it and never\n" +
			"writes those increments again, so recovery must commit what the checkpoint lists as pending.",
		engine.StepAfterCommit: "the transaction was committed and is still listed as pending in the checkpoint: recovery commits it\n" +
			"again, which must change nothing.",
		tornAtFileSize: "a kill can come in the middle of a write and leave only its first bytes: a torn transaction was never\n" +
			"pre-committed, so recovery aborts it; a torn checkpoint must never be the one a restart reads (write it to a\n" +
			"temporary file, fsync, rename).",
	}
	cases := []crashCase{
		{"killed at a write", []crashPoint{seeded(engine.StepWrite)}, why[engine.StepWrite]},
		{"killed between two increments of one minute", []crashPoint{midMinuteWrite(clean, rnd)},
			why[engine.StepWrite] + " A minute closes for every customer at once: some of its increments were written before the\n" +
				"kill, the rest not, and a replay that skips what looks written already (by the minute's end, say) loses the rest."},
	}
	for _, step := range checkpointSteps {
		cases = append(cases, crashCase{fmt.Sprintf("killed at %s", step), []crashPoint{seeded(step)}, why[step]})
	}
	cases = append(cases,
		crashCase{"killed at the first checkpoint, stored", []crashPoint{{engine.StepStored, 1}}, why[engine.StepStored]},
		crashCase{"killed at the first checkpoint, after its pre-commit", []crashPoint{{engine.StepAfterPreCommit, 1}},
			why[engine.StepAfterPreCommit] + " With no checkpoint stored, the restart is a fresh start, which must recover the\n" +
				"sink too (with nothing pending) and abort the stray transaction."},
		crashCase{"torn near the end of its largest file", []crashPoint{{tornAtFileSize, second + rnd.IntN(max(1, largest-second))}}, why[tornAtFileSize]},
		crashCase{"torn anywhere", []crashPoint{{tornAtFileSize, rnd.IntN(largest)}}, why[tornAtFileSize]},
		crashCase{"killed after a checkpoint is stored, then at a write after the restart",
			[]crashPoint{seeded(engine.StepStored), {engine.StepWrite, 1 + rnd.IntN(10)}},
			"each restart recovers from the latest completed checkpoint, whatever the kills before it left: committed\n" +
				"transactions stay, pending ones are committed, the rest is aborted and replayed."},
	)
	r.runCases(t, cases, (*history).checkTable)
}

// TestFixReaderSeesOnlyCommittedTotals certifies that a reader of the usage table, reading at every step of the job and while it is down after a kill (at a write, after a pre-commit, after a checkpoint is stored, in the middle of a write), never fails, never sees a torn or half-written table, never sees an increment before its checkpoint completes, and never sees the table go back.
func TestFixReaderSeesOnlyCommittedTotals(t *testing.T) {
	defer suite.Recover(t)
	if isChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes: let the tests run together
	r := newReplay(t)
	last := killableWrite(t, r.clean, r.rnd)
	why := "billing invoices what it reads, and the dashboard shows it to the customer: a row they have read must\n" +
		"never be taken back or added to twice. Only a two-phase commit gives that: increments invisible in an open\n" +
		"transaction, pre-committed (durable, still invisible) at a checkpoint, published all at once by an atomic commit\n" +
		"once the checkpoint is stored, and a reader that reads committed transactions only (read-committed). Truncating\n" +
		"the table back to the checkpoint on a restart takes back what a reader already saw."
	r.runCases(t, []crashCase{
		{"killed between a write and the next checkpoint", []crashPoint{{engine.StepWrite, last}}, why},
		{"killed in the middle of a write", []crashPoint{{tornAfterWrite, last - 1}}, why},
		{"killed after a pre-commit", []crashPoint{busyPoint(r.clean, engine.StepAfterPreCommit, r.rnd)}, why},
		{"killed after a checkpoint is stored", []crashPoint{busyPoint(r.clean, engine.StepStored, r.rnd)}, why},
	}, (*history).checkReader)
}

// midMinuteWrite returns a write of the run without a crash, clean, to kill
// the job at: in the middle half of the run, followed by another increment
// of the same record (the same minute closing for another customer),
// seeded among those.
func midMinuteWrite(clean *history, rnd *rand.Rand) crashPoint {
	var candidates []int
	writes := 0
	for i, ob := range clean.obs {
		if ob.step != engine.StepWrite {
			continue
		}
		writes++
		if next := i + 1; next < len(clean.obs) && clean.obs[next].step == engine.StepWrite && clean.obs[next].at.Equal(ob.at) &&
			i > len(clean.obs)/4 && i < 3*len(clean.obs)/4 {
			candidates = append(candidates, writes)
		}
	}
	if len(candidates) == 0 {
		return crashPoint{engine.StepWrite, 1 + writes/2}
	}
	return crashPoint{engine.StepWrite, candidates[rnd.IntN(len(candidates))]}
}

// busyPoint returns a point of step in the middle half of the run without
// a crash, clean, seeded: for a write any write, for a checkpoint step one
// of a checkpoint with increments in its transaction (writes since the
// step's previous occurrence). If the job never reported step, it returns
// its first occurrence: the run then ends without a kill, and runJob says
// why that fails.
func busyPoint(clean *history, step engine.Step, rnd *rand.Rand) crashPoint {
	var candidates []int
	n, writes := 0, 0
	for i, ob := range clean.obs {
		switch {
		case ob.step == engine.StepWrite:
			writes++
			if step == engine.StepWrite {
				n++
			}
		case ob.step == step:
			n++
		default:
			continue
		}
		if writes > 0 && ob.step == step && i > len(clean.obs)/4 && i < 3*len(clean.obs)/4 {
			candidates = append(candidates, n)
		}
		if ob.step == step && step != engine.StepWrite {
			writes = 0
		}
	}
	if len(candidates) == 0 {
		return crashPoint{step, 1}
	}
	return crashPoint{step, candidates[rnd.IntN(len(candidates))]}
}
