// Package labpolicy checks a learner's lab/ for what a lab must not do:
// import code the learner did not write, or use a construct that can forge
// or escape a test. `de grade` gives no credit for a lab that does either;
// `de test` says so first, so that a learner finds out before an
// instructor does.
//
// A test binary prints its own results (go test -json reads them from its
// standard output), and the learner's code runs inside it: code that runs
// at init time, writes to standard output or ends the process can print
// "--- PASS" lines for tests that never ran. Nothing inside the process
// can stop that once the code runs, so the check is static and runs before
// any test: it parses the files the go tool compiles into package lab and
// reports every use of a construct in Rules, with its position.
//
// Goals: catch every construct a forger needs, in any spelling the
// language allows (renamed and dot imports, package-level initializers);
// let every correct solution a card allows pass (file I/O for stages 05
// and 08, goroutines, sync, encoding, hashing). Non-goals: catching code
// that computes the path of a file to write ("/dev/" + "stdout"), or that
// behaves differently outside tests; docs/GRADING.md says what is out of
// reach.
package labpolicy

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind says what a finding costs.
type Kind string

const (
	// Import: the lab imports code the learner did not write (the course's
	// reference, its tooling, a module outside the standard library). The
	// stage gets no credit.
	Import Kind = "import"
	// Review: the lab uses a construct that can forge or escape a test. The
	// stage gets no points and is marked for a person to review: the use
	// may be innocent (a debugging Println), but its results cannot be
	// trusted.
	Review Kind = "review"
)

// Finding is one use of something a lab must not use.
type Finding struct {
	Kind Kind
	Pos  token.Position // Filename relative to the course root, slash-separated
	What string         // what was used, e.g. "os.Exit" or `import "github.com/flk-byo/course/solutions"`
	Why  string         // why a lab must not, in a few words
}

// String renders a finding as one line: "lab/windows.go:12:2: os.Exit: ends the test binary …".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.Pos.Filename, f.Pos.Line, f.Pos.Column, f.What, f.Why)
}

// Options say what to check.
type Options struct {
	// Root is the course root; the lab is Root/lab.
	Root string
	// Module is the course's module path: imports of it are the course's
	// own code, allowed only for the packages in AllowedImports.
	Module string
	// AllowedImports are import paths outside the standard library that a
	// lab may use: kit always, and what the catalogue allows a stage
	// (stages/catalog.json, "lab_imports").
	AllowedImports []string
	// DrillImports are, by the name of a drill job's folder (lab/drills/NAME),
	// what that job may import besides AllowedImports: the engine binding
	// its drill compiles against (drills/NN-slug/engine). Its own lab/, other
	// drills' engines and the course's other code stay off limits; a folder
	// that is no drill's job may import only AllowedImports.
	DrillImports map[string][]string
}

