// Package parity holds the differential tests that run seeded random
// scenarios through the course's reference (package solutions) and through
// Apache Flink's own operators (the Maven module in flink/, driven by
// internal/flinkrun), and compare them after the course's documented
// conventions:
//
//   - the course's watermark w is Flink's w − 1: the course fires a window
//     when the watermark reaches its end, Flink when it reaches end − 1
//     (its maxTimestamp); math.MinInt64 (no watermark yet) and
//     math.MaxInt64 (the end of the input, the course's Flush) are the same
//     in both;
//   - dedup by ID has no Flink counterpart: a redelivered ID never reaches
//     Flink, as if a deduplicating operator ran before it, and the course's
//     call for it must do nothing;
//   - Flink fires the timers that fall due together in its timer queue's
//     order; the course fixes (End, Start, Key): Flink's results of one step
//     are compared after a stable sort into that order;
//   - a stage 07 partition's watermark is its largest timestamp minus
//     OutOfOrderness, Flink's BoundedOutOfOrdernessWatermarks' one less:
//     compared as w − 1 throughout, math.MaxInt64 included (there is no
//     Flush in it); and Flink checks idleness only on its periodic emit,
//     which the runner calls at every instant the course is asked, and
//     twice at each event's, so that Flink's countdown starts at the event.
//   - a restore is one call on both sides: the course's snapshot and
//     restore, Flink's operator snapshot and a new operator initialized
//     from it; its step must be empty, at an unchanged watermark, and each
//     step holds what its call added to the side output of the processor of
//     the moment, since a restored one's starts empty on both sides.
//   - stage 05's job stores a checkpoint and commits in line; Flink's
//     JobManager completes a checkpoint and sends its notice later, or
//     never: completion and notice are two calls, and the course's sink is
//     driven as RunJob drives it. ReadCommitted's checkpoint order is
//     Flink's commit order, and the pending transactions are compared by
//     the checkpoint call that made them, since a restarted course job
//     reuses ids Flink never reuses.
//
// Every other difference is deliberate and is a row of the parity table in
// docs/PARITY.md, with the test that pins it.
//
// The tests need Java 17 and Maven and carry the build tag flink, so that
// README's test command never runs them:
//
//	go test -tags flink ./flink/parity
//
// Without Java they skip, unless FLK_FLINK=required (as in CI), where a
// missing Java fails them. -flink.scenarios sets how many scenarios each
// test runs (500 by default), and goes after the package, as a flag of the
// test binary: go test stops reading packages at a flag it does not know.
// FLK_SEED replays one:
//
//	FLK_SEED=42 go test -tags flink -run '^TestSessionWindowsMatchFlink$' ./flink/parity -flink.scenarios 1
package parity
