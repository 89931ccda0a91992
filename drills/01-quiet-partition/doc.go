// Package quietpartition is the suite of incident drill 01, "The quiet
// partition": it reproduces the symptom on the checkout-sessions job, then
// checks the fix under the variations that catch the tempting wrong ones,
// and holds the latency the job commits to against what it does and what
// its configuration implies. Its tests build only with -tags lab (the
// learner's job, lab/drills/quietpartition) or -tags solution (the reference
// fix, solutions/drills/quietpartition); see bind_lab_test.go and
// bind_solution_test.go. The engine under the job is its
// engine/ package's.
package quietpartition
