// Package latedata is the fare-revenue job: it reads every tap of the
// city's fare devices (metro gates, bus validators, inspectors'
// handhelds) and books the revenue per line and hour in the ledger, which
// finance sums into the daily totals.
//
//	fare-taps topic → hourly windows per line → ledger topic (totals, corrections)
//	                                           → reconciliation topic
//
// On-call: see the drill's card (de drill start late-data prints it).
package latedata

import (
	"fmt"

	"github.com/flk-byo/course/drills/05-late-data/engine"
	"github.com/flk-byo/course/kit"
)

// Output is what the job sends on after reading one tap (or at Flush).
type Output struct {
	// Ledger is what goes to the ledger topic: each hour's total per line
	// (Key is the line, Count the taps, Sum the fares in cents), and, with
	// IsUpdate, a corrected total that replaces the one sent before.
	Ledger []kit.Result
	// Reconciliation is what goes to the reconciliation topic: taps the
	// clearing house rejected (invalid fare media). The clearing house's
	// export no longer contains any, so this stays empty.
	Reconciliation []kit.Event
}

// Metrics are the job's counters, exported to the ops dashboard.
type Metrics struct {
	Taps        int64 // taps read
	DroppedLate int64 // dropped_late: taps dropped because their hour was closed
}

// Job is one running instance of the fare-revenue job.
type Job struct {
	proc    *engine.Processor
	metrics Metrics
}

// New returns a job that runs the engine's processor with cfg.
func New(cfg engine.Config) (*Job, error) {
	p, err := engine.NewProcessor(cfg)
	if err != nil {
		return nil, fmt.Errorf("latedata: %w", err)
	}
	return &Job{proc: p}, nil
}

// Process reads one tap, in the order the topic delivers them, and returns
// what the job sends on because of it.
func (j *Job) Process(tap kit.Event) Output {
	j.metrics.Taps++
	// Taps come in tap-time order (see AllowedLateness), so the processor's
	// side output is always empty: there is nothing to read there.
	return Output{Ledger: j.proc.Process(tap)}
}

// Flush ends a bounded replay: it sends the totals of every hour not sent
// yet.
func (j *Job) Flush() Output {
	return Output{Ledger: j.proc.Flush()}
}

// Metrics returns the job's counters.
func (j *Job) Metrics() Metrics { return j.metrics }
