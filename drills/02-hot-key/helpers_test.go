//go:build lab || solution

package hotkey

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/drills/02-hot-key/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The drill's facts, from its card: the sale's forecast peak, what a worker
// can take, the budget, and what the payments look like. They are the
// suite's, not the job's: a job that changes them does not change what it
// is held to. A batch is one second of payments, so a load in payments per
// batch is a rate in payments per second.
const (
	peakRate        = 30_000 // payments/s at the forecast peak
	peakHotRate     = 10_000 // of them the flash deals', on one merchant or two
	restBusiestRate = 2_800  // the most the other merchants put on one of the 8 workers at the peak
	workerCapacity  = 6_000  // payments/s one worker aggregates
	peakLimit       = 4_800  // 80% of it: the headroom the SRE team requires at the peak
	slots           = 8      // the job's task slots for the sale
	coldMaxShare    = 0.01   // no merchant but a flash deal's takes more than 1% of a batch
	flashMinShare   = 0.10   // a flash deal's merchant takes 10% of a batch or more
	megamart        = "megamart"
)

// flash is a flash deal in a batch: its merchant and how many of the
// batch's payments are its.
type flash struct {
	merchant string
	n        int
}

// spec describes one batch: its payments in all, its flash deals, and the
// worker (among slots) the other merchants load most, with restBusiestRate
// scaled to the batch (-1: wherever they fall, within that bound).
type spec struct {
	name    string
	total   int
	flashes []flash
	plant   int
}

// batch is a generated batch and what the suite knows about it.
type batch struct {
	spec
	payments []kit.Event
	second   int64 // its second of the day, for IDs and timestamps
}

// coldMerchants is the pool of ordinary merchants: none ever takes more
// than 1% of a batch.
const coldMerchants = 4_000

// coldName names ordinary merchant i.
func coldName(i int) string { return fmt.Sprintf("m-%05d", i) }

// build generates sp's batch from rnd: each flash deal's payments, then the
// other merchants' (a few big ones, one of them at exactly 1% of the batch,
// the rest small), balanced so that no worker gets more of them than
// restBusiestRate (scaled to the batch), with sp.plant getting exactly that
// much; stamped within one second, in delivery order.
func (sp spec) build(rnd *rand.Rand) batch {
	b := batch{spec: sp, second: 14*3600 + rnd.Int64N(3600)}
	merchants := make([]string, 0, sp.total)
	for _, f := range sp.flashes {
		for range f.n {
			merchants = append(merchants, f.merchant)
		}
	}
	rest := sp.total - len(merchants)
	flashName := map[string]bool{}
	for _, f := range sp.flashes {
		flashName[f.merchant] = true
	}
	// Big ordinary merchants: one at exactly 1%, a few just under.
	big := max(1, rest/3000)
	cold := []int{}
	for i := range coldMerchants {
		if !flashName[coldName(i)] {
			cold = append(cold, i)
		}
	}
	rnd.Shuffle(len(cold), func(i, j int) { cold[i], cold[j] = cold[j], cold[i] })
	restNames := make([]string, 0, rest)
	for k := range big {
		n := int(coldMaxShare * float64(sp.total))
		if k > 0 {
			n = n * (70 + rnd.IntN(25)) / 100
		}
		for range min(n, rest-len(restNames)) {
			restNames = append(restNames, coldName(cold[k]))
		}
	}
	small := cold[big:]
	for len(restNames) < rest {
		restNames = append(restNames, coldName(small[rnd.IntN(len(small))]))
	}
	restNames = balance(rnd, restNames, small, sp.total-len(merchants), sp.plant)
	merchants = append(merchants, restNames...)
	rnd.Shuffle(len(merchants), func(i, j int) { merchants[i], merchants[j] = merchants[j], merchants[i] })
	for i, m := range merchants {
		ts := b.second*1000 + rnd.Int64N(1000)
		b.payments = append(b.payments, kit.Event{ID: fmt.Sprintf("p-%d-%06d", b.second, i), Key: m, TS: ts, Value: 100 + rnd.Int64N(20_000)})
	}
	// The gateway delivers in authorisation order.
	slices.SortStableFunc(b.payments, func(x, y kit.Event) int { return cmp.Compare(x.TS, y.TS) })
	return b
}

