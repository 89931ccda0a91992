//go:build lab || solution

package twophase

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The tests in this file kill the job for real: each runs RunJob in a child
// process of the test binary (suite.RunChild) that sends itself SIGKILL at
// a seeded step, restarts it in a fresh child, and compares ReadCommitted
// with an uninterrupted run. See job_helpers_test.go for the protocol.

// TestJobSurvivesCrashAtEveryStep certifies that a job killed with SIGKILL at a seeded point of each protocol step, then restarted, commits exactly the output of an uninterrupted run.
//
// Each case runs the job in a child process of the test binary that kills
// itself at the named step, then runs it again in a fresh child process
// without a crash, and compares what ReadCommitted shows with an
// uninterrupted run in another Dir.
func TestJobSurvivesCrashAtEveryStep(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	specs := crashSpecs(rnd)
	why := map[Step]string{
		StepWrite: "the crash dropped the open transaction: its results were never pre-committed, so recovery discards them " +
			"and the replay from the last checkpoint produces them again",
		StepBeforePreCommit: "the checkpoint had begun but nothing of it was durable: the restart resumes from the one before, " +
			"and the open transaction's results come back through the replay",
		StepAfterPreCommit: "the transaction was durable but its checkpoint was not stored, so it never completed: recovery must abort " +
			"it (the replay produces its results again), not commit it",
		StepStored: "the checkpoint was complete but its transaction not yet committed: recovery must commit it, because the " +
			"restart resumes after this checkpoint and will never produce those results again",
		StepAfterCommit: "the transaction was committed and is still listed as pending in the stored checkpoint: recovery commits " +
			"it again, which must be a no-op",
	}
	oracles, cleans := make([]oracle, len(specs)), make([][]kit.Result, len(specs))
	for i, spec := range specs {
		oracles[i] = newOracle(t, spec)
		cleans[i], _ = runClean(t, spec, oracles[i])
	}
	for i, step := range []Step{StepWrite, StepBeforePreCommit, StepAfterPreCommit, StepStored, StepAfterCommit} {
		spec, o, clean := specs[i%len(specs)], oracles[i%len(specs)], cleans[i%len(specs)]
		at := 1 + rnd.IntN(o.checkpoints())
		if step == StepWrite {
			at = 1 + rnd.IntN(o.writes())
		}
		plan := []crashPoint{{step, at}}
		t.Run(string(step), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, spec, o, plan)
			cr.expectExactlyOnce(clean, why[step])
		})
	}
}

// TestJobSurvivesCrashAtFirstCheckpoint certifies that a job killed at its first write, after pre-committing checkpoint 1 (a stray transaction and no checkpoint yet), when checkpoint 1 is stored and when it is committed, then restarted, commits exactly the output of an uninterrupted run.
//
// These are fixed cases, not seeded ones: a restart with no completed
// checkpoint is a fresh start, and it must recover the sink too
// (RecoverTwoPhaseCommitSink with no pending ids), or checkpoint 1's stray
// transaction is in the way when the restarted job pre-commits checkpoint 1
// again.
func TestJobSurvivesCrashAtFirstCheckpoint(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	var spec jobSpec
	var o oracle
	for { // checkpoint 1 has results, so that the first write is one of its own
		spec = crashSpecs(rnd)[0]
		if o = newOracle(t, spec); len(o.perCheckpoint[0]) > 0 {
			break
		}
	}
	clean, _ := runClean(t, spec, o)
	for _, c := range []struct {
		at  crashPoint
		why string
	}{
		{crashPoint{StepWrite, 1}, "the crash dropped checkpoint 1's open transaction and left no checkpoint: the restart is a " +
			"fresh start, and the replay from offset 0 produces those results again"},
		{crashPoint{StepAfterPreCommit, 1}, "checkpoint 1's transaction was pre-committed but the checkpoint never stored: the restart " +
			"is a fresh start, which must recover the sink too (RecoverTwoPhaseCommitSink with no pending ids) and abort that stray " +
			"transaction; the replay pre-commits checkpoint 1 again"},
		{crashPoint{StepStored, 1}, "checkpoint 1 was stored, its transaction not yet committed: the restart resumes after " +
			"checkpoint 1 and recovery must commit its transaction"},
		{crashPoint{StepAfterCommit, 1}, "checkpoint 1 was committed and is still pending in the stored checkpoint: recovery " +
			"commits it again, which must be a no-op"},
	} {
		t.Run(fmt.Sprintf("%s #1", c.at.Step), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, spec, o, []crashPoint{c.at})
			cr.expectExactlyOnce(clean, c.why)
		})
	}
}

