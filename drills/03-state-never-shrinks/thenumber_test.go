//go:build lab || solution

package statenevershrinks

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestMaxRememberedIDsIsWithinTheBudget certifies that MaxRememberedIDs, the bound the job commits to, is positive and at most the instance's budget of 12 000 IDs.
func TestMaxRememberedIDsIsWithinTheBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // with the others, so that the reproduction runs and reports first
	switch {
	case MaxRememberedIDs <= 0:
		t.Errorf("MaxRememberedIDs = %d, want the most payment IDs the job remembers at once, in (0, %d]: a job that dedups\n"+
			"remembers some. Derive it from the job's config and the payment API's rate limit.", MaxRememberedIDs, budget)
	case MaxRememberedIDs > budget:
		t.Errorf("MaxRememberedIDs = %d, want at most the budget, %d: a bound beyond the budget is the next OOM, committed to.\n"+
			"Each minute of SeenTTL costs up to 600 IDs at the peak rate: which TTL does the budget leave room for, and is\n"+
			"it still above the line that keeps every payment counted once?", MaxRememberedIDs, budget)
	}
}

// TestMaxRememberedIDsFollowsFromTheConfig certifies that MaxRememberedIDs is no more than the bound the job's own configuration and the payment API's rate limit imply: (SeenTTL + WatermarkDelay) at one payment per 100 ms. A number that is merely under the budget is not a commitment.
func TestMaxRememberedIDsFollowsFromTheConfig(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // with the others, so that the reproduction runs and reports first
	cfg := Config()
	bound, sum, ok := configBound(cfg)
	switch {
	case !ok:
		t.Errorf("Config has SeenTTL %v: the job remembers every payment ID for ever, so no bound follows from the config at all,\n"+
			"and MaxRememberedIDs %d is not backed by anything: the state grows with every payment.", cfg.SeenTTL, MaxRememberedIDs)
	case MaxRememberedIDs > bound:
		t.Errorf("MaxRememberedIDs = %d, but the job's config implies at most %s.\n"+
			"An ID is remembered while the watermark is below its stamp + SeenTTL, and the watermark trails the latest stamp\n"+
			"by WatermarkDelay: every remembered ID is stamped in the last SeenTTL + WatermarkDelay of event time, and the\n"+
			"payment API admits one payment per 100 ms. Committing %d more than that is padding: the budget is not a\n"+
			"bound, and a number that is merely under it tells the platform team nothing.", MaxRememberedIDs, sum, MaxRememberedIDs-bound)
	}
}

// TestMaxRememberedIDsIsMet certifies that the job never remembers more than MaxRememberedIDs payment IDs in the worst case the source allows: a payment every 100 ms (the API's limit), each delivered the instant it is stamped, for longer than the job's SeenTTL + WatermarkDelay.
func TestMaxRememberedIDsIsMet(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	cfg := Config()
	r := runJob(t, peakTraffic(suite.Rand(t), peakLength(cfg)))
	derivation := "no bound: SeenTTL 0 keeps every ID"
	if _, sum, ok := configBound(cfg); ok {
		derivation = sum
	}
	checkRemembered(t, r, max(MaxRememberedIDs, 0), "MaxRememberedIDs",
		"The number must hold in the worst case, not on an average day (about 6 payments a second): at the API's limit,\n"+
			"10 a second, in order, every stamp of the last SeenTTL + WatermarkDelay is remembered at once. The watermark\n"+
			"trails the latest stamp by WatermarkDelay, and the TTL is counted from the watermark: both spans hold IDs.\n"+
			"The config implies "+derivation+".")
}

// TestSeenTTLFitsTheBudget certifies that the job never remembers more than the instance's budget of 12 000 payment IDs at the payment API's limit (a payment every 100 ms, each delivered the instant it is stamped), however long that lasts: the job's SeenTTL + WatermarkDelay hold at most 20 minutes of payments.
func TestSeenTTLFitsTheBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	r := runJob(t, peakTraffic(suite.Rand(t), budgetSpan+second+2*minute))
	checkRemembered(t, r, budget, "the instance's budget",
		"Every minute of SeenTTL is up to 600 IDs at the peak rate: the budget caps SeenTTL + WatermarkDelay at 20 minutes.\n"+
			"A TTL that is merely long, to cover every redelivery the outbox can make (90 minutes), pays for IDs whose\n"+
			"windows have long expired: a redelivery of those goes to the reconciliation feed whether its ID is\n"+
			"remembered or not. The line that keeps every payment counted once is the window plus its lateness.")
}
