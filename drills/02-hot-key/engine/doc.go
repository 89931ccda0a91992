// Package engine is the course's engine as drill 02's job sees it: the
// stage 02 API it uses (keyed streams reduced on parallel workers, and the
// routing of a key to its worker), bound like the stages' bind files but
// in non-test files, so that the job (a plain package) can import it. Each
// drill has its own binding, of only the stages it needs (its "needs" in
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
// de says which engine a run uses: it picks the tags. Generic functions
// cannot be aliased, so they are wrapped; the wrappers add nothing.
//
// Only the platform's limits are defined here (MaxParallelism): the rest is
// the engine's, unchanged.
package engine

// MaxParallelism is the most workers the platform runs a keyed stage on.
// It is the platform's limit, not a job's budget: how many task slots a
// job may use is the capacity plan's decision.
const MaxParallelism = 16