// restCap is the most the other merchants may put on one worker in a batch
// whose other merchants have rest payments: restBusiestRate of the peak's
// 20,000, scaled.
func restCap(rest int) int { return restBusiestRate * rest / (peakRate - peakHotRate) }

// balance moves payments of small merchants (names: the merchants of each
// payment) between workers until no worker among slots has more than
// restCap(rest) and plant (if not -1) has exactly that many. It moves a
// payment by giving it to a small merchant of the worker it moves to.
func balance(rnd *rand.Rand, names []string, small []int, rest, plant int) []string {
	limit := restCap(rest)
	byWorker := make([][]string, slots)
	for _, i := range small {
		w := engine.PartitionOf(coldName(i), slots)
		byWorker[w] = append(byWorker[w], coldName(i))
	}
	isSmall := map[string]bool{}
	for _, i := range small {
		isSmall[coldName(i)] = true
	}
	load := make([]int, slots)
	at := make([][]int, slots) // indexes of small merchants' payments, per worker
	for i, m := range names {
		w := engine.PartitionOf(m, slots)
		load[w]++
		if isSmall[m] {
			at[w] = append(at[w], i)
		}
	}
	move := func(from, to int) {
		k := rnd.IntN(len(at[from]))
		i := at[from][k]
		at[from] = slices.Delete(at[from], k, k+1)
		names[i] = byWorker[to][rnd.IntN(len(byWorker[to]))]
		at[to] = append(at[to], i)
		load[from]--
		load[to]++
	}
	lightest := func(not int) int {
		best := -1
		for w := range slots {
			if w != not && (best < 0 || load[w] < load[best]) {
				best = w
			}
		}
		return best
	}
	heaviest := func(not int) int {
		best := -1
		for w := range slots {
			if w != not && len(at[w]) > 0 && (best < 0 || load[w] > load[best]) {
				best = w
			}
		}
		return best
	}
	if plant >= 0 {
		for load[plant] < limit {
			move(heaviest(plant), plant)
		}
		for load[plant] > limit {
			move(plant, lightest(plant))
		}
	}
	for {
		w := heaviest(plant)
		if w < 0 || load[w] <= limit {
			return names
		}
		move(w, lightest(plant))
	}
}

// workerLoad is one worker's share of a batch in the job's first keyed
// stage: the payments it aggregated, and how many of them are the flash
// deals'.
type workerLoad struct {
	payments, flash int64
	keys            []string // the flash deals' (sub-)keys it holds
}

// runBatch runs the job with cfg over b and returns its output and each
// worker's load (see loadsOf). It stops the test if the partials do not
// account for every payment exactly once.
func runBatch(t *testing.T, cfg JobConfig, b batch) (Output, []workerLoad) {
	t.Helper()
	if cfg.Parallelism < 1 {
		t.Fatalf("Config().Parallelism = %d: a keyed stage needs at least one worker", cfg.Parallelism)
	}
	out := Run(cfg, slices.Clone(b.payments))
	loads, err := loadsOf(cfg.Parallelism, b, out)
	if err != nil {
		t.Fatal(err)
	}
	return out, loads
}

