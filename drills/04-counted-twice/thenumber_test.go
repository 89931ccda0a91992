//go:build lab || solution

package countedtwice

import (
	"fmt"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/04-counted-twice/engine"
	"github.com/flk-byo/course/internal/suite"
)

// configBound returns the staleness the job's configuration implies, and
// how it is made up: a minute closes just after a checkpoint; the job is
// killed just as the next one begins, CheckpointInterval later, and the
// open transaction is lost; the platform restarts it within restartWithin;
// the replay closes the minute again at once, and the first checkpoint
// after the restart, at the next multiple of CheckpointInterval, commits
// it. Counted in intervals from the checkpoint before the minute closed:
// one to the kill, floor(restartWithin / CheckpointInterval) whole ones
// inside the restart, and one to the next checkpoint (for an interval that
// divides 30 s, 2 × CheckpointInterval + 30 s). ok is false when the config
// has no positive interval.
func configBound(cfg JobConfig) (bound time.Duration, sum string, ok bool) {
	i := cfg.CheckpointInterval
	if i <= 0 {
		return 0, "", false
	}
	n := restartWithin/i + 2
	bound = time.Duration(n) * i
	return bound, fmt.Sprintf("(1 interval to the kill + %d whole in the %v restart + 1 to the next checkpoint) × CheckpointInterval %v = %v",
		n-2, restartWithin, i, bound), true
}

// TestReaderIsolationIsReadCommitted certifies that the job states the isolation its readers rely on, ReaderIsolation, as read-committed: exactly-once holds for a reader that sees committed transactions only.
func TestReaderIsolationIsReadCommitted(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // with the others, so that the reproduction runs and reports first
	if got := string(ReaderIsolation); got != "read-committed" {
		t.Errorf("ReaderIsolation = %q, want \"read-committed\".\n"+
			"Exactly-once is a promise to a reader, and it holds only for one that reads what completed checkpoints committed:\n"+
			"a reader of pre-committed or still open output sees increments that a crash aborts and the replay writes again.\n"+
			"(TestFixReaderSeesOnlyCommittedTotals checks that ReadTotals is such a reader.)", got)
	}
}

// TestMaxStalenessIsWithinTheBudget certifies that MaxStaleness, the number the job commits to, is positive and at most the dashboard's 60 s.
func TestMaxStalenessIsWithinTheBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // with the others, so that the reproduction runs and reports first
	switch {
	case MaxStaleness <= 0:
		t.Errorf("MaxStaleness = %v, want the longest a reader waits for a minute's usage, in (0, %v]: with a two-phase commit\n"+
			"nothing is visible before the checkpoint after it completes. Derive it from the job's config and the card.",
			MaxStaleness, stalenessBudget)
	case MaxStaleness > stalenessBudget:
		t.Errorf("MaxStaleness = %v, want at most the dashboard's promise, %v: a commitment beyond it breaks the promise by\n"+
			"design. Which setting would you shorten, and what does a checkpoint cost?", MaxStaleness, stalenessBudget)
	}
}

// TestMaxStalenessFollowsFromTheConfig certifies that MaxStaleness is stated (positive) and no more than the worst case the job's own checkpoint interval and the platform's 30 s restart imply: a number that is merely large is not a commitment.
func TestMaxStalenessFollowsFromTheConfig(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // with the others, so that the reproduction runs and reports first
	cfg := Config(suite.TempDir(t))
	bound, sum, ok := configBound(cfg)
	switch {
	case !ok:
		t.Errorf("Config has CheckpointInterval %v: without checkpoints nothing is ever committed, and no staleness follows from\n"+
			"the config at all.", cfg.CheckpointInterval)
	case MaxStaleness <= 0:
		t.Errorf("MaxStaleness = %v: no number stated. The job's config implies %s.", MaxStaleness, sum)
	case MaxStaleness > bound:
		t.Errorf("MaxStaleness = %v, but the job's config implies at most %s.\n"+
			"A minute's increment waits for the checkpoint after it; a kill before that checkpoint is stored loses it, the\n"+
			"restart comes within %v, and the replay's first checkpoint commits it. Committing %v more than that is padding:\n"+
			"the budget is not a staleness, and a number that is merely large tells the dashboard's users nothing. State the\n"+
			"bound your settings give.", MaxStaleness, sum, restartWithin, MaxStaleness-bound)
	}
}

// TestMaxStalenessIsMet certifies that a reader sees every minute's usage within MaxStaleness of the arrival of the record that closes the minute, in a replay built to provoke the worst case: the job killed (SIGKILL) as a checkpoint begins, the one after the minute that closed soonest after the checkpoint before, and restarted 30 s later.
func TestMaxStalenessIsMet(t *testing.T) {
	defer suite.Recover(t)
	if isChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes: let the tests run together
	r := newReplay(t)
	cfg := Config(suite.TempDir(t))
	h := runJob(t, r.sc, r.o, worstKill(r.clean))
	inc, wait, ok := h.stalest()
	derivation := "no bound: the config has no positive CheckpointInterval"
	if _, sum, ok := configBound(cfg); ok {
		derivation = sum
	}
	if !ok {
		t.Errorf("after the kill and the restart, a reader never saw some minutes' usage as the log makes it (last seen: %s):\n"+
			"what happened:\n%s\n\n%s\n\nA minute a reader never sees, or sees counted twice, has no staleness at all: fix\n"+
			"TestFixIsExactlyOnceWhereverItIsKilled first.", h.lastSeen(), h.fmtStory(), h.timeline(h.firstKill(), -1))
		return
	}
	if wait <= MaxStaleness {
		return
	}
	t.Errorf("MaxStaleness = %v, but a reader waited %v for %s (increment #%d)\n\nwhat happened:\n%s\n\n%s\n\n"+
		"The number must hold in the worst case, not the average: here the minute closes just after a checkpoint, the job is\n"+
		"killed as the next one begins, the platform takes its full %v to restart it, and only the first checkpoint after the\n"+
		"restart commits the minute. Your config implies %s.", MaxStaleness, wait, h.incName(inc), inc+1, h.fmtStory(),
		h.timeline(h.seenAt(inc), inc), restartWithin, derivation)
}

// worstKill returns where to kill the job to make a reader wait longest,
// from its run without a crash, clean: at the start of the checkpoint after
// the minute that closed soonest after a checkpoint, among the checkpoints
// of the middle half of the run. The start of a checkpoint is its
// StepBeforePreCommit; for a job that never reports that, the last write
// before its StepStored.
func worstKill(clean *history) crashPoint {
	step := engine.StepBeforePreCommit
	if clean.count(1, step) == 0 {
		step = engine.StepStored
	}
	var ticks []time.Time
	var writesBefore []int // the writes before each tick
	writes := 0
	for _, ob := range clean.obs {
		switch ob.step {
		case engine.StepWrite:
			writes++
		case step:
			ticks = append(ticks, ob.at)
			writesBefore = append(writesBefore, writes)
		}
	}
	best, bestGap := crashPoint{step, 1}, time.Duration(-1)
	for k := max(1, len(ticks)/4); k < 3*len(ticks)/4; k++ {
		for _, c := range clean.o.closed {
			if c.After(ticks[k-1]) && !c.After(ticks[k]) {
				if gap := c.Sub(ticks[k-1]); bestGap < 0 || gap < bestGap {
					best, bestGap = crashPoint{step, k + 1}, gap
					if step == engine.StepStored && writesBefore[k] > 0 {
						best = crashPoint{engine.StepWrite, writesBefore[k]}
					}
				}
				break
			}
		}
	}
	return best
}
