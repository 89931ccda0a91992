//go:build lab || solution

package hotkey

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// configBound returns the busiest worker's load at the peak that the job's
// configuration implies, and how it is made up: the flash deals' 10,000
// payments/s go round-robin to Salts sub-keys, at most ceil(Salts /
// Parallelism) of them on one worker, so a worker takes at most that many
// times ceil(10,000 / Salts) of them; the other merchants put at most
// 2,800/s on the same worker.
func configBound(cfg JobConfig) (bound int, sum string) {
	s := max(cfg.Salts, 1)
	perWorker := (s + cfg.Parallelism - 1) / max(cfg.Parallelism, 1)
	hot := perWorker * ((peakHotRate + s - 1) / s)
	bound = hot + restBusiestRate
	if perWorker > 1 {
		return bound, fmt.Sprintf("%d sub-keys a worker × ceil(%d / Salts %d) + the others' %d = %d/s", perWorker, peakHotRate, s, restBusiestRate, bound)
	}
	return bound, fmt.Sprintf("ceil(%d / Salts %d) = %d of the flash deals' + the others' %d = %d/s", peakHotRate, s, hot, restBusiestRate, bound)
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
		{name: "the peak, two flash deals, worst case", total: peakRate, flashes: []flash{{coldName(rnd.IntN(coldMerchants)), 7_000}, {megamart, 3_000}}},
	}, func(t *testing.T, sp spec) {
		b, _, loads := worstCase(t, rnd, cfg, sp)
		checkPeak(t, b, loads, CommittedPeakLoad, "CommittedPeakLoad",
			"The number must hold in the worst case, not the average: a worker can carry both a sub-key of the flash\n"+
				"deals and the other merchants' busiest share. An even share (30,000 / 8) is what no hashed key spreads to.\n"+
				"Your config implies "+sum+".")
	})
}
