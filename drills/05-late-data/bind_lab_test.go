//go:build lab

package latedata

import job "github.com/flk-byo/course/lab/drills/latedata"

// The job under test: the learner's job, lab/drills/latedata. The suite reaches it only
// through these names, and the engine only through
// drills/05-late-data/engine.
var (
	Config = job.Config
	New    = job.New
)

// Output is what the job sends on after one tap: Ledger and Reconciliation.
type Output = job.Output

// FinalAfter is the job's hand-in: how far past an hour's end the job's
// clock can be when it sends its last word on that hour.
const FinalAfter = job.FinalAfter
