// Package kit is the part of FLK-BYO that is given, not built: the record
// types every stage shares (Event, Result), the stable hash that keyed
// partitioning and key groups rest on, a manual clock, seeded generators of
// disordered and duplicated streams for tests, and the text timeline that
// failing event-time tests print.
//
// The learner's package (lab) and the reference (solutions) both import kit,
// so a suite can compare their results value for value. Nothing in kit is a
// TODO: it is the fixed ground the stages stand on.
//
// Non-goals: kit holds no stream-processing logic. Windows, watermarks,
// state and commit protocols are what the learner writes.
package kit
