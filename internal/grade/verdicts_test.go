package grade

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
)

// TestEveryGradedTestReportsItsVerdict keeps every graded suite able to
// earn credit: de credits a test only when its suite's own report lists it
// (internal/verdict), and a suite reports the tests that defer
// suite.Recover, from a TestMain that runs through suite.Main. A test that
// forgot either would never be credited, for a correct lab as for a wrong
// one: this names it.
func TestEveryGradedTestReportsItsVerdict(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.LoadDrills(course.Drills()); err != nil {
		t.Fatal(err)
	}
	for _, st := range append(cat.Ready(), cat.ReadyDrills()...) {
		names, err := fs.Glob(course.Files, path.Join(st.Dir(), "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		funcs := map[string]*ast.FuncDecl{}
		var mains []mainDecl
		for _, name := range names {
			src, err := fs.ReadFile(course.Files, name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
					if fn.Name.Name == "TestMain" {
						mains = append(mains, mainDecl{file: name, expr: buildExpr(f), callsMain: callsSuiteMain(fn)})
					}
					funcs[fn.Name.Name] = fn
				}
			}
		}
		docs, err := cat.Tests(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if fn := funcs[d.Name]; !defersRecoverFirst(fn) {
				t.Errorf("%s: %s does not begin with `defer suite.Recover(%s)`: de grade would never credit it", st.Ref(), d.Name, paramName(fn))
			}
		}
		builds := [][]string{{"lab"}}
		for _, r := range st.Reruns {
			builds = append(builds, []string{"lab", r.Tag})
		}
		if st.Track == catalog.Drill {
			builds = append(builds, []string{"lab", catalog.DrillReferenceEngineTag})
		}
		// The stages the reruns run again are built under the rerun tags too.
		for _, other := range cat.Ready() {
			for _, r := range other.Reruns {
				for _, earlier := range r.Stages {
					if earlier.ID() == st.ID() {
						builds = append(builds, []string{"lab", r.Tag})
					}
				}
			}
		}
		for _, tags := range builds {
			var found []string
			for _, m := range mains {
				if m.expr == nil || m.expr.Eval(func(tag string) bool { return tag == "race" || slicesContain(tags, tag) }) {
					found = append(found, m.file)
					if !m.callsMain {
						t.Errorf("%s: the TestMain of %s does not run the tests through suite.Main: no verdict reaches de", st.Ref(), m.file)
					}
				}
			}
			if len(found) != 1 {
				t.Errorf("%s, built with -tags %s: %d TestMain functions (%s), want one that calls suite.Main",
					st.Ref(), strings.Join(tags, ","), len(found), strings.Join(found, ", "))
			}
		}
	}
}

type mainDecl struct {
	file      string
	expr      constraint.Expr // nil without a constraint
	callsMain bool
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// buildExpr returns f's //go:build constraint, or nil.
func buildExpr(f *ast.File) constraint.Expr {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				if e, err := constraint.Parse(c.Text); err == nil {
					return e
				}
			}
		}
	}
	return nil
}

// callsSuiteMain reports whether fn calls suite.Main.
func callsSuiteMain(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "suite" && sel.Sel.Name == "Main" {
				found = true
			}
		}
		return !found
	})
	return found
}

// defersRecoverFirst reports whether fn's first statement is
// `defer suite.Recover(p)`, p its parameter.
func defersRecoverFirst(fn *ast.FuncDecl) bool {
	if fn == nil || fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	d, ok := fn.Body.List[0].(*ast.DeferStmt)
	if !ok || len(d.Call.Args) != 1 {
		return false
	}
	sel, ok := d.Call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Recover" {
		return false
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "suite" {
		return false
	}
	arg, ok := d.Call.Args[0].(*ast.Ident)
	return ok && arg.Name == paramName(fn)
}

// paramName is the name of fn's one parameter ("t", "f"), or "t".
func paramName(fn *ast.FuncDecl) string {
	if fn != nil && len(fn.Type.Params.List) == 1 && len(fn.Type.Params.List[0].Names) == 1 {
		return fn.Type.Params.List[0].Names[0].Name
	}
	return "t"
}
