// Package spillingstate is the suite of stage 12, a spilling state
// backend. Its tests build only with -tags lab (the learner's code) or
// -tags solution (the reference); see bind_lab_test.go and
// bind_solution_test.go.
package spillingstate
