package refview

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/testcourse"
)

// The course root and the reference, from this package's folder.
var (
	courseRoot   = filepath.Join("..", "..")
	referenceDir = filepath.Join(courseRoot, "solutions")
)

// reference is the course's reference as de solution sees it: the
// catalogue, and every plain file parsed with the first stage that shows it.
type reference struct {
	cat   *catalog.Catalog
	files map[string]*File // by name: "windows.go"
}

// loadReference reads the catalogue and parses every plain file of the
// reference (not *_fast.go, not *_test.go), failing the test on a malformed
// directive.
func loadReference(t *testing.T) *reference {
	t.Helper()
	cat, err := catalog.Load(os.DirFS(filepath.Join(courseRoot, "stages")))
	require.NoError(t, err)
	ref := &reference{cat: cat, files: map[string]*File{}}
	for _, name := range referenceFiles(t) {
		if !plain(name) {
			continue
		}
		first := 0
		if st, ok := cat.FirstShowing(name); ok {
			first = st.Number
		}
		data, err := os.ReadFile(filepath.Join(referenceDir, name))
		require.NoError(t, err)
		f, err := Parse(data, first)
		require.NoError(t, err, "solutions/%s has a malformed stage region", name)
		ref.files[name] = f
	}
	return ref
}

// referenceFiles returns the names of the Go files in solutions/, sorted.
func referenceFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(referenceDir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	return names
}

// plain reports whether a reference file is part of the plain build that
// de solution shows: not a test, not the tuned build's.
func plain(name string) bool {
	return !strings.HasSuffix(name, "_test.go") && !strings.HasSuffix(name, "_fast.go")
}

// TestEveryReferenceFileIsShown checks that de solution shows every file of
// the reference's plain build with some stage, and that every file the
// catalogue names exists: a helper that no stage lists (add it to the
// stage's "solution" in stages/catalog.json) would leave a learner reading
// code that calls what it cannot see. The tuned build's files (*_fast.go)
// are de bench's, explained in docs/PERFORMANCE.md, and shown by no stage;
// they and the tests have no stage regions, which only a shown file needs.
// A stage not ready yet may list its files before they exist, and a file it
// lists counts as shown: its reference is written before its card is done.
func TestEveryReferenceFileIsShown(t *testing.T) {
	testcourse.NeedsReference(t)
	ref := loadReference(t)
	shown := map[string]bool{"doc.go": true} // the package comment alone
	for _, st := range ref.cat.Stages {
		if !st.Ready {
			for _, f := range st.Solution {
				shown[f] = true
			}
			continue
		}
		assert.NotEmpty(t, st.Solution, "stage %s lists no solution files in stages/catalog.json", st.ID())
		for _, f := range st.Solution {
			shown[f] = true
			assert.FileExists(t, filepath.Join(referenceDir, f), "stage %s's solution", st.ID())
			assert.True(t, plain(f), "stage %s shows %s, which is not a file of the plain build", st.ID(), f)
		}
	}
	for _, name := range referenceFiles(t) {
		if plain(name) {
			assert.True(t, shown[name], "solutions/%s is shown by no stage's de solution", name)
			continue
		}
		if base, ok := strings.CutSuffix(name, "_fast.go"); ok {
			assert.FileExists(t, filepath.Join(referenceDir, base+".go"), "the tuned %s has no plain twin", name)
		}
		data, err := os.ReadFile(filepath.Join(referenceDir, name))
		require.NoError(t, err)
		f, err := Parse(data, 0)
		if assert.NoError(t, err, "solutions/%s", name) {
			assert.Empty(t, f.Regions(), "solutions/%s has stage regions, but de solution never shows it", name)
		}
	}
}