// Check parses the files of Root/lab that the go tool compiles with the
// build tag "lab" (tests excluded: stage suites never compile them), and
// those of each drill's job in Root/lab/drills/NAME, and returns every
// finding, sorted by position. A lab folder that does not exist has no
// findings. The error is for a lab that cannot be read or parsed; a lab
// that does not compile is go test's to report.
func Check(o Options) ([]Finding, error) {
	out, err := checkDir(o, "lab", "a lab may import only the standard library and kit", []string{"lab"})
	if err != nil {
		return nil, err
	}
	jobs, err := os.ReadDir(filepath.Join(o.Root, "lab", "drills"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lab policy: %w", err)
	}
	for _, job := range jobs {
		if !job.IsDir() {
			continue
		}
		drill := o
		drill.AllowedImports = slices.Concat(o.AllowedImports, o.DrillImports[job.Name()])
		// A job is built under -tags lab (on the learner's engine) and
		// -tags lab,drillref (on the reference's: de grade's build), so a
		// file either build compiles is checked.
		for _, tags := range [][]string{{"lab"}, {"lab", "drillref"}} {
			found, err := checkDir(drill, "lab/drills/"+job.Name(), "a drill's job may import only the standard library, kit and its engine binding", tags)
			if err != nil {
				return nil, err
			}
			for _, f := range found {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Column - b.Pos.Column
	})
	return out, nil
}

// checkDir checks the package in folder folder (slash-separated, from Root)
// as the go tool builds it with the build tags tags; only says what it may
// import, for the findings of an import.
func checkDir(o Options, folder, only string, tags []string) ([]Finding, error) {
	dir := filepath.Join(o.Root, filepath.FromSlash(folder))
	ctx := build.Default
	ctx.BuildTags = tags
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	pkg, err := ctx.ImportDir(dir, 0)
	var noGo *build.NoGoError
	switch {
	case errors.As(err, &noGo):
		return nil, nil
	case err != nil && pkg == nil:
		return nil, fmt.Errorf("lab policy: %w", err)
	}
	rel := func(name string) string { return folder + "/" + name }

	var out []Finding
	// Files the go tool builds into the package that are not Go: assembly,
	// C (cgo), and prebuilt objects can do anything, unseen by a Go parser.
	for _, list := range [][]string{pkg.SFiles, pkg.CFiles, pkg.CgoFiles, pkg.CXXFiles, pkg.HFiles, pkg.MFiles, pkg.FFiles, pkg.SysoFiles, pkg.SwigFiles, pkg.SwigCXXFiles} {
		for _, name := range list {
			if strings.HasSuffix(name, ".go") {
				continue // cgo's Go files are parsed below, where import "C" is reported
			}
			out = append(out, Finding{Kind: Review, Pos: token.Position{Filename: rel(name), Line: 1, Column: 1},
				What: "file " + name, Why: "not Go: assembly, C or an object file runs code a reader of the Go cannot see"})
		}
	}
	fset := token.NewFileSet()
	for _, name := range slices.Concat(pkg.GoFiles, pkg.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("lab policy: %w", err)
		}
		c := &checker{opts: o, fset: fset, file: rel(name), only: only}
		c.checkFile(f)
		out = append(out, c.found...)
	}
	return out, nil
}

// checker collects the findings of one file.
type checker struct {
	opts  Options
	fset  *token.FileSet
	file  string
	only  string // what the package may import, said in an import's finding
	found []Finding
	// names maps the name a package is known by in this file to its
	// import path: "os" → "os", and for import o "os", "o" → "os".
	names map[string]string
	// topLevel holds the package-level functions declared in this file;
	// a call to one from a package-level initializer runs at init time.
	topLevel map[string]bool
}

func (c *checker) add(kind Kind, pos token.Pos, what, why string) {
	p := c.fset.Position(pos)
	p.Filename = c.file
	c.found = append(c.found, Finding{Kind: kind, Pos: p, What: what, Why: why})
}

func (c *checker) checkFile(f *ast.File) {
	c.names = map[string]string{}
	c.topLevel = map[string]bool{}
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			if d := directive(cm.Text); d != "" {
				if why, bad := Directives[d]; bad {
					c.add(Review, cm.Pos(), "//go:"+d, why)
				}
			}
		}
	}
	for _, imp := range f.Imports {
		c.checkImport(imp)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			c.topLevel[fd.Name.Name] = true
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				c.add(Review, d.Pos(), "func init", "runs before any test, where nothing checks what it prints or does")
			}
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				c.checkInitializers(d)
			}
		}
	}
	ast.Inspect(f, c.inspect)
}

// directive returns the name of a //go: directive comment ("linkname"), or "".
func directive(text string) string {
	rest, ok := strings.CutPrefix(text, "//go:")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}