// loadsOf returns each of the workers' load in out, read from the partials
// of the job's first keyed stage as the engine routes them (key k →
// PartitionOf(k, workers)), or an error if the partials do not account for
// b's payments, each exactly once.
func loadsOf(workers int, b batch, out Output) ([]workerLoad, error) {
	loads := make([]workerLoad, workers)
	isFlash := b.isFlash()
	var sum int64
	merchants := b.merchants()
	for _, k := range slices.Sorted(maps.Keys(out.Partials)) {
		p := out.Partials[k]
		if _, ok := merchants[p.Merchant]; !ok {
			return nil, fmt.Errorf("Output.Partials[%q] is of merchant %q, who has no payment in the batch: each partial is the aggregate\n"+
				"of some of one merchant's payments, its Merchant that merchant's ID", k, p.Merchant)
		}
		w := engine.PartitionOf(k, workers)
		loads[w].payments += p.Payments
		sum += p.Payments
		if isFlash[p.Merchant] {
			loads[w].flash += p.Payments
			loads[w].keys = append(loads[w].keys, k)
		}
	}
	if sum != int64(len(b.payments)) {
		return nil, fmt.Errorf("the partials of the job's first keyed stage (Output.Partials) count %d payments, the batch has %d: they\n"+
			"must be what that stage's RunParallel returned, every payment in exactly one of them. The suite reads each\n"+
			"worker's load from them, as the platform's dashboard does.", sum, len(b.payments))
	}
	return loads, nil
}

// isFlash returns the batch's flash-deal merchants.
func (b batch) isFlash() map[string]bool {
	out := map[string]bool{}
	for _, f := range b.flashes {
		out[f.merchant] = true
	}
	return out
}

// merchants returns how many payments each merchant has in the batch.
func (b batch) merchants() map[string]int {
	out := map[string]int{}
	for _, p := range b.payments {
		out[p.Key]++
	}
	return out
}

// busiest returns the worker with the most payments (the lowest of equals).
func busiest(loads []workerLoad) int {
	best := 0
	for w, l := range loads {
		if l.payments > loads[best].payments {
			best = w
		}
	}
	return best
}

