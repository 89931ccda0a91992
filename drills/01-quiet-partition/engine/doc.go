// Package engine is the course's engine as drill 01's job sees it: the
// stage 07 and 08 API it uses (watermarks over source partitions, session
// windows, the sessions job over stage 05's two-phase-commit sink), as type
// aliases, constants and function variables, bound like the stages' bind
// files but in non-test files, so that the job (a plain package) can import
// it. Each drill has its own binding, of only the stages it needs (its
// "needs" in drills/catalog.json), so that a learner who has passed those
// stages runs it on their own engine whatever else their lab/ lacks.
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
// Only the platform's defaults are defined here (DefaultIdleTimeout): the
// rest is the engine's, unchanged.
package engine

import "time"

// DefaultIdleTimeout is the platform's default idleness timeout: 0, which
// disables idleness, as in Flink, where WatermarkStrategy#withIdleness is
// opt-in. A partition that never delivers then holds the watermark back for
// ever.
const DefaultIdleTimeout time.Duration = 0
