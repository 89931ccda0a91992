// Package statenevershrinks is the suite of incident drill 03, "The state
// that never shrinks": it reproduces the symptom on the merchant-totals job
// (its dedup state grows with every payment it has seen), then checks the
// fix under the variations that catch the tempting wrong ones, and holds the
// bound on remembered IDs the job commits to against what it does, what its
// configuration implies and the memory budget. Its tests build only with
// -tags lab (the learner's job, lab/drills/statenevershrinks) or -tags
// solution (the reference fix, solutions/drills/statenevershrinks); see
// bind_lab_test.go and bind_solution_test.go. The engine under the job is
// its engine/ package's.
package statenevershrinks
