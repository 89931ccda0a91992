// Package testcourse lets the course's own tests run in a student
// template too. A template (de classroom template) leaves out the
// reference (solutions/) and the catalogue of mistakes made from it
// (mutants/); a test that needs either skips there, saying why, so that
// plain go test ./... passes in a student's copy, as its README says.
package testcourse

import (
	"os"
	"path/filepath"
	"strings"
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

// Files reads the files matching glob (tests left out, *_test.go), by
// path: the sources a test measures, such as the reference's or the
// independent lab's.
func Files(t testing.TB, glob string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(glob)
	if err != nil {
		t.Fatalf("testcourse: %v", err)
	}
	out := map[string][]byte{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("testcourse: %v", err)
		}
		out[name] = data
	}
	return out
}
