// Package hotkey is the merchant-rollup job: every second it aggregates the
// second's card payments per merchant (how many, how much, the average
// ticket, the largest and the latest payment) for the merchants' live
// dashboard.
//
//	payments (one batch a second) → key by merchant → reduce on Parallelism workers → rollup rows
//
// On-call: see the drill's card (de drill start hot-key prints it).
package hotkey

import (
	"github.com/flk-byo/course/drills/02-hot-key/engine"
	"github.com/flk-byo/course/kit"
)

// Payment is one card payment as the gateway delivers it: ID is the
// payment's ID, Key the merchant's ID, TS when it was authorised
// (milliseconds since midnight), Value its amount in cents.
type Payment = kit.Event

// Total is one merchant's row of the rollup for one batch.
type Total struct {
	Merchant string
	Payments int64   // how many payments
	Cents    int64   // their amount, in cents
	Average  float64 // the average ticket: Cents / Payments
	Largest  int64   // the largest payment's amount, in cents
	Last     string  // the ID of the merchant's latest payment (greatest TS; of two at the same TS, the greater ID)
	LastTS   int64   // its TS
}

// Output is what Run returns for one batch.
type Output struct {
	// Totals are the rollup rows, one per merchant with a payment in the
	// batch, keyed by merchant.
	Totals map[string]Total
	// Partials are the results of the keyed stage that reads the payments,
	// as its RunParallel returned them: keyed by the key that stage grouped
	// the payments by, each the aggregate of the payments with that key.
	// The platform's dashboard reads each worker's load from them.
	Partials map[string]Total
}

// JobConfig is the job's configuration.
type JobConfig struct {
	// Parallelism is the number of workers each keyed stage runs on.
	//
	// Runbook (capacity): a worker aggregates 6,000 payments/s, so when one
	// falls behind, raise Parallelism; the platform runs up to
	// engine.MaxParallelism.
	Parallelism int
	// Salts is reserved for two-phase aggregation (PAY-311, never started):
	// 1, no merchant is split.
	Salts int
}

// CommittedPeakLoad is the load, in payments per second, that the busiest
// worker carries at the sale's forecast peak, as this job commits to it.
//
// TODO(on-call): state the number you defend.
const CommittedPeakLoad = 0

// Config returns the job's configuration.
func Config() JobConfig {
	return JobConfig{Parallelism: 8, Salts: 1}
}

// Run aggregates one batch of payments, in the order the gateway delivered
// them.
//
// The lag on one worker during sales is GC: this stage allocates a Total
// per payment and the collector cannot keep up with the busiest worker's
// garbage. The deployment sets GOGC=400 (INC-1187); if it comes back, raise
// GOGC, not this code.
func Run(cfg JobConfig, batch []Payment) Output {
	rows := engine.RunParallel(engine.KeyBy(engine.FromSlice(asTotals(batch)),
		func(t Total) string { return t.Merchant }).Reduce(merge, cfg.Parallelism))
	out := Output{Totals: map[string]Total{}, Partials: rows}
	for m, t := range rows {
		t.Average = float64(t.Cents) / float64(t.Payments)
		out.Totals[m] = t
	}
	return out
}

// asTotals turns each payment into a one-payment Total.
func asTotals(batch []Payment) []Total {
	out := make([]Total, len(batch))
	for i, p := range batch {
		out[i] = Total{Merchant: p.Key, Payments: 1, Cents: p.Value, Largest: p.Value, Last: p.ID, LastTS: p.TS}
	}
	return out
}

// merge adds two aggregates of one merchant's payments.
func merge(a, b Total) Total {
	a.Payments += b.Payments
	a.Cents += b.Cents
	a.Largest = max(a.Largest, b.Largest)
	if b.LastTS > a.LastTS || (b.LastTS == a.LastTS && b.Last > a.Last) {
		a.Last, a.LastTS = b.Last, b.LastTS
	}
	return a
}
