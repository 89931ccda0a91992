// Package latedata is the reference fix of drill 05, "Where did the late
// data go": the fare-revenue job, fixed. It reads every tap of the city's
// fare devices (metro gates, bus validators, inspectors' handhelds) and
// books the revenue per line and hour in the ledger, which finance sums
// into the daily totals.
//
//	fare-taps topic → hourly windows per line → ledger topic (totals, corrections)
//	                                           → reconciliation topic (taps too late for the ledger)
//
// The job as it was had no allowed lateness and never read the
// processor's side output: a bus tap that reached it after its hour's
// totals had gone out, and every handheld tap, went to Late and no
// further, and the ledger was short by exactly those. The fix is one
// setting, AllowedLateness, chosen between the buses' 8 minutes and the
// ledger's 10-minute close, the side output routed to reconciliation, and
// one number, FinalAfter, derived from the configuration. The drill's
// EXPLAIN.md works through all three.
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
	// Reconciliation is what goes to the reconciliation topic: taps that
	// reached the job after their hour was final, as they came.
	Reconciliation []kit.Event
}

// Metrics are the job's counters, exported to the ops dashboard.
type Metrics struct {
	Taps       int64 // taps read
	Reconciled int64 // late_to_reconciliation: taps sent to reconciliation
}

// Job is one running instance of the fare-revenue job.
type Job struct {
	proc *engine.Processor
	// late is how many of the processor's side output the job has sent on:
	// Late returns every late tap so far, and only the ones after it are
	// new.
	late    int
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
// what the job sends on because of it: the totals it fired or corrected,
// and the tap itself if its hour is final.
func (j *Job) Process(tap kit.Event) Output {
	j.metrics.Taps++
	before := j.proc.Watermark()
	out := Output{Ledger: j.proc.Process(tap)}
	// A tap can only be late if it is older than the watermark it met (its
	// hour then ends at or before the watermark): only then can the side
	// output have grown, and only then is it worth copying.
	if tap.TS < before {
		out.Reconciliation = j.newLate()
	}
	return out
}

// newLate returns the taps the processor sent to its side output since
// the last call.
func (j *Job) newLate() []kit.Event {
	late := j.proc.Late()
	if len(late) == j.late {
		return nil
	}
	fresh := late[j.late:]
	j.late = len(late)
	j.metrics.Reconciled += int64(len(fresh))
	return fresh
}

// Flush ends a bounded replay: it sends the totals of every hour not sent
// yet.
func (j *Job) Flush() Output {
	return Output{Ledger: j.proc.Flush(), Reconciliation: j.newLate()}
}

// Metrics returns the job's counters.
func (j *Job) Metrics() Metrics { return j.metrics }
