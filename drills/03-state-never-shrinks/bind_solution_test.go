//go:build solution

package statenevershrinks

import job "github.com/flk-byo/course/solutions/drills/statenevershrinks"

// The job under test: the reference fix, solutions/drills/statenevershrinks. The suite reaches it only
// through these names, and the engine only through
// drills/03-state-never-shrinks/engine.
var (
	Config = job.Config
	Run    = job.Run
)

// Delivery is the job's delivery of a payment by the queue, and JobConfig
// its configuration.
type (
	Delivery  = job.Delivery
	JobConfig = job.JobConfig
)

// MaxRememberedIDs is the job's hand-in: the most payment IDs it commits to
// remember at once.
const MaxRememberedIDs = job.MaxRememberedIDs
