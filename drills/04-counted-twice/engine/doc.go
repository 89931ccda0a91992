// Package engine is the course's engine as drill 04's job sees it: stage
// 01's windowed processor, stage 04's snapshots of it, and stage 05's
// two-phase-commit sink and protocol steps, as type aliases, constants and
// function variables, bound like the stages' bind files but in non-test
// files, so that the job (a plain package) can import it. It binds only the
// API of the stages in the drill's "needs" (04-checkpoint and 05-2pc) and of
// the stages before them, which a learner who has passed those has too: a
// name from a later stage would not compile in their lab/.
//
// Which engine it is depends on the build tags:
//
//   - engine_lab.go (-tags lab, without drillref) binds the learner's own
//     package lab: `de drill` runs the drill this way once the learner has
//     passed the stages it needs.
//   - engine_ref.go (no lab tag, or -tags 'lab drillref') binds the
//     reference, package solutions: the learner's job on the reference
//     engine, for a learner who has not passed those stages yet, and for
//     the course's own checks (-tags solution).
//
// de says which engine a run uses: it picks the tags.
package engine
