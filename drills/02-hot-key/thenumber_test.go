//go:build lab || solution

package hotkey

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// configBound returns the busiest worker's load at the peak that the job's
// configuration implies, and how it is made up: the flash deals' 10,000
// payments/s go to Salts sub-keys, at most ceil(Salts / Parallelism) of them
// on one worker, each deal split on its own to within one payment
// (flashSplit), so a worker takes at most that many times flashPerSubKey of
// them; the other merchants put at most 2,800/s on the same worker.
func configBound(cfg JobConfig) (bound int, sum string) {
	s := max(cfg.Salts, 1)
	perWorker := (s + cfg.Parallelism - 1) / max(cfg.Parallelism, 1)
	each, a := flashSplit(s)
	hot := perWorker * each
	bound = hot + restBusiestRate
	how := fmt.Sprintf("ceil(%d / Salts %d) = %d", peakHotRate, s, each)
	if a > 0 {
		how = fmt.Sprintf("ceil(%d / Salts %d) + ceil(%d / %d) = %d (two deals, each split on its own, both with a payment over on one sub-key)", a, s, peakHotRate-a, s, each)
	}
	if perWorker > 1 {
		return bound, fmt.Sprintf("%d sub-keys a worker × %s of the flash deals' + the others' %d = %d/s", perWorker, how, restBusiestRate, bound)
	}
	return bound, fmt.Sprintf("%s of the flash deals' + the others' %d = %d/s", how, restBusiestRate, bound)
}

// flashSplit returns the most flash-deal payments one sub-key's worker can
// take at the peak when each deal's payments are dealt to its own s
// sub-keys to within one (the card's rule): one deal of 10,000/s, or two of
// at least 10% of the peak (3,000/s) each, a and 10,000 − a, whose extra
// payments can both fall on one worker. It returns a > 0 when two deals
// take more than one: the split the worst case uses. ceil(a/s) + ceil(b/s)
// exceeds ceil((a+b)/s) by one when both leave a remainder that together
// stay within s: for every s but those where 10,000 mod s is 1.
func flashSplit(s int) (each, a int) {
	ceil := func(n int) int { return (n + s - 1) / s }
	each = ceil(peakHotRate)
	least := int(flashMinShare * peakRate)
	for x := least; x <= peakHotRate/2; x++ {
		if two := ceil(x) + ceil(peakHotRate-x); two > each {
			return two, x
		}
	}
	return each, 0
}

// TestCommittedPeakLoadIsWithinCapacity certifies that CommittedPeakLoad, the busiest worker's load at the peak that the job commits to, is positive and at most 4,800 payments/s, the headroom line.
func TestCommittedPeakLoadIsWithinCapacity(t *testing.T) {
	defer suite.Recover(t)
	switch {
	case CommittedPeakLoad <= 0:
		t.Errorf("CommittedPeakLoad = %d, want the busiest worker's load at the peak that you commit to, in (0, %d] payments/s.\n"+
			"Derive it from the job's config and the card's facts.", CommittedPeakLoad, peakLimit)
	case CommittedPeakLoad > peakLimit:
		t.Errorf("CommittedPeakLoad = %d payments/s, want at most the headroom line, %d/s (80%% of a worker's %d/s): a commitment\n"+
			"beyond it leaves no room for a retry storm at the peak. How many sub-keys would bring it down?", CommittedPeakLoad, peakLimit, workerCapacity)
	}
}

// TestCommittedPeakLoadFollowsFromTheConfig certifies that CommittedPeakLoad is no more than the load that the job's own Salts and Parallelism and the card's facts imply for the busiest worker: a number that is merely large, padded up to the headroom line, is not a commitment.
func TestCommittedPeakLoadFollowsFromTheConfig(t *testing.T) {
	defer suite.Recover(t)
	bound, sum := configBound(Config())
	if CommittedPeakLoad > bound {
		t.Errorf("CommittedPeakLoad = %d payments/s, but the job's config implies at most %s.\n"+
			"Committing %d/s more than that is padding: the headroom line is a limit, not a load, and a number that is\n"+
			"merely large tells capacity planning nothing. State the load your settings give.", CommittedPeakLoad, sum, CommittedPeakLoad-bound)
	}
}

// TestCommittedPeakLoadIsMet certifies that the busiest worker never aggregates more than CommittedPeakLoad payments in a second at the peak, in batches built to provoke the worst case: the flash deals' 10,000 payments/s with their busiest worker also the one the other merchants load most (2,800/s).
func TestCommittedPeakLoadIsMet(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config()
	_, sum := configBound(cfg)
	eachSpec(t, []spec{
		peakBatch("the peak, megamart's flash deal, worst case", -1),
		twoDeals("the peak, two flash deals, worst case", cfg, coldName(rnd.IntN(coldMerchants)), megamart),
	}, func(t *testing.T, sp spec) {
		b, _, loads := worstCase(t, rnd, cfg, sp)
		checkPeak(t, b, loads, CommittedPeakLoad, "CommittedPeakLoad",
			"The number must hold in the worst case, not the average: a worker can carry both a sub-key of the flash\n"+
				"deals and the other merchants' busiest share. An even share (30,000 / 8) is what no hashed key spreads to.\n"+
				"Your config implies "+sum+".")
	})
}
