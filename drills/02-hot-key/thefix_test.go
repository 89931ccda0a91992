//go:build lab || solution

package hotkey

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestFixKeepsEveryRowExact certifies that every merchant's row (payments, amount, average ticket, largest and latest payment) is exactly what one pass over the batch gives, whether one flash deal runs, two, or none, at the peak and off it: the partials are merged, exactly, and the salted keys never reach the dashboard.
func TestFixKeepsEveryRowExact(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	eachSpec(t, []spec{
		peakBatch("the peak, megamart's flash deal", -1),
		{name: "the peak, two flash deals", total: peakRate, flashes: []flash{{megamart, 7_000}, {coldName(3117), 3_000}}, plant: -1},
		{name: "off-peak, a flash deal", total: 6_000, flashes: []flash{{coldName(42), 2_000}}, plant: -1},
		{name: "the peak, no flash deal", total: peakRate, plant: -1},
	}, func(t *testing.T, sp spec) {
		b := sp.build(rnd)
		out, _ := runBatch(t, Config(), b)
		checkRows(t, b, out,
			"A row is the merchant's, never a sub-key's: phase 2 merges the partials per merchant. And it merges them\n"+
				"exactly: counts and amounts add up, the average is the sum over the count (an average of the partials'\n"+
				"averages weighs a partial of 3 payments like one of 3,000), the largest is the largest of the partials',\n"+
				"and the latest is the latest by TS (then ID) of the partials': phase 2 sees the partials in no\n"+
				"particular order, so the one that happens to come last is not the latest.")
	})
}

// TestFixSpreadsTheHotMerchant certifies that at the peak megamart's flash deal is split into Salts sub-keys (2 to Parallelism of them), each on its own worker and each with the same number of its payments to within one.
func TestFixSpreadsTheHotMerchant(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config()
	b := peakBatch("the peak, megamart's flash deal", -1).build(suite.Rand(t))
	out, loads := runBatch(t, cfg, b)
	checkSpread(t, cfg, b, out, loads)
}

// TestFixFindsEveryHotMerchant certifies that a flash deal is split whichever merchant runs it, when two run at once (one at 10% of the batch, the least a flash deal takes), and off the peak: every flash deal is spread as TestFixSpreadsTheHotMerchant requires, and no worker goes over 4,800 payments/s.
func TestFixFindsEveryHotMerchant(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config()
	other := coldName(rnd.IntN(coldMerchants))
	eachSpec(t, []spec{
		{name: "the peak, " + other + "'s flash deal", total: peakRate, flashes: []flash{{other, peakHotRate}}, plant: -1},
		{name: "the peak, two flash deals", total: peakRate, flashes: []flash{{coldName(rnd.IntN(coldMerchants)), 7_000}, {megamart, 3_000}}, plant: -1},
		{name: "off-peak, a flash deal", total: 6_000, flashes: []flash{{coldName(rnd.IntN(coldMerchants)), 2_000}}, plant: -1},
	}, func(t *testing.T, sp spec) {
		b := sp.build(rnd)
		out, loads := runBatch(t, cfg, b)
		if checkSpread(t, cfg, b, out, loads) {
			checkPeak(t, b, loads, peakLimit, "the headroom line",
				"The flash deals move every hour: a list of hot merchants is out of date by the next deal. A merchant is hot\n"+
					"when it takes more than a share of the batch that no ordinary merchant reaches (1%) and every flash deal\n"+
					"does (10%): count the batch.")
		}
	})
}

// TestFixSplitsOnlyTheHotMerchants certifies that a merchant that is not a flash deal's (at most 1% of the batch, the biggest ordinary ones at exactly 1%) is aggregated under one key alone, so that the merge reads one partial per merchant plus one per extra sub-key of a flash deal, and no more.
func TestFixSplitsOnlyTheHotMerchants(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config()
	b := peakBatch("the peak, megamart's flash deal", -1).build(suite.Rand(t))
	out, _ := runBatch(t, cfg, b)
	isFlash := b.isFlash()
	keys := map[string][]string{}
	for k, p := range out.Partials {
		keys[p.Merchant] = append(keys[p.Merchant], k)
	}
	split := 0
	var example string
	for m := range b.merchants() {
		if isFlash[m] || len(keys[m]) == 1 {
			continue
		}
		split++
		if example == "" || m < example {
			example = m
		}
	}
	if split == 0 {
		return
	}
	n := b.merchants()[example]
	slices.Sort(keys[example])
	want := len(b.merchants()) + len(b.flashes)*(cfg.Salts-1)
	t.Errorf("%d ordinary merchants are aggregated under more than one key, e.g. %s (%d payments, %.2f%% of the batch)\n"+
		"under %v. The merge reads %d partials, want %d: one per merchant, plus Salts−1 = %d per flash deal.\n\n"+
		"Splitting a merchant that is not hot takes no load off any worker (it was never the problem) and multiplies the\n"+
		"partials phase 2 must merge, most of them of a payment or two. No ordinary merchant takes more than 1%% of a\n"+
		"batch: split only what is above that.", split, example, n, 100*float64(n)/float64(len(b.payments)), keys[example],
		len(out.Partials), want, cfg.Salts-1)
}

// TestFixKeepsUpAtThePeak certifies that at the forecast peak, with the flash deals' busiest worker also the one the other merchants load most (2,800 payments/s), no worker aggregates more than 4,800 payments/s, 80% of its capacity.
func TestFixKeepsUpAtThePeak(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config()
	eachSpec(t, []spec{
		peakBatch("the peak, megamart's flash deal, worst case", -1),
		twoDeals("the peak, two flash deals, worst case", cfg, megamart, coldName(rnd.IntN(coldMerchants))),
	}, func(t *testing.T, sp spec) {
		b, _, loads := worstCase(t, rnd, cfg, sp)
		checkPeak(t, b, loads, peakLimit, "the headroom line",
			fmt.Sprintf("A worker with a sub-key of the flash deals can also be the one the other merchants load most: it takes\n"+
				"ceil(%d / Salts) of the flash deals' payments (one more when two deals each leave a payment over on it)\n"+
				"and %d of the others'. With Salts = %d that is more than %d/s: how many sub-keys does the headroom line need?",
				peakHotRate, restBusiestRate, cfg.Salts, peakLimit))
	})
}

// TestFixStaysWithinTheSlotBudget certifies that the job runs on its 8 task slots: Parallelism is 8.
func TestFixStaysWithinTheSlotBudget(t *testing.T) {
	defer suite.Recover(t)
	if p := Config().Parallelism; p != slots {
		t.Errorf("Config().Parallelism = %d, want %d: the capacity plan gives the job 8 task slots for the sale, all of them\n"+
			"reserved, and no more (the platform's MaxParallelism is a limit, not a budget). More workers would not have\n"+
			"helped anyway: they split the ordinary merchants finer and leave the flash deal's key on one worker.", p, slots)
	}
}
