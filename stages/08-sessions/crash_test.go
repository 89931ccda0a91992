//go:build lab || solution

package sessions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The tests in this file kill the capstone job for real: each run is a
// child process of the test binary that sends itself SIGKILL at a seeded
// step (see crash_helpers_test.go), and the next run starts in a fresh
// process on the same Dir, its clock at the restart time.

// cleanRun runs the job on sc without a crash, in this process, and
// returns what it reported and its transactions, one per checkpoint. It
// stops the test if the run fails or its output is wrong: the crash tests
// plan their crashes on it, and the durability tests compare with it.
func cleanRun(t *testing.T, sc scenario, want []kit.Result) (jobRun, []txn) {
	t.Helper()
	cfg := capstoneConfig(suite.TempDir(t), capstoneIdle)
	run, err := runJob(cfg, sc.arrivals, kit.NewManualClock(jobEpoch(sc.from)), jobEpoch(sc.from))
	if err != nil {
		t.Fatalf("RunSessionJob without a crash = %v, want nil", err)
	}
	if !checkCommitted(t, jobView{sc, cfg, []jobRun{run}}, "without a crash", want, cleanWhy+"\nFix TestQuietPartitionSessionJobMeetsLatencyBudget first.") {
		t.FailNow()
	}
	if run.count(StepWrite) < 10 || run.count(StepAfterCommit) < 10 {
		t.Fatalf("RunSessionJob reported %d writes and %d commits to OnStep over %s of replay with an EmitInterval of 2 minutes;\n"+
			"it reports stage 05's steps: StepWrite after each sink write, and the four checkpoint steps at each checkpoint.",
			run.count(StepWrite), run.count(StepAfterCommit), time.Duration(sc.until-sc.from)*time.Millisecond)
	}
	committed, _ := ReadCommitted(cfg.Dir)
	txns, problem := committedTxns([]jobRun{run}, committed)
	if problem != "" {
		failCommits(t, jobView{sc, cfg, []jobRun{run}}, committed, "the run without a crash", problem)
	}
	return run, txns
}

// stepBetween returns a k for which the k-th time the clean run reached
// step lies in [from, to) (event time of the replay, ms since midnight),
// drawn from rnd, and the clock then; ok is false if there is none.
func stepBetween(rnd *rand.Rand, sc scenario, clean jobRun, step Step, from, to int64) (k int, ok bool) {
	var ks []int
	n := 0
	for _, s := range clean.steps {
		if s.step != step {
			continue
		}
		n++
		if s.at >= sc.at(from) && s.at < sc.at(to) {
			ks = append(ks, n)
		}
	}
	if len(ks) == 0 {
		return 0, false
	}
	return ks[rnd.IntN(len(ks))], true
}

// writtenCheckpoint returns a k for which the k-th checkpoint of the clean
// run holds writes, drawn from rnd: a crash at its StepStored leaves a
// stored checkpoint whose transaction only recovery can commit.
func writtenCheckpoint(rnd *rand.Rand, clean jobRun) int {
	writes := map[int64]int{}
	var ks []int
	n := 0
	for _, s := range clean.steps {
		switch s.step {
		case StepWrite:
			writes[s.id]++
		case StepStored:
			if n++; writes[s.id] > 0 {
				ks = append(ks, n)
			}
		}
	}
	return ks[rnd.IntN(len(ks))]
}

