// Package engine is the course's engine as drill 06's job sees it: the
// stage 06 API it uses (the parallel, key-grouped window operator, its
// snapshot and restore, and the key-group functions), as type aliases and
// function variables, bound like the stages' bind files but in non-test
// files, so that the job (a plain package) can import it. Each drill has
// its own binding, of only the stages it needs (its "needs" in
// drills/catalog.json), so that a learner who has passed those stages runs
// it on their own engine whatever else their lab/ lacks.
//
// Which engine it is depends on the build tags:
//
//   - engine_lab.go (-tags lab, without drillref) binds the learner's own
//     package lab: `de drill` runs a drill this way once the learner has
//     passed the stages it needs.
//   - engine_ref.go (no lab tag, or -tags 'lab drillref') binds the
//     reference, package solutions: the learner's job on the reference
//     engine, for a learner who has not passed those stages yet, and for
//     the course's own checks (-tags solution).
//
// de says which engine a run uses: it picks the tags.
//
// Only the platform's defaults are defined here (DefaultMaxParallelism):
// the rest is the engine's, unchanged.
package engine

// Flink's bounds on a default maxParallelism
// (KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM and
// UPPER_BOUND_MAX_PARALLELISM).
const (
	defaultLowerBoundMaxParallelism = 128
	upperBoundMaxParallelism        = 32768
)

// DefaultMaxParallelism is the platform's default maxParallelism for a job
// run at parallelism, Flink's rule
// (KeyGroupRangeAssignment.computeDefaultMaxParallelism): parallelism × 1.5,
// rounded up to a power of two, at least 128 and at most 32768. It is a
// function of the parallelism: a job that takes its maxParallelism from it
// gets another one when it is run at another parallelism (from 86 on, 256).
// It panics unless parallelism is positive.
func DefaultMaxParallelism(parallelism int) int {
	if parallelism < 1 {
		panic("engine: DefaultMaxParallelism: parallelism must be at least 1")
	}
	if parallelism >= upperBoundMaxParallelism {
		return upperBoundMaxParallelism
	}
	n := 1
	for n < parallelism+parallelism/2 {
		n *= 2
	}
	return min(max(n, defaultLowerBoundMaxParallelism), upperBoundMaxParallelism)
}
