// Package sessions is the suite of stage 08, session windows, and of the
// course's capstone, the quiet-partition sessions job. Its tests build only
// with -tags lab (the learner's code) or -tags solution (the reference); see
// bind_lab_test.go and bind_solution_test.go.
package sessions
