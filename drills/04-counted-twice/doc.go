// Package countedtwice is the suite of incident drill 04, "Counted twice
// after a restart": it kills the usage-metering job for real (SIGKILL, and
// the kernel's SIGXFSZ in the middle of a write) and restarts it, to
// reproduce the doubled totals on the job as found; then it checks the fix
// at every step of stage 05's checkpoint protocol, follows what a reader of
// the usage table sees all along, and holds the staleness the job commits
// to against what it does and what its configuration implies. Its tests
// build only with -tags lab (the learner's job, lab/drills/countedtwice) or
// -tags solution (the reference fix, solutions/drills/countedtwice); see
// bind_lab_test.go and bind_solution_test.go. The engine under the job is
// its engine/ package's.
package countedtwice