// TestEveryRegionIsShownByItsStage checks that a later stage's code in an
// earlier stage's file is shown by de solution of that later stage: the
// stage lists the file, so that it shows what it adds there. And a stage
// that lists a file an earlier stage showed adds something to it: else it
// would show nothing of it.
func TestEveryRegionIsShownByItsStage(t *testing.T) {
	testcourse.NeedsReference(t)
	ref := loadReference(t)
	for name, f := range ref.files {
		for _, r := range f.Regions() {
			if !assert.LessOrEqual(t, r.Stage, len(ref.cat.Stages), "solutions/%s:%d: a region for stage %02d, which the catalogue does not have", name, r.Line, r.Stage) {
				continue
			}
			st := ref.cat.Stages[r.Stage-1] // ready or not: a stage being written may add to earlier files
			assert.Contains(t, st.Solution, name, "solutions/%s:%d has stage %s's code (%s): list %s in that stage's \"solution\" in stages/catalog.json, so that de solution %02d shows it",
				name, r.Line, st.ID(), r.Label, name, st.Number)
		}
	}
	for _, st := range ref.cat.Ready() {
		for _, name := range st.Solution {
			first, _ := ref.cat.FirstShowing(name)
			f := ref.files[name]
			if first.Number == st.Number || f == nil {
				continue
			}
			parts, err := f.At(st.Number).Excerpt(st.Number)
			require.NoError(t, err, "solutions/%s at stage %s", name, st.ID())
			assert.NotEmpty(t, parts, "stage %s lists solutions/%s, which stage %s shows first, but has no region in it: mark what it adds with //course:stage %02d, or drop the file from its \"solution\"",
				st.ID(), name, first.ID(), st.Number)
		}
	}
}

// TestEveryViewCompiles checks that, for each ready stage N, the views at N
// of every file the catalogue lists for stages 1..N, with doc.go, are one
// package that type-checks (the plain build: no *_fast.go) and are
// gofmt-formatted. That is what makes `de solution NN` an honest stage-NN
// solution: a region left out that the code still uses, or a region that
// uses a later stage's code, fails here.
func TestEveryViewCompiles(t *testing.T) {
	testcourse.NeedsReference(t)
	ref := loadReference(t)
	imp := exportImporter(t)
	for _, st := range ref.cat.Ready() {
		t.Run(st.ID(), func(t *testing.T) {
			names := []string{"doc.go"}
			for _, earlier := range ref.cat.Stages[:st.Number] {
				for _, name := range earlier.Solution {
					// A file under solutions/ in a package of its own
					// (pebblestate/pebble.go) is not package solutions:
					// go vet compiles it, not this view.
					if !slices.Contains(names, name) && !strings.Contains(name, "/") {
						names = append(names, name)
					}
				}
			}
			fset := token.NewFileSet()
			var files []*ast.File
			for _, name := range names {
				f, ok := ref.files[name]
				require.True(t, ok, "solutions/%s is not a plain reference file", name)
				src := f.At(st.Number).Source()
				formatted, err := format.Source(src)
				require.NoError(t, err, "the view of solutions/%s at stage %s does not parse", name, st.ID())
				assert.Equal(t, string(formatted), string(src), "the view of solutions/%s at stage %s is not gofmt-formatted: mind the blank lines around its regions", name, st.ID())
				af, err := parser.ParseFile(fset, name, src, parser.ParseComments)
				require.NoError(t, err)
				files = append(files, af)
			}
			var errs []string
			conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
			_, _ = conf.Check("github.com/flk-byo/course/solutions", fset, files, nil)
			assert.Empty(t, errs, "the reference as of stage %s (%s) does not type-check: a region left out is still used, or a region uses a later stage's code", st.ID(), strings.Join(names, ", "))
		})
	}
}

// exportImporter returns an importer of the packages the reference imports,
// from the export data the go command builds for them (go list -export,
// from the build cache after the first run).
func exportImporter(t *testing.T) types.Importer {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}", "./solutions")
	cmd.Dir = courseRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", stderr.String())
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok {
			exports[path] = file
		}
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("%s is not imported by the reference's plain build", path)
		}
		return os.Open(file)
	})
}
