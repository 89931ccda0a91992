package grade

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/similarity"
	"github.com/flk-byo/course/internal/testcourse"
)

// setOf is the union of the fingerprints of srcs.
func setOf(t *testing.T, srcs map[string][]byte) similarity.Set {
	t.Helper()
	u := similarity.Set{}
	for name, src := range srcs {
		fp, err := similarity.Fingerprints(src)
		require.NoError(t, err, name)
		u.Add(fp)
	}
	return u
}

// corpus is what the calibration measures against: the reference (both
// builds, and the Pebble backend), less the skeletons' base.
func corpus(t *testing.T) (ref map[string][]byte, refSet, base similarity.Set) {
	t.Helper()
	ref = testcourse.Files(t, "../../solutions/*.go")
	for k, v := range testcourse.Files(t, "../../solutions/pebblestate/*.go") {
		ref[k] = v
	}
	base = setOf(t, testcourse.Files(t, "../../stages/*/_skeleton/*.go"))
	return ref, setOf(t, ref).Minus(base), base
}

// reshape rewrites a program as a copier hiding a copy would: every file
// merged into one, the declarations in reverse order, every identifier it
// declares renamed, comments and layout gone, and, as asked, adjacent
// statements swapped (reorder) and each function of four statements or
// more split in two, its second half moved to a function of its own. The
// result need not compile: it is what the measure sees.
func reshape(t *testing.T, srcs map[string][]byte, reorder, split bool) []byte {
	t.Helper()
	fset := token.NewFileSet()
	var decls []ast.Decl
	var imports []ast.Spec
	pkgs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		f, err := parser.ParseFile(fset, name, srcs[name], 0)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := path.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			pkgs[name] = true
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				imports = append(imports, g.Specs...)
				continue
			}
			decls = append(decls, d)
		}
	}
	slices.Reverse(decls)
	names := map[string]string{}
	var helpers []ast.Decl
	for _, d := range decls {
		ast.Inspect(d, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && pkgs[x.Name] {
					return false
				}
			case *ast.Ident:
				if pkgs[n.Name] || slices.Contains([]string{"_", "nil", "true", "false", "iota", "int", "int64", "uint64", "string", "byte", "bool", "error", "any", "len", "make", "append"}, n.Name) {
					return true
				}
				if names[n.Name] == "" {
					names[n.Name] = fmt.Sprintf("n%d", len(names))
				}
				n.Name = names[n.Name]
			case *ast.BlockStmt:
				for i := 0; reorder && i+1 < len(n.List); i += 2 {
					if _, ret := n.List[i+1].(*ast.ReturnStmt); !ret {
						n.List[i], n.List[i+1] = n.List[i+1], n.List[i]
					}
				}
			}
			return true
		})
		if fd, ok := d.(*ast.FuncDecl); ok && split && fd.Body != nil && len(fd.Body.List) >= 4 {
			half := len(fd.Body.List) / 2
			name := fmt.Sprintf("part%d", len(helpers))
			helpers = append(helpers, &ast.FuncDecl{Name: ast.NewIdent(name), Type: &ast.FuncType{Params: &ast.FieldList{}},
				Body: &ast.BlockStmt{List: fd.Body.List[half:]}})
			fd.Body.List = append(fd.Body.List[:half:half], &ast.ExprStmt{X: &ast.CallExpr{Fun: ast.NewIdent(name)}})
		}
	}
	file := &ast.File{Name: ast.NewIdent("lab"),
		Decls: slices.Concat([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Lparen: 1, Specs: imports}}, decls, helpers)}
	var buf bytes.Buffer
	require.NoError(t, format.Node(&buf, token.NewFileSet(), file))
	return buf.Bytes()
}

