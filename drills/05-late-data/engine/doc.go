// Package engine is the course's engine as drill 05's job sees it: the
// stage 03 API it uses (the tumbling-window Processor with its watermark
// delay, its allowed lateness and its side output, Late), as type aliases
// and function variables, bound like the stages' bind files but in
// non-test files, so that the job (a plain package) can import it. Each
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
// de says which engine a run uses: it picks the tags.
//
// Only the platform's defaults are defined here (DefaultAllowedLateness):
// the rest is the engine's, unchanged.
package engine

// DefaultAllowedLateness is the platform's default allowed lateness: 0, as
// in Flink, where WindowedStream#allowedLateness is opt-in. A window's
// state is then dropped the moment it fires, and every event for it that
// comes later goes to the processor's side output, Late, and nowhere else
// unless the job reads it.
const DefaultAllowedLateness int64 = 0