// loadChart draws each worker's load: the flash deals' payments (█) and the
// other merchants' (▒), with the headroom line (|, 4,800/s) and the
// capacity (‖, 6,000/s) marked, and what falling behind means for the
// workers over capacity.
func loadChart(loads []workerLoad) string {
	var peak int64 = workerCapacity
	for _, l := range loads {
		peak = max(peak, l.payments)
	}
	const width = 60
	col := func(n int64) int { return int(n * width / peak) }
	var b strings.Builder
	fmt.Fprintf(&b, "each worker's payments in the batch (a second at the peak): █ flash deals', ▒ the other merchants'\n")
	for w, l := range loads {
		bar := []rune(strings.Repeat("█", col(l.flash)) + strings.Repeat("▒", col(l.payments)-col(l.flash)) + strings.Repeat(" ", width+1-col(l.payments)))
		for _, m := range []struct {
			at   int64
			mark rune
		}{{peakLimit, '|'}, {workerCapacity, '‖'}} {
			if c := col(m.at); c < len(bar) && bar[c] == ' ' {
				bar[c] = m.mark
			}
		}
		fmt.Fprintf(&b, "  worker %2d %s %6d/s", w, string(bar), l.payments)
		if l.flash > 0 {
			fmt.Fprintf(&b, " (%d of them flash deals' under %s)", l.flash, strings.Join(l.keys, ", "))
		}
		if over := l.payments - workerCapacity; over > 0 {
			fmt.Fprintf(&b, "\n             over capacity: its queue grows by %d payments a second, %d after a minute", over, over*60)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  | the headroom line, %d/s (80%% of a worker's %d/s)   ‖ a worker's capacity, %d/s", peakLimit, workerCapacity, workerCapacity)
	return b.String()
}

// oracle returns the rows of b computed in one pass: per merchant, its
// payments counted and summed (addTotals), the average from them.
func oracle(b batch) map[string]Total {
	out := map[string]Total{}
	for _, p := range b.payments {
		if r, ok := out[p.Key]; ok {
			out[p.Key] = addTotals(r, single(p))
		} else {
			out[p.Key] = single(p)
		}
	}
	for m, r := range out {
		r.Average = float64(r.Cents) / float64(r.Payments)
		out[m] = r
	}
	return out
}

// single returns the row of one payment alone, without its average.
func single(p kit.Event) Total {
	return Total{Merchant: p.Key, Payments: 1, Cents: p.Value, Largest: p.Value, Last: p.ID, LastTS: p.TS}
}

// addTotals adds two aggregates of one merchant's payments: counts and
// amounts add up, the largest is the larger, the latest the later by TS,
// then ID.
func addTotals(a, b Total) Total {
	a.Payments += b.Payments
	a.Cents += b.Cents
	a.Largest = max(a.Largest, b.Largest)
	if b.LastTS > a.LastTS || (b.LastTS == a.LastTS && b.Last > a.Last) {
		a.Last, a.LastTS = b.Last, b.LastTS
	}
	return a
}

// checkRows fails t unless out's rows are exactly b's, merchant by
// merchant, showing up to 6 that differ; why says what usually goes wrong.
func checkRows(t *testing.T, b batch, out Output, why string) bool {
	t.Helper()
	want := oracle(b)
	var diffs []string
	for _, m := range slices.Sorted(maps.Keys(want)) {
		if got, ok := out.Totals[m]; !ok {
			diffs = append(diffs, fmt.Sprintf("  %-14s missing; want %s", m, fmtTotal(want[m])))
		} else if got != want[m] {
			diffs = append(diffs, fmt.Sprintf("  %-14s got  %s\n  %-14s want %s", m, fmtTotal(got), "", fmtTotal(want[m])))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(out.Totals)) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("  %-14s unexpected row %s: no merchant has this ID", k, fmtTotal(out.Totals[k])))
		}
	}
	if len(diffs) == 0 {
		return true
	}
	shown := diffs[:min(6, len(diffs))]
	more := ""
	if len(diffs) > len(shown) {
		more = fmt.Sprintf("\n  … and %d more", len(diffs)-len(shown))
	}
	t.Errorf("batch %q (%d payments): %d of the rollup rows differ from the rows computed in one pass:\n%s%s\n\n%s",
		b.name, len(b.payments), len(diffs), strings.Join(shown, "\n"), more, why)
	return false
}

// fmtTotal renders a row compactly.
func fmtTotal(r Total) string {
	return fmt.Sprintf("{payments=%d cents=%d average=%.4f largest=%d last=%s@%d}", r.Payments, r.Cents, r.Average, r.Largest, r.Last, r.LastTS)
}

// checkSpread fails t unless every flash deal of b is split by cfg.Salts
// (at least 2, at most the workers) over that many sub-keys of the first
// stage, each on its own worker, each with the same number of its payments
// to within one.
func checkSpread(t *testing.T, cfg JobConfig, b batch, out Output, loads []workerLoad) bool {
	t.Helper()
	var problems []string
	for _, f := range b.flashes {
		workers := map[int]bool{}
		lo, hi := int64(f.n), int64(0)
		var subs, lines []string
		for _, k := range slices.Sorted(maps.Keys(out.Partials)) {
			if p := out.Partials[k]; p.Merchant == f.merchant {
				w := engine.PartitionOf(k, cfg.Parallelism)
				subs = append(subs, k)
				workers[w] = true
				lo, hi = min(lo, p.Payments), max(hi, p.Payments)
				lines = append(lines, fmt.Sprintf("    %-16s on worker %d: %d payments", k, w, p.Payments))
			}
		}
		var problem string
		switch {
		case cfg.Salts < 2 || cfg.Salts > cfg.Parallelism:
			problem = fmt.Sprintf("Config().Salts = %d, want 2 to Parallelism (%d): one sub-key is the merchant on one worker; more sub-keys than\n"+
				"  workers put two of them on one worker, which takes no load off it and only adds partials to merge", cfg.Salts, cfg.Parallelism)
		case len(subs) != cfg.Salts:
			problem = fmt.Sprintf("it is aggregated under %d key(s), want Salts = %d sub-keys", len(subs), cfg.Salts)
		case len(workers) != len(subs):
			problem = fmt.Sprintf("its %d sub-keys land on only %d workers: the engine routes a key to PartitionOf(key, %d), and sub-keys\n"+
				"  that share a worker share its load. Choose sub-keys by where they land, not by their names", len(subs), len(workers), cfg.Parallelism)
		case hi-lo > 1:
			problem = fmt.Sprintf("its sub-keys get from %d to %d of its payments, want the same to within one: a salt that is not spread\n"+
				"  evenly (a hash, a timestamp, a random draw) leaves one worker more than its share", lo, hi)
		}
		if problem != "" {
			problems = append(problems, fmt.Sprintf("flash deal %s has %d of the %d payments (%.0f%%), and %s.\n  its keys in the first stage:\n%s",
				f.merchant, f.n, len(b.payments), 100*float64(f.n)/float64(len(b.payments)), problem, strings.Join(lines, "\n")))
		}
	}
	if len(problems) == 0 {
		return true
	}
	t.Errorf("batch %q:\n%s\n\n%s\n\n"+
		"One key is one worker, whatever the parallelism: a merchant this big must be split into sub-keys on different\n"+
		"workers (salted), each aggregated apart, and the partials merged per merchant.",
		b.name, strings.Join(problems, "\n"), loadChart(loads))
	return false
}

// checkPeak fails t if any worker's load exceeds limit (what names it).
func checkPeak(t *testing.T, b batch, loads []workerLoad, limit int64, what, why string) bool {
	t.Helper()
	w := busiest(loads)
	if loads[w].payments <= limit {
		return true
	}
	t.Errorf("batch %q (%d payments in a second): worker %d aggregates %d payments/s, want at most %s, %d/s.\n\n%s\n\n%s",
		b.name, len(b.payments), w, loads[w].payments, what, limit, loadChart(loads), why)
	return false
}

// eachSpec runs check on each of specs, in a subtest named after it.
func eachSpec(t *testing.T, specs []spec, check func(t *testing.T, sp spec)) {
	t.Helper()
	for _, sp := range specs {
		t.Run(sp.name, func(t *testing.T) {
			defer suite.Recover(t)
			check(t, sp)
		})
	}
}

// peakBatch is a second at the forecast peak with megamart's flash deal,
// the other merchants' busiest worker being plant (-1: wherever).
func peakBatch(name string, plant int) spec {
	return spec{name: name, total: peakRate, flashes: []flash{{megamart, peakHotRate}}, plant: plant}
}

// twoDeals is a peak batch with two flash deals, first and second, sized as
// the worst case for cfg's Salts (flashSplit): each leaves a payment over on
// a sub-key, so that one worker can take one more of them than 10,000 /
// Salts; where the salt count rules that out, 7,000 and 3,000.
func twoDeals(name string, cfg JobConfig, first, second string) spec {
	_, a := flashSplit(max(cfg.Salts, 1))
	if a == 0 {
		a = 3_000
	}
	return spec{name: name, total: peakRate, flashes: []flash{{first, peakHotRate - a}, {second, a}}, plant: -1}
}

// worstCase returns a peak batch whose worker with the most flash-deal
// payments under the job's routing is also the one the other merchants load
// most (restBusiestRate): it builds the batch, runs the job to see where the
// flash deal lands, and rebuilds it with the other merchants planted there.
func worstCase(t *testing.T, rnd *rand.Rand, cfg JobConfig, sp spec) (batch, Output, []workerLoad) {
	t.Helper()
	seed := rnd.Uint64()
	_, loads := runBatch(t, cfg, sp.build(rand.New(rand.NewPCG(seed, 1))))
	target := 0
	for w, l := range loads {
		if l.flash > loads[target].flash {
			target = w
		}
	}
	sp.plant = target % slots
	b := sp.build(rand.New(rand.NewPCG(seed, 1)))
	out, loads := runBatch(t, cfg, b)
	return b, out, loads
}
