//go:build lab

package rescalerestore

import job "github.com/flk-byo/course/lab/drills/rescalerestore"

// The job under test: the learner's job, lab/drills/rescalerestore.
// The suite reaches it only through these names, and the engine only
// through drills/06-rescale-restore/engine.
type (
	Topic     = job.Topic
	Savepoint = job.Savepoint
)

var (
	Config = job.Config
	Run    = job.Run
)

// The job's settings and its hand-in: the largest parallelism the savepoint
// can be restored to, and the orders per second its busiest subtask takes
// at the peak.
const (
	Parallelism           = job.Parallelism
	MaxRestoreParallelism = job.MaxRestoreParallelism
	BusiestSubtaskPeak    = job.BusiestSubtaskPeak
)
