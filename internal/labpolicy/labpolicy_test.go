package labpolicy

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/testcourse"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar from what Check finds")

const module = "github.com/flk-byo/course"

var options = Options{Module: module, AllowedImports: []string{module + "/kit"}, DrillImports: map[string][]string{"quiet": {module + "/drills/01-quiet-partition/engine"}}}

// TestCheck runs Check on the lab of each testdata/*.txtar archive and
// compares its findings with the archive's "want" file, one finding a
// line ("kind position: what"). go test -update rewrites them.
func TestCheck(t *testing.T) {
	archives, err := filepath.Glob("testdata/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, archives)
	for _, path := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			require.NoError(t, err)
			root := t.TempDir()
			var want string
			kept := ar.Files[:0]
			for _, f := range ar.Files {
				if f.Name == "want" {
					want = string(f.Data)
					continue
				}
				kept = append(kept, f)
				dst := filepath.Join(root, filepath.FromSlash(f.Name))
				require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
				require.NoError(t, os.WriteFile(dst, f.Data, 0o644))
			}
			o := options
			o.Root = root
			found, err := Check(o)
			require.NoError(t, err)
			var b strings.Builder
			for _, f := range found {
				b.WriteString(string(f.Kind) + " " + f.String() + "\n")
			}
			if *update {
				ar.Files = append([]txtar.File{{Name: "want", Data: []byte(b.String())}}, kept...)
				require.NoError(t, os.WriteFile(path, txtar.Format(ar), 0o644))
				return
			}
			assert.Equal(t, want, b.String(), "findings of %s (go test ./internal/labpolicy -update rewrites them)", path)
		})
	}
}

// TestReferenceIsClean checks the rules against a correct solution: the
// reference's plain build, as a learner's lab (and as de solution shows
// it), has no finding. A rule that
// flags it would take points from correct work.
func TestReferenceIsClean(t *testing.T) {
	testcourse.NeedsReference(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "solutions", "*.go"))
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "lab"), 0o755))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_fast.go") {
			continue // the tuned build's twins: a learner's lab is the plain build
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		// As de solution shows it: without the plain twin's "//go:build !fast".
		src, _ := strings.CutPrefix(string(data), "//go:build !fast\n")
		src = strings.Replace(src, "package solutions", "package lab", 1)
		require.NoError(t, os.WriteFile(filepath.Join(root, "lab", filepath.Base(f)), []byte(src), 0o644))
		n++
	}
	require.Greater(t, n, 10)
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	o := options
	o.Root = root
	o.AllowedImports = append(slices.Clone(options.AllowedImports), cat.LabImports()...) // as de grade allows them
	found, err := Check(o)
	require.NoError(t, err)
	assert.Empty(t, found, "the reference, as a lab, must have no finding")
}

// TestNoLab checks that a course without lab/ has nothing to report.
func TestNoLab(t *testing.T) {
	o := options
	o.Root = t.TempDir()
	found, err := Check(o)
	require.NoError(t, err)
	assert.Empty(t, found)
}

// TestGradingDocListsTheRules keeps docs/GRADING.md's table of rules equal
// to the rules Check applies.
func TestGradingDocListsTheRules(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "GRADING.md"))
	require.NoError(t, err)
	const begin, end = "<!-- labpolicy:begin -->\n", "<!-- labpolicy:end -->"
	_, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "docs/GRADING.md has no %q marker", strings.TrimSpace(begin))
	table, _, ok := strings.Cut(rest, end)
	require.True(t, ok, "docs/GRADING.md has no %q marker", end)
	assert.Equal(t, Markdown(), table, "docs/GRADING.md's rules differ from internal/labpolicy; replace them with:\n%s", Markdown())
}
