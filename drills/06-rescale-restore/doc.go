// Package rescalerestore is the suite of incident drill 06, "The rescale
// that would not restore": it reproduces the symptom on the merchant-totals
// job (Friday's totals restart from zero after a rescale from 4 to 12
// subtasks), then checks the fix under the variations that catch the
// tempting wrong ones, and holds the two numbers the job commits to
// against what the savepoint and the job's settings imply. Its tests build
// only with -tags lab (the learner's job, lab/drills/rescalerestore) or
// -tags solution (the reference fix, solutions/drills/rescalerestore); see
// bind_lab_test.go and bind_solution_test.go. The engine under the job is
// its engine/ package's.
package rescalerestore