// TestSessionJobResumesExactlyOnceAfterACrash certifies that a sessions job killed with SIGKILL at any step of its checkpoint protocol and restarted on the same Dir, at once or minutes later, commits a changelog that rebuilds to the batch oracle, with no session's first result committed twice.
//
// Each run is a child process that kills itself at the planned step: its
// memory is gone, deferred calls never run, its files stay. What the
// restarted job restores decides the outcome: the session processor with
// what downstream holds, the offset, the epoch; the watermarks start
// afresh.
func TestSessionJobResumesExactlyOnceAfterACrash(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	rnd := suite.Rand(t)
	sc := newScenario(rnd, 90*minute, 2*hour+20*minute, capstoneMaxDelay)
	want := batchSessions(sc.events(), capstoneGap)
	clean, _ := cleanRun(t, sc, want)

	pick := func(s Step) int { return 1 + rnd.IntN(clean.count(s)) }
	down := func() time.Duration { return randDuration(rnd, 0, 10*time.Minute) }
	// Every step once; the last plan crashes twice, the second time in the
	// run that resumed from the first crash.
	plans := [][]crash{
		{{StepWrite, pick(StepWrite), restartAfter(0)}},
		{{StepAfterPreCommit, pick(StepAfterPreCommit), restartAfter(down())}},
		{{StepStored, writtenCheckpoint(rnd, clean), restartAfter(down())}},
		{
			{StepBeforePreCommit, 1 + rnd.IntN(clean.count(StepBeforePreCommit)/2), restartAfter(down())},
			{StepAfterCommit, 1 + rnd.IntN(clean.count(StepAfterCommit)/4), restartAfter(down())},
		},
	}
	for _, plan := range plans {
		var names []string
		for _, c := range plan {
			names = append(names, fmt.Sprintf("%s #%d", c.step, c.k))
		}
		t.Run("killed at "+strings.Join(names, ", then at "), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cj := runCrashed(t, sc, capstoneIdle, plan)
			before, ok := cj.checkExactlyOnce(t, want)
			if !ok {
				return
			}
			clock := kit.NewManualClock(jobEpoch(sc.from).Add(cj.runs[len(cj.runs)-1].end + time.Hour))
			if err := RunSessionJob(capstoneConfig(cj.dir, capstoneIdle), sc.arrivals, clock); err != nil {
				t.Fatalf("RunSessionJob on the finished Dir = %v, want nil", err)
			}
			if after, _ := ReadCommitted(cj.dir); !slices.Equal(after, before) {
				t.Errorf("running the job again on its finished Dir changed the committed output from %d to %d results: it resumes\n"+
					"from the final checkpoint, with nothing left to do", len(before), len(after))
			}
		})
	}
}

// TestSessionJobMeetsTheLatencyBoundAcrossCrashes certifies that a job killed with SIGKILL and restarted after a downtime commits every session exactly once, by the later of 3m50s after it became closable and IdleTimeout + EmitInterval (3 min) after the restart.
//
// A restarted job has new Watermarks: the five partitions that never speak
// pin the combined watermark at math.MinInt64 until they are idle again, so
// a restart costs up to IdleTimeout, and the first emission after that,
// on top of the downtime; from then on the job keeps its usual bound (see
// deadline in capstone_helpers_test.go). Restarts are placed both just
// after an emission time, where the job's first emission is the one that
// must close what came due while it was down, and just before one, where
// the first is too early and the second must.
func TestSessionJobMeetsTheLatencyBoundAcrossCrashes(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	rnd := suite.Rand(t)
	sc := newScenario(rnd, 105*minute, 4*hour+15*minute, capstoneMaxDelay)
	want := batchSessions(sc.events(), capstoneGap)
	clean, _ := cleanRun(t, sc, want)

	steps := []Step{StepWrite, StepBeforePreCommit, StepAfterPreCommit, StepStored, StepAfterCommit}
	// at kills the job at a seeded step whose clean-run time lies in
	// [from, to), falling back to a checkpoint step (one per emission, so
	// always there) if the step drawn never happens in that span.
	at := func(from, to int64, restart func(time.Duration) time.Duration) crash {
		step := steps[rnd.IntN(len(steps))]
		k, ok := stepBetween(rnd, sc, clean, step, from, to)
		if !ok {
			step = StepAfterCommit
			k, _ = stepBetween(rnd, sc, clean, step, from, to)
		}
		return crash{step, k, restart}
	}
	down := func() time.Duration { return randDuration(rnd, 6*time.Minute, 15*time.Minute) }
	// early: the first emission after the restart comes more than
	// IdleTimeout later; late: within IdleTimeout.
	early := func() time.Duration { return randDuration(rnd, time.Second, capstoneEmit-capstoneIdle-time.Second) }
	late := func() time.Duration {
		return randDuration(rnd, capstoneEmit-capstoneIdle+time.Second, capstoneEmit-time.Second)
	}
	plans := []struct {
		name string
		plan []crash
	}{
		{"killed in EU's quiet hours, restarted just after an emission time",
			[]crash{at(2*hour+15*minute, 3*hour+30*minute, restartOnPhase(down(), early()))}},
		{"killed before EU comes back, restarted just before an emission time",
			[]crash{at(3*hour+30*minute, 3*hour+45*minute, restartOnPhase(down(), late()))}},
		{"killed twice",
			[]crash{
				at(2*hour+15*minute, 3*hour, restartOnPhase(down(), late())),
				{StepAfterCommit, 5 + rnd.IntN(8), restartOnPhase(down(), early())},
			}},
	}
	for _, p := range plans {
		t.Run(p.name, func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cj := runCrashed(t, sc, capstoneIdle, p.plan)
			committed, ok := cj.checkExactlyOnce(t, want)
			if !ok {
				return
			}
			txns, problem := committedTxns(cj.runs, committed)
			if problem == "" {
				var since map[kit.Result]time.Duration
				if since, problem = visibleSince(txns); problem == "" {
					checkBoundAcrossCrashes(t, cj, want, since)
					return
				}
			}
			failCommits(t, cj.view(), committed, "the runs", problem+"\nwhat happened:\n"+cj.history())
		})
	}
}

