// Package engine is the course's engine as drill 03's job sees it: the
// tumbling-window Processor of stages 01 and 03 (windows, watermark delay,
// allowed lateness, dedup by event ID) and stage 10's seen IDs bounded by
// the watermark (NewSeenTTLProcessor, RememberedIDs), as type aliases and
// function variables, bound like the stages' bind files but in non-test
// files, so that the job (a plain package) can import it. Each drill has its
// own binding, of only the stages it needs (its "needs" in
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
// Only the platform's defaults are defined here (DefaultSeenTTL): the rest
// is the engine's, unchanged.
package engine

import "time"

// DefaultSeenTTL is the platform's default time to live of a seen event ID:
// 0, which keeps every ID for ever (NewSeenTTLProcessor(cfg, 0) is
// NewProcessor(cfg)), as in Flink, where state TTL is opt-in
// (StateTtlConfig). Nothing is ever counted twice that way, and the dedup
// state grows with every event the job has seen.
const DefaultSeenTTL time.Duration = 0
