// Package latedata is the suite of incident drill 05, "Where did the late
// data go": it reproduces the symptom on the fare-revenue job (the
// ledger's daily total below the clearing house's, with no error
// anywhere), then checks the fix under the variations that catch the
// tempting wrong ones, and holds the number the job commits to, FinalAfter,
// against what it does and what its configuration implies. Its tests build
// only with -tags lab (the learner's job, lab/drills/latedata) or -tags
// solution (the reference fix, solutions/drills/latedata); see
// bind_lab_test.go and bind_solution_test.go. The engine under the job is
// its engine/ package's.
package latedata
