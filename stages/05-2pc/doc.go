// Package twophase is the suite of stage 05, the two-phase-commit sink and
// the crash-tested job. Its tests build only with -tags lab (the learner's
// code) or -tags solution (the reference); see bind_lab_test.go and
// bind_solution_test.go.
package twophase
