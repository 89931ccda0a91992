//go:build lab || solution

package rescalerestore

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestMaxRestoreParallelismIsMet certifies that the job restores the 14:00 savepoint, every total whole, at MaxRestoreParallelism, the largest parallelism the job commits to restoring it at.
func TestMaxRestoreParallelismIsMet(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	if MaxRestoreParallelism < Parallelism {
		t.Fatalf("MaxRestoreParallelism = %d, want the largest parallelism the 14:00 savepoint can ever be restored to: at\n"+
			"least the Parallelism the job runs at, %d, which it restores at. Derive it from the savepoint.", MaxRestoreParallelism, Parallelism)
	}
	in := fixture(t)
	r := in.restore(Config(MaxRestoreParallelism), retention)
	checkTotals(t, r, fmt.Sprintf("Run(Config(%d), the 14:00 savepoint, the topic from offset %d)", MaxRestoreParallelism, r.earliest),
		fmt.Sprintf("MaxRestoreParallelism = %d is a promise: the savepoint restores there. A subtask owns at least one key\n"+
			"group, and the number of key groups is the maxParallelism the savepoint was taken with; raising\n"+
			"maxParallelism now does not add key groups to a savepoint that has them already.", MaxRestoreParallelism))
}

// TestMaxRestoreParallelismIsTheLargest certifies that the job cannot restore the 14:00 savepoint, every total whole, at MaxRestoreParallelism + 1: a number merely small (the parallelism the job runs at, say) is not the largest the savepoint allows.
func TestMaxRestoreParallelismIsTheLargest(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	if MaxRestoreParallelism < 1 {
		t.Fatalf("MaxRestoreParallelism = %d, want the largest parallelism the 14:00 savepoint can ever be restored to", MaxRestoreParallelism)
	}
	in := fixture(t)
	if r := in.restore(Config(MaxRestoreParallelism+1), retention); r.restored() {
		t.Errorf("MaxRestoreParallelism = %d, but Run(Config(%d), the 14:00 savepoint, …) restored every total: the savepoint\n"+
			"allows more than %d subtasks. Which fact about the savepoint bounds the parallelism, and what is its value?\n"+
			"The hand-in is the ceiling of this savepoint, not the parallelism you chose under it.",
			MaxRestoreParallelism, MaxRestoreParallelism+1, MaxRestoreParallelism)
	}
}

// TestBusiestSubtaskPeakIsWithinTheBudget certifies that BusiestSubtaskPeak, the orders per second the job commits its busiest subtask takes at the peak, is positive and at most the 2,500 orders/s one subtask keeps up with.
func TestBusiestSubtaskPeakIsWithinTheBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	switch {
	case BusiestSubtaskPeak <= 0:
		t.Errorf("BusiestSubtaskPeak = %d, want the orders per second the busiest subtask takes at the forecast peak of %d\n"+
			"orders/s, in (0, %d]. Derive it from the job's settings.", BusiestSubtaskPeak, peakRate, subtaskBudget)
	case BusiestSubtaskPeak > subtaskBudget:
		t.Errorf("BusiestSubtaskPeak = %d, want at most %d: one subtask keeps up with %d orders/s, and a subtask over it\n"+
			"falls behind at the peak (and its backlog holds the whole job's watermark back). Which setting spreads\n"+
			"the key groups thinner, and how far can it go with this savepoint?", BusiestSubtaskPeak, subtaskBudget, subtaskBudget)
	}
}

// TestBusiestSubtaskPeakFollowsFromTheSettings certifies that BusiestSubtaskPeak is no more than what the job's Parallelism and maxParallelism imply for the peak, traffic being even over key groups: a number that is merely large (the budget itself, say) is not a commitment.
func TestBusiestSubtaskPeakFollowsFromTheSettings(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	cfg := Config(Parallelism)
	bound, sum, ok := configBound(cfg)
	switch {
	case !ok:
		t.Errorf("Config(%d) has parallelism %d and maxParallelism %d: a subtask owns at least one key group, so the job\n"+
			"cannot run at all, and BusiestSubtaskPeak %d is backed by nothing.", Parallelism, cfg.Parallelism, cfg.MaxParallelism, BusiestSubtaskPeak)
	case BusiestSubtaskPeak > bound:
		t.Errorf("BusiestSubtaskPeak = %d, but the job's settings imply %s.\n"+
			"The peak is even over key groups, and the busiest subtask owns the most of them. Committing %d more than\n"+
			"that is padding: the budget is not a load, and a number that is merely large tells capacity planning nothing.",
			BusiestSubtaskPeak, sum, BusiestSubtaskPeak-bound)
	}
}

// TestBusiestSubtaskPeakIsMet certifies that no subtask of the job at Parallelism takes more than BusiestSubtaskPeak orders per second at the forecast peak: a second of it, even over the job's key groups, is run through the job, and each subtask's share is read from where its state lands.
func TestBusiestSubtaskPeakIsMet(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	l := measureLoad(t, suite.Rand(t), Config(Parallelism))
	b := l.busiest()
	if l.rates[b] <= BusiestSubtaskPeak {
		return
	}
	derivation := "no bound: the settings cannot run"
	if _, sum, ok := configBound(l.cfg); ok {
		derivation = sum
	}
	t.Errorf("BusiestSubtaskPeak = %d, but subtask %d owns %d key groups and takes %d orders/s at the peak.\n\n%s\n\n"+
		"Key groups are the unit: %d of them over %d subtasks do not split into equal shares, and the traffic is even\n"+
		"over key groups, not over subtasks (%d / %d = %d is what an even split would give). The number must hold for the\n"+
		"busiest subtask, not the average one. The job's settings imply %s.",
		BusiestSubtaskPeak, b, l.keyGroups[b], l.rates[b], l.picture(), l.cfg.MaxParallelism, l.cfg.Parallelism,
		peakRate, l.cfg.Parallelism, peakRate/l.cfg.Parallelism, derivation)
}
