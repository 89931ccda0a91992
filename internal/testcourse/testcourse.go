// Package testcourse lets the course's own tests run in a student
// template too. A template (de classroom template) leaves out the
// reference (solutions/) and the catalogue of mistakes made from it
// (mutants/); a test that needs either skips there, saying why, so that
// plain go test ./... passes in a student's copy, as its README says.
package testcourse

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/flk-byo/course/internal/coursedir"
)

// NeedsReference skips t unless the course it runs in has the reference
// solution, solutions/.
func NeedsReference(t testing.TB) {
	t.Helper()
	needs(t, coursedir.ReferenceDir, "the reference solution")
}

// NeedsMutants skips t unless the course it runs in has the catalogue of
// classic mistakes, mutants/.
func NeedsMutants(t testing.TB) {
	t.Helper()
	needs(t, "mutants", "the catalogue of classic mistakes")
}

func needs(t testing.TB, dir, what string) {
	t.Helper()
	root, err := coursedir.FindRoot(".")
	if err != nil {
		t.Fatalf("testcourse: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(root, dir)); err != nil || !fi.IsDir() {
		t.Skipf("needs %s (%s/), which a student template does not have", what, dir)
	}
}