// checkBoundAcrossCrashes fails t for every session of want that cj made
// visible after its deadline.
func checkBoundAcrossCrashes(t *testing.T, cj *crashedJob, want []kit.Result, since map[kit.Result]time.Duration) {
	t.Helper()
	l := measureLatency(cj.sc, want, cj.runs, since)
	if l.afterRestart < 3 {
		t.Fatalf("suite bug: of %d sessions checked, only %d had to wait for a restart\nwhat happened:\n%s", l.checked, l.afterRestart, cj.history())
	}
	if l.lateCount == 0 {
		return
	}
	msg := fmt.Sprintf("%d of %d sessions (%d of them due after a restart) were committed after their deadline:\n%s\n\n"+
		"what happened:\n%s", l.lateCount, l.checked, l.afterRestart, strings.Join(l.late, "\n"), cj.history())
	committed, _ := ReadCommitted(cj.dir)
	t.Errorf("%s\n\n"+
		"A session closable at c is due by c + %v, as in an uninterrupted run, or, if it waited for a restart at R,\n"+
		"by R + IdleTimeout %v + EmitInterval %v, whichever is later. After a restart the job's Watermarks are new: the\n"+
		"five partitions that never speak hold the watermark at math.MinInt64 until they are idle again, after\n"+
		"IdleTimeout, and the next emission closes what came due. A job that misses that emission (one too many\n"+
		"emissions skipped after the restart), or restarts its emission times and arrival times from the restart\n"+
		"instead of the epoch it stored, commits later than this.%s",
		msg, closingBound, capstoneIdle, capstoneEmit, cj.view().picture(t, msg, committed, l.lateKeys[:1]...))
}

// TestSessionJobKeepsItsEmissionScheduleAcrossRestarts certifies that the job emits and checkpoints at every epoch + k·EmitInterval up to its last arrival, and after a restart goes on with the epoch it stored from the first of those times after the restart, the ones that passed while it was down skipped, and its new watermarks holding everything back until the silent partitions are idle again.
func TestSessionJobKeepsItsEmissionScheduleAcrossRestarts(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	rnd := suite.Rand(t)
	sc := newScenario(rnd, 90*minute, 2*hour+30*minute, capstoneMaxDelay)
	plan := []crash{
		// Restarted within a minute before an emission time: its first
		// emission comes while the silent partitions still count.
		{StepAfterCommit, 3 + rnd.IntN(5), restartOnPhase(randDuration(rnd, 3*time.Minute, 8*time.Minute),
			randDuration(rnd, capstoneEmit-capstoneIdle+time.Second, capstoneEmit-time.Second))},
		// Killed mid-transaction, restarted at any phase.
		{StepWrite, 1 + rnd.IntN(20), restartOnPhase(randDuration(rnd, 0, 5*time.Minute), randDuration(rnd, time.Second, capstoneEmit-time.Second))},
	}
	cj := runCrashed(t, sc, capstoneIdle, plan)
	for j := range cj.runs {
		checkEmissionSchedule(t, cj, j)
	}
}

