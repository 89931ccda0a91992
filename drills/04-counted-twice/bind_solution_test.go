//go:build solution

package countedtwice

import job "github.com/flk-byo/course/solutions/drills/countedtwice"

// The job under test: the reference fix, solutions/drills/countedtwice. The suite reaches it only through these names,
// and the engine only through drills/04-counted-twice/engine.
type (
	JobConfig = job.JobConfig
	Record    = job.Record
)

var (
	Config     = job.Config
	Run        = job.Run
	ReadTotals = job.ReadTotals
)

// The job's hand-in: the staleness it commits to, and the isolation its
// readers rely on.
const (
	MaxStaleness    = job.MaxStaleness
	ReaderIsolation = job.ReaderIsolation
)
