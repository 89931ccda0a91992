package catalog

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// TestDoc is one test of a stage suite and the one line it certifies, read
// from its doc comment "// TestName certifies that <line>."
type TestDoc struct {
	Name      string
	Certifies string // empty when the comment does not follow the form
}

// Tests returns the tests of a stage's suite in source order (files by
// name), read from the embedded suite sources.
func (c *Catalog) Tests(s Stage) ([]TestDoc, error) {
	fsys, dir := c.content(s)
	names, err := fs.Glob(fsys, path.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	fset := token.NewFileSet()
	var docs []TestDoc
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", s.ID(), err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isTestFunc(fn) {
				continue
			}
			docs = append(docs, TestDoc{Name: fn.Name.Name, Certifies: certifies(fn.Name.Name, fn.Doc.Text())})
		}
	}
	return docs, nil
}

// isTestFunc reports whether fn is a top-level test, TestXxx(t *testing.T),
// or a fuzz target, FuzzXxx(f *testing.F), which go test runs on its seed
// corpus like a test.
func isTestFunc(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	prefix, typ := "Test", "T"
	if strings.HasPrefix(name, "Fuzz") {
		prefix, typ = "Fuzz", "F"
	}
	if !strings.HasPrefix(name, prefix) || name == "TestMain" {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == typ
}

// certifies extracts "<line>" from "TestName certifies that <line>." The
// sentence may wrap over several comment lines; it ends at the first period
// that ends a comment line, or at the end of the first paragraph. It returns
// "" when the comment does not start that way.
func certifies(name, doc string) string {
	rest, ok := strings.CutPrefix(doc, name+" certifies that ")
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "\n\n")
	if i := strings.Index(rest, ".\n"); i >= 0 {
		rest = rest[:i+1]
	}
	return strings.Join(strings.Fields(rest), " ")
}

// TestsByPackage returns, for the go test package pattern of each of the
// given stages (Stage.Package), the names of its tests in suite order: what
// a run of that package must report (gotest.RunPastCrashes asks for it).
func (c *Catalog) TestsByPackage(stages []Stage) func(pattern string) []string {
	return func(pattern string) []string {
		for _, st := range stages {
			if st.Package() != pattern {
				continue
			}
			docs, _ := c.Tests(st)
			names := make([]string, len(docs))
			for i, d := range docs {
				names[i] = d.Name
			}
			return names
		}
		return nil
	}
}