func (c *checker) checkImport(imp *ast.ImportSpec) {
	path, err := strconv.Unquote(imp.Path.Value)
	if err != nil {
		return // the compiler reports it
	}
	name := importName(path)
	if imp.Name != nil {
		name = imp.Name.Name
	}
	what := fmt.Sprintf("import %q", path)
	switch {
	case path == "C":
		c.add(Review, imp.Pos(), what, "cgo: C code runs where the Go is not read")
		return
	case slices.Contains(c.opts.AllowedImports, path):
	case path == c.opts.Module || strings.HasPrefix(path, c.opts.Module+"/"):
		c.add(Import, imp.Pos(), what, "the course's own code, not yours: "+c.only)
		return
	case !isStandard(path):
		c.add(Import, imp.Pos(), what, "a module outside the standard library: "+c.only)
		return
	}
	if why, bad := Packages[path]; bad || isBannedTree(path) {
		if !bad {
			why = Packages[strings.SplitN(path, "/", 2)[0]]
		}
		c.add(Review, imp.Pos(), what, why)
		return
	}
	if name == "." {
		if _, watched := Identifiers[path]; watched {
			c.add(Review, imp.Pos(), what+" (a dot import)", "hides which of its names are used; import it by name")
		}
	}
	if name != "_" && name != "." {
		c.names[name] = path
	}
}

// importName is the name a package is known by when imported without a
// name: the last element of its path (no standard package differs).
func importName(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// isStandard reports whether path is in the standard library: its first
// element has no dot, as every module path outside it does.
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// isBannedTree reports whether path is below a package whose whole tree is
// banned (testing/quick, log/slog).
func isBannedTree(path string) bool {
	first, rest, ok := strings.Cut(path, "/")
	if !ok || rest == "" {
		return false
	}
	return slices.Contains(bannedTrees, first)
}

// checkInitializers reports package-level variables whose initial value
// calls a function of the lab or a function literal: such a call runs at
// init time, like an init function. Calls into the standard library (a
// crc32 table, a compiled regexp) are fine.
func (c *checker) checkInitializers(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		vs, ok := spec.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for _, v := range vs.Values {
			ast.Inspect(v, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fn := call.Fun.(type) {
				case *ast.FuncLit:
					c.add(Review, call.Pos(), "a function literal called in a package-level initializer", "runs at init time, before any test, like func init")
				case *ast.Ident:
					if c.topLevel[fn.Name] {
						c.add(Review, call.Pos(), fn.Name+"() in a package-level initializer", "runs at init time, before any test, like func init")
					}
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.Ident); ok {
						if _, isPkg := c.names[x.Name]; isPkg {
							break
						}
					}
					c.add(Review, call.Pos(), "a method called in a package-level initializer", "runs at init time, before any test, like func init")
				}
				return true
			})
		}
	}
}

// inspect reports selectors of watched packages, the print builtins and
// string literals naming the process's own output.
func (c *checker) inspect(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		x, ok := n.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := c.names[x.Name]
		if !ok {
			return true
		}
		rules := Identifiers[path]
		if why, bad := rules.banned[n.Sel.Name]; bad {
			c.add(Review, n.Pos(), path+"."+n.Sel.Name, why)
		} else if rules.allowOnly != nil && !slices.Contains(rules.allowOnly, n.Sel.Name) {
			c.add(Review, n.Pos(), path+"."+n.Sel.Name, rules.otherwise+" (a lab may use only "+strings.ReplaceAll(rules.allowed(), "`", "")+")")
		}
	case *ast.CallExpr:
		if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && !c.topLevel[id.Name] {
			c.add(Review, n.Pos(), id.Name+" (builtin)", "writes to the test binary's standard error")
		}
	case *ast.BasicLit:
		if n.Kind == token.STRING {
			if s, err := strconv.Unquote(n.Value); err == nil {
				for _, p := range OutputPaths {
					if strings.Contains(s, p) {
						c.add(Review, n.Pos(), fmt.Sprintf("the path %q", p), "names the test binary's own output: writing there forges its results")
						break
					}
				}
			}
		}
	}
	return true
}