// TestCrashBetweenPreCommitAndCommitLosesNothing certifies that a job killed after pre-committing a checkpoint but before committing it, then restarted, loses and duplicates no result.
//
// Killed after the checkpoint is stored, its transaction must be committed
// by recovery (aborting it loses output: the classic recovery bug); killed
// before, it must be aborted and replayed.
func TestCrashBetweenPreCommitAndCommitLosesNothing(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	specs := crashSpecs(rnd)
	type scenario struct {
		name  string
		spec  jobSpec
		o     oracle
		clean []kit.Result
		at    crashPoint
	}
	var scenarios []scenario
	cleans := make([][]kit.Result, len(specs))
	for i, spec := range specs {
		o := newOracle(t, spec)
		cleans[i], _ = runClean(t, spec, o)
		C := o.checkpoints()
		early := 1 + rnd.IntN(C/2)
		late := C/2 + 1 + rnd.IntN(C-C/2-1) // before the final one
		scenarios = append(scenarios,
			scenario{fmt.Sprintf("job %d stored, checkpoint %d of %d", i+1, early, C), spec, o, cleans[i], crashPoint{StepStored, early}},
			scenario{fmt.Sprintf("job %d stored, checkpoint %d of %d", i+1, late, C), spec, o, cleans[i], crashPoint{StepStored, late}},
		)
		if i == 0 {
			scenarios = append(scenarios, scenario{fmt.Sprintf("job %d stored, the final checkpoint %d", i+1, C), spec, o, cleans[i], crashPoint{StepStored, C}})
		} else {
			at := 1 + rnd.IntN(C)
			scenarios = append(scenarios, scenario{fmt.Sprintf("job %d after-pre-commit, checkpoint %d of %d", i+1, at, C), spec, o, cleans[i], crashPoint{StepAfterPreCommit, at}})
		}
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, s.spec, s.o, []crashPoint{s.at})
			why := fmt.Sprintf("checkpoint %d was stored, so it completed: it lists its transaction as pending, and RecoverTwoPhaseCommitSink "+
				"must commit it. The restarted job resumes after checkpoint %d, so if recovery aborts that transaction, "+
				"nothing ever produces its results again", s.at.At, s.at.At)
			if s.at.Step == StepAfterPreCommit {
				why = fmt.Sprintf("checkpoint %d was pre-committed but never stored: the restart resumes from checkpoint %d and replays "+
					"its results, so recovery must abort the pre-committed transaction (it is not pending), not publish it", s.at.At, s.at.At-1)
			}
			cr.expectExactlyOnce(s.clean, why)
		})
	}
}

// TestRestartReplaysFromCheckpointedOffset certifies that a job killed between checkpoints resumes the source from its last checkpoint's offset with the processor of that checkpoint, so no result is lost or duplicated.
func TestRestartReplaysFromCheckpointedOffset(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	// Every event counts: no redeliveries and no late events (the disorder
	// stays within the delay), so replaying from the wrong offset always
	// shows: an event skipped changes a count, an event processed twice by
	// a fresh processor duplicates a result.
	var spec jobSpec
	for {
		evs := kit.RandomEvents(rnd, 120+rnd.IntN(30), []string{"a", "b", "c"}, 0, 2500)
		spec = jobSpec{Processor: Config{WindowSize: 100, WatermarkDelay: 50}, Every: 9 + rnd.IntN(3), Source: kit.BoundedShuffle(rnd, evs, 50)}
		if len(spec.Source)%spec.Every != 0 {
			break
		}
	}
	o := newOracle(t, spec)
	clean, _ := runClean(t, spec, o)
	C := o.checkpoints()
	// A write of checkpoint c ≥ 2 (so checkpoint c−1 was committed before
	// the crash) that is not the first of its transaction (so results are
	// lost with the open transaction): once in the first half, once later.
	var candidates [2][]int
	for w := 1; w <= o.writes(); w++ {
		c := o.checkpointOfWrite(w)
		if c >= 2 && w > o.writesThrough(c-1)+1 {
			half := 0
			if c > C/2 {
				half = 1
			}
			candidates[half] = append(candidates[half], w)
		}
	}
	for i, name := range []string{"early", "late"} {
		if len(candidates[i]) == 0 {
			t.Fatalf("suite bug: no write to crash at in the %s half of %v", name, spec)
		}
		at := crashPoint{StepWrite, candidates[i][rnd.IntN(len(candidates[i]))]}
		t.Run(name, func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, spec, o, []crashPoint{at})
			r := at.restoredAfter(o)
			cr.expectExactlyOnce(clean, fmt.Sprintf("the crash dropped the open transaction, %d results of checkpoint %d. "+
				"They come back only if the restart restores the processor from checkpoint %d and replays the source from that "+
				"checkpoint's offset, %d. Resuming later loses events; replaying earlier events into a processor that has not "+
				"seen them (a fresh one) produces results that are already committed a second time",
				at.local(o, r), r+1, r, r*spec.Every))
		})
	}
}

// TestJobSurvivesRepeatedCrashes certifies that a job killed with SIGKILL several times in a row, at seeded points, and then run to the end, commits exactly the output of an uninterrupted run.
func TestJobSurvivesRepeatedCrashes(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	specs := crashSpecs(rnd)
	steps := []Step{StepWrite, StepBeforePreCommit, StepAfterPreCommit, StepStored, StepAfterCommit}
	for i, crashes := range []int{2, 3} {
		spec := specs[i%len(specs)]
		o := newOracle(t, spec)
		clean, _ := runClean(t, spec, o)
		// Each crash point lies in the run it kills: after the checkpoint the
		// previous crash resumes from, within the first half of what is left,
		// so the following runs have room for theirs.
		var plan []crashPoint
		restored := 0
		for range crashes {
			if restored == o.checkpoints() {
				break // the last crash left nothing to crash in
			}
			step := steps[rnd.IntN(len(steps))]
			if step == StepWrite && o.writes() == o.writesThrough(restored) {
				step = StepStored // no write left to crash at
			}
			var at int
			if step == StepWrite {
				from, left := o.writesThrough(restored), o.writes()-o.writesThrough(restored)
				at = from + 1 + rnd.IntN(max(1, left/2))
			} else {
				at = restored + 1 + rnd.IntN(max(1, (o.checkpoints()-restored)/2))
			}
			p := crashPoint{step, at}
			plan = append(plan, p)
			restored = p.restoredAfter(o)
		}
		t.Run(fmt.Sprintf("%d crashes", len(plan)), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, spec, o, plan)
			cr.expectExactlyOnce(clean, "each restart recovers from the latest completed checkpoint, whatever state the "+
				"crashes before it left behind: committed transactions stay, pending ones are committed, the rest is aborted "+
				"and replayed")
		})
	}
}
