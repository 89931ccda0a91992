// Package seenttl is the suite of stage 10, seen IDs bounded by the
// watermark. Its tests build only with -tags lab (the learner's code) or
// -tags solution (the reference); see bind_lab_test.go and
// bind_solution_test.go.
package seenttl
