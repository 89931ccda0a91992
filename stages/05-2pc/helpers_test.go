//go:build lab || solution

package twophase

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// randomResults returns n distinct-looking results, as a processor would
// emit them: keys k0…k4, windows of size 100, counts and sums that make each
// result easy to tell apart in a failure message.
func randomResults(r *rand.Rand, n int) []kit.Result {
	out := make([]kit.Result, n)
	for i := range out {
		start := 100 * r.Int64N(50)
		count := 1 + r.Int64N(9)
		out[i] = kit.Result{
			Key:   fmt.Sprintf("k%d", r.IntN(5)),
			Start: start, End: start + 100,
			Count: count, Sum: count * (1 + r.Int64N(10)),
			IsUpdate: r.IntN(4) == 0,
		}
	}
	return out
}

// concat returns the results of the given transactions one after another.
func concat(txns ...[]kit.Result) []kit.Result {
	var out []kit.Result
	for _, t := range txns {
		out = append(out, t...)
	}
	return out
}

// newSink returns a new sink on dir; it stops the test if that fails.
func newSink(t *testing.T, dir string) *TwoPhaseCommitSink {
	t.Helper()
	s, err := NewTwoPhaseCommitSink(dir)
	if err != nil || s == nil {
		t.Fatalf("NewTwoPhaseCommitSink(%q) = %v, %v; want a sink and no error", dir, s, err)
	}
	return s
}

// write writes every result to s; it stops the test on an error.
func write(t *testing.T, s *TwoPhaseCommitSink, rs []kit.Result) {
	t.Helper()
	for _, r := range rs {
		if err := s.Write(r); err != nil {
			t.Fatalf("Write(%v) = %v, want nil", r, err)
		}
	}
}

// preCommit calls s.PreCommit(id); it stops the test on an error.
func preCommit(t *testing.T, s *TwoPhaseCommitSink, id int64) {
	t.Helper()
	if err := s.PreCommit(id); err != nil {
		t.Fatalf("PreCommit(%d) = %v, want nil", id, err)
	}
}

// commit calls s.Commit(id); it stops the test on an error.
func commit(t *testing.T, s *TwoPhaseCommitSink, id int64, why string) {
	t.Helper()
	if err := s.Commit(id); err != nil {
		t.Fatalf("Commit(%d) = %v, want nil: %s", id, err, why)
	}
}

// expectCommitted fails the test unless ReadCommitted(dir) returns exactly
// want, saying after what (when) and why.
func expectCommitted(t *testing.T, dir, when string, want []kit.Result, why string) {
	t.Helper()
	got, err := ReadCommitted(dir)
	if err != nil {
		t.Fatalf("ReadCommitted %s = %v, want no error", when, err)
	}
	if slices.Equal(got, want) {
		return
	}
	t.Errorf("ReadCommitted %s returned %d results, want %d:\n%s\n%s",
		when, len(got), len(want), why, diffResults(got, want))
}

// expectPending fails the test unless s.Pending() is want (nil and empty
// are the same).
func expectPending(t *testing.T, s *TwoPhaseCommitSink, when string, want []int64, why string) {
	t.Helper()
	if got := s.Pending(); !slices.Equal(got, want) {
		t.Errorf("Pending() %s = %v, want %v: %s", when, got, want, why)
	}
}

// diffResults describes how got differs from want: the results missing
// from got (lost) and those it has more often than want (duplicated or
// never produced), then where the two first differ, position by position.
func diffResults(got, want []kit.Result) string {
	d := windowtest.DiffResults(got, want)
	if d == "" && len(got) > 0 {
		d = "the same results, in another order: ReadCommitted returns transactions in checkpoint order, each in write order\n"
	}
	return d + windowtest.SideBySide(got, want)
}

// fmtIDs renders checkpoint ids as "[1 2 3]".
func fmtIDs(ids []int64) string { return fmt.Sprint(ids) }
