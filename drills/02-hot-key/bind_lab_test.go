//go:build lab

package hotkey

import job "github.com/flk-byo/course/lab/drills/hotkey"

// The job under test: the learner's job, lab/drills/hotkey. The suite reaches it only through these
// names, and the engine only through drills/02-hot-key/engine.
var (
	Config = job.Config
	Run    = job.Run
)

// The job's types: a payment is a kit.Event; a Total is one merchant's row.
type (
	JobConfig = job.JobConfig
	Total     = job.Total
	Output    = job.Output
)

// CommittedPeakLoad is the job's hand-in: the busiest worker's load at the peak, in payments per second.
const CommittedPeakLoad = job.CommittedPeakLoad