// checkEmissionSchedule stops t unless run j of cj checkpointed at every
// emission time epoch + k·EmitInterval after its start, up to its kill or
// its last arrival (then once more, after Flush), and, if it is a restart,
// wrote nothing at the emissions within IdleTimeout of its start.
func checkEmissionSchedule(t *testing.T, cj *crashedJob, j int) {
	t.Helper()
	run, sc := cj.runs[j], cj.sc
	type checkpoint struct {
		id int64
		at time.Duration
	}
	var got []checkpoint
	var gotAt []time.Duration
	writes := map[int64]int{}
	for _, s := range run.steps {
		switch s.step {
		case StepWrite:
			writes[s.id]++
		case StepBeforePreCommit:
			got = append(got, checkpoint{s.id, s.at})
			gotAt = append(gotAt, s.at)
		}
	}
	last := sc.arrivals[len(sc.arrivals)-1].At
	until := last
	if run.killed {
		until = run.end
	}
	var ticks []time.Duration
	for tick := (run.start/capstoneEmit + 1) * capstoneEmit; tick <= until; tick += capstoneEmit {
		ticks = append(ticks, tick)
	}
	var ok bool
	switch {
	case run.killed:
		// Killed during the emission at its kill time, or after its checkpoint.
		ok = slices.Equal(gotAt, ticks) || len(ticks) > 0 && ticks[len(ticks)-1] == run.end && slices.Equal(gotAt, ticks[:len(ticks)-1])
	case len(got) > 0:
		// The last checkpoint follows Flush, when the last arrival has been read.
		ok = slices.Equal(gotAt[:len(got)-1], ticks) && gotAt[len(got)-1] == max(run.start, last)
	}
	if !ok {
		t.Fatalf("run %d (started at %s) checkpointed at\n  %s\nwant a checkpoint at every emission time epoch + k·%v after the run's start%s:\n  %s\n"+
			"Emission times are counted from the job's epoch (the clock when it first started, stored in every checkpoint),\n"+
			"each followed by a checkpoint; a restarted job skips the ones that passed while it was down, without making\n"+
			"them up, and goes on from the first one after its start.\n\nwhat happened:\n%s",
			j+1, fmtAt(sc.from, run.start), fmtTimes(sc.from, gotAt), capstoneEmit, finalNote(run.killed), fmtTimes(sc.from, ticks), cj.history())
	}
	if j == 0 {
		return // a fresh start: its partitions go idle IdleTimeout after the epoch, before any session can close
	}
	for _, c := range got[:min(len(got), len(ticks))] { // the emissions' checkpoints
		if c.at <= run.start+capstoneIdle && writes[c.id] > 0 {
			msg := fmt.Sprintf("run %d started at %s and its checkpoint %d, at %s, holds %d writes: within IdleTimeout (%v) of a restart,\n"+
				"nothing can fire. The restarted job's Watermarks are new (they are not checkpointed: as in Flink, they come\n"+
				"from the sources again), so the five partitions that never speak have no watermark and count until they are\n"+
				"idle again, holding the combined watermark at math.MinInt64.\n\nwhat happened:\n%s",
				j+1, fmtAt(sc.from, run.start), c.id, fmtAt(sc.from, c.at), writes[c.id], capstoneIdle, cj.history())
			t.Fatalf("%s%s", msg, cj.writesPicture(t, msg, c.id))
		}
	}
}

// randDuration returns a duration in [lo, hi), in whole milliseconds,
// drawn from rnd.
func randDuration(rnd *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rnd.Int64N(int64((hi-lo)/time.Millisecond)))*time.Millisecond
}

// finalNote says what follows the emission times in the wanted schedule.
func finalNote(killed bool) string {
	if killed {
		return " up to the kill"
	}
	return " up to the last arrival, then the final one after Flush"
}

// fmtTimes renders processing times as the replay's times of day, on one
// line: at most 12, then how many more.
func fmtTimes(from int64, ts []time.Duration) string {
	if len(ts) == 0 {
		return "(none)"
	}
	var parts []string
	for i, at := range ts {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("… %d more, the last at %s", len(ts)-i, clockOf(from+ts[len(ts)-1].Milliseconds())))
			break
		}
		parts = append(parts, clockOf(from+at.Milliseconds()))
	}
	return strings.Join(parts, " ")
}
