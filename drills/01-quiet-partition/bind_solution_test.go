//go:build solution

package quietpartition

import job "github.com/flk-byo/course/solutions/drills/quietpartition"

// The job under test: the reference fix, solutions/drills/quietpartition. The suite reaches it only through these
// names, and the engine only through
// drills/01-quiet-partition/engine.
var (
	Config = job.Config
	Run    = job.Run
)

// CommittedLatency is the job's hand-in: the end-to-end latency it commits to.
const CommittedLatency = job.CommittedLatency
