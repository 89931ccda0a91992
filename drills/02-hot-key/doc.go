// Package hotkey is the suite of incident drill 02, "The hot key": it
// reproduces the symptom on the merchant-rollup job (one worker carries a
// flash deal's third of the payments and falls behind), then checks the fix
// under the variations that catch the tempting wrong ones (another merchant
// hot, two at once, big ordinary merchants), and holds the peak load the
// job commits to against what it does and what its configuration implies.
// Worker load is counted, never timed: from the partials the job's first
// keyed stage returns, routed as the engine routes them. Its tests build
// only with -tags lab (the learner's job, lab/drills/hotkey) or -tags
// solution (the reference fix, solutions/drills/hotkey); see
// bind_lab_test.go and bind_solution_test.go. The engine under the job is
// its engine/ package's. BenchmarkHotKey times the job against the
// unsalted aggregation in the same run.
package hotkey