// TestCalibration calibrates the similarity measure, and CopyThreshold,
// on the whole course: the reference, reshaped as a copier would hide it,
// is found nearly whole, well above the threshold; the lab written apart
// from it from the cards alone (solutions/independent, every stage) stays
// well below it, as a whole and in every file large enough to be judged
// alone (MinFileFingerprints).
func TestCalibration(t *testing.T) {
	testcourse.NeedsReference(t)
	ref, refSet, base := corpus(t)
	for _, c := range []struct {
		name            string
		reorder, splits bool
	}{
		{"merged, declarations reversed, renamed", false, false},
		{"… and adjacent statements swapped", true, false},
		{"… and functions split in two", false, true},
		{"… swapped and split", true, true},
	} {
		fp, err := similarity.Fingerprints(reshape(t, ref, c.reorder, c.splits))
		require.NoError(t, err)
		share := similarity.Share(fp.Minus(base), refSet)
		t.Logf("the reference, %s: %.2f", c.name, share)
		assert.Greater(t, share, CopyThreshold+0.2, "the reference, %s, must still be found nearly whole", c.name)
	}

	indep := testcourse.Files(t, "../../solutions/independent/*.go.txt")
	require.Greater(t, len(indep), 20, "the independent lab")
	whole := setOf(t, indep).Minus(base)
	t.Logf("the independent lab as a whole: %.2f of %d", similarity.Share(whole, refSet), len(whole))
	assert.Less(t, similarity.Share(whole, refSet), CopyThreshold-0.3, "a lab written apart from the reference, as a whole")
	for _, name := range slices.Sorted(maps.Keys(indep)) {
		fp, err := similarity.Fingerprints(indep[name])
		require.NoError(t, err)
		fp = fp.Minus(base)
		share := similarity.Share(fp, refSet)
		t.Logf("  %-24s %.2f of %d", filepath.Base(name), share, len(fp))
		if len(fp) >= MinFileFingerprints {
			assert.Less(t, share, CopyThreshold-0.15, "%s, written apart from the reference", filepath.Base(name))
		}
	}
}

// TestDrillCalibration calibrates the measure of a drill's fix: each
// drill's reference fix, as a job, is flagged; each fix written apart from
// it from the drill's card alone (solutions/independent/drills) is not;
// and the reference fix retyped without its comments is flagged exactly
// when it changed enough statements (drillMinFix) to tell: a one-setting
// fix retyped is what any right answer looks like.
func TestDrillCalibration(t *testing.T) {
	testcourse.NeedsReference(t)
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	require.NoError(t, cat.LoadDrills(course.Drills()))
	for _, d := range cat.ReadyDrills() {
		for _, c := range []struct {
			from         string
			flagged      bool
			noComments   bool
			flaggedIfBig bool
		}{
			{from: "../../solutions/drills/" + d.JobPackage + "/*.go", flagged: true},
			{from: "../../solutions/independent/drills/" + d.JobPackage + "/*.go.txt", flagged: false},
			{from: "../../solutions/drills/" + d.JobPackage + "/*.go", noComments: true, flaggedIfBig: true},
		} {
			root := t.TempDir()
			job := filepath.Join(root, filepath.FromSlash(d.JobDir()))
			require.NoError(t, os.MkdirAll(job, 0o755))
			files := testcourse.Files(t, c.from)
			require.NotEmpty(t, files, c.from)
			for name, data := range files {
				if c.noComments {
					data = stripComments(t, data)
				}
				require.NoError(t, os.WriteFile(filepath.Join(job, strings.TrimSuffix(filepath.Base(name), ".txt")), data, 0o644))
			}
			sims, err := DrillSimilarities(root, []catalog.Stage{d}, course.Files, os.DirFS("../.."))
			require.NoError(t, err)
			require.Len(t, sims, 1)
			x := sims[0]
			t.Logf("%-20s %-45s comments stripped %-5v share %.2f of %d changed statements, %d comment lines: flagged %v",
				d.Slug, c.from[6:], c.noComments, x.Share, x.Fingerprints, x.CopiedComments, x.Flagged)
			want := c.flagged || (c.flaggedIfBig && x.Fingerprints >= drillMinFix)
			assert.Equal(t, want, x.Flagged, "%s as the job of drill %s (comments stripped: %v)", c.from, d.Slug, c.noComments)
		}
	}
}

// stripComments returns Go source src without its comments.
func stripComments(t *testing.T, src []byte) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	require.NoError(t, err)
	f.Comments, f.Doc = nil, nil
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			n.Doc = nil
		case *ast.GenDecl:
			n.Doc = nil
		case *ast.ValueSpec:
			n.Doc, n.Comment = nil, nil
		case *ast.TypeSpec:
			n.Doc, n.Comment = nil, nil
		case *ast.Field:
			n.Doc, n.Comment = nil, nil
		case *ast.ImportSpec:
			n.Doc, n.Comment = nil, nil
		}
		return true
	})
	var buf bytes.Buffer
	require.NoError(t, format.Node(&buf, fset, f))
	return buf.Bytes()
}
