// Package labpolicy checks a learner's lab/ for what a lab must not do:
// import code the learner did not write, or use a construct that can forge
// or escape a test. `de grade` gives no credit for a lab that does either;
// `de test` says so first, so that a learner finds out before an
// instructor does.
//
// The learner's code runs inside the test binary. de credits a test only
// when the suite's own report confirms it (internal/verdict), so what the
// code prints is never a verdict; but code that reaches the process itself
// (its raw file descriptors, its memory, its exit, the tests' own values)
// could still make that report lie. This check is static and runs before
// any test: it parses every Go file in lab/ (whatever its build
// constraint: a lab needs none, and a file built only under the grader's
// tags is still read) and reports every use of a construct in the rules,
// with its position.
//
// Goals: catch every construct that reaches the process, in any spelling
// the language allows (renamed and dot imports, package-level initializers
// that call the lab's code from another file); let every correct solution
// a card allows pass (file I/O for stages 05 and 08, goroutines, sync,
// encoding, hashing). Non-goals: catching code that computes the path of a
// file to open ("/proc/" + "self/mem"), or that behaves differently
// outside tests; docs/GRADING.md says what is out of reach.
package labpolicy

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
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
	out, err := checkDir(o, "lab", "a lab may import only the standard library and kit")
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
		found, err := checkDir(drill, "lab/drills/"+job.Name(), "a drill's job may import only the standard library, kit and its engine binding")
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
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

// checkDir checks the package in folder folder (slash-separated, from
// Root): every file the go tool could build into it, under any build
// constraint (the grader builds with tags, -race and a GOOS of its own, and
// a lab needs no constraint of its own, so a file with one is reviewed
// too). only says what the package may import, for an import's finding.
func checkDir(o Options, folder, only string) ([]Finding, error) {
	dir := filepath.Join(o.Root, filepath.FromSlash(folder))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lab policy: %w", err)
	}
	rel := func(name string) string { return folder + "/" + name }

	var out []Finding
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue // the go tool ignores them
		}
		switch ext := filepath.Ext(name); {
		case ext == ".go" && strings.HasSuffix(name, "_test.go"):
			// A lab's own tests: never compiled into a suite.
		case ext == ".go":
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("lab policy: %w", err)
			}
			files = append(files, f)
		case slices.Contains(nonGoExts, ext):
			// Assembly, C and prebuilt objects can do anything, unseen by a
			// Go parser.
			out = append(out, Finding{Kind: Review, Pos: token.Position{Filename: rel(name), Line: 1, Column: 1},
				What: "file " + name, Why: "not Go: assembly, C or an object file runs code a reader of the Go cannot see"})
		}
	}
	pkg := declsOf(fset, files)
	for _, f := range files {
		c := &checker{opts: o, fset: fset, file: rel(filepath.Base(fset.Position(f.Package).Filename)), only: only, pkg: pkg}
		c.checkFile(f)
		out = append(out, c.found...)
	}
	return out, nil
}

// nonGoExts are the extensions of the files other than Go that the go tool
// compiles or links into a package.
var nonGoExts = []string{".s", ".S", ".sx", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx"}

// decls are the names a package declares at package level, across all its
// files, by kind: what an initializer in one file may call in another.
type decls struct {
	funcs, vars, types, typedConsts, methods map[string]string // name → the file that declares it
}

// declsOf collects the package-level declarations of files, parsed into
// fset.
func declsOf(fset *token.FileSet, files []*ast.File) decls {
	d := decls{funcs: map[string]string{}, vars: map[string]string{}, types: map[string]string{}, typedConsts: map[string]string{}, methods: map[string]string{}}
	for _, f := range files {
		name := filepath.Base(fset.Position(f.Package).Filename)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					d.funcs[decl.Name.Name] = name
				} else {
					d.methods[decl.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						d.types[spec.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							switch {
							case decl.Tok == token.VAR:
								d.vars[n.Name] = name
							case spec.Type != nil:
								d.typedConsts[n.Name] = name
							}
						}
					}
				}
			}
		}
	}
	return d
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
	// pkg is what the whole package declares: an initializer in this file
	// may call a function declared in another.
	pkg decls
}

func (c *checker) add(kind Kind, pos token.Pos, what, why string) {
	p := c.fset.Position(pos)
	p.Filename = c.file
	c.found = append(c.found, Finding{Kind: kind, Pos: p, What: what, Why: why})
}

func (c *checker) checkFile(f *ast.File) {
	c.names = map[string]string{}
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			if cm.Pos() < f.Package && (constraint.IsGoBuild(cm.Text) || constraint.IsPlusBuild(cm.Text)) {
				c.add(Review, cm.Pos(), "a build constraint", "puts the file in some builds and not others (the grader's tags, -race, an OS): a lab needs none")
			}
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
// can run the lab's own code at init time, as an init function does: a
// call of a function or method the package declares (in any of its
// files), of a function literal or a function-typed variable, or of
// anything but a standard package's function, a builtin or a conversion;
// and a call of a standard package's function that is handed the lab's
// functions, methods, function literals or values of its types (fmt.Sprint
// calls a String method, sort.Slice a less function). Calls into the
// standard library with constants (a crc32 table, a compiled regexp,
// errors.New) are fine.
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
				if what := c.initCall(call); what != "" {
					c.add(Review, call.Pos(), what+" in a package-level initializer", "runs at init time, before any test, like func init")
				}
				return true
			})
		}
	}
}

// initCall returns what of call, in a package-level initializer, can run
// the lab's code, or "" when nothing can.
func (c *checker) initCall(call *ast.CallExpr) string {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		return "a function literal called"
	case *ast.Ident:
		switch {
		case c.pkg.funcs[fn.Name] != "":
			return fn.Name + "()" + c.where(c.pkg.funcs[fn.Name])
		case c.pkg.vars[fn.Name] != "":
			return "the function in variable " + fn.Name + " called"
		case c.pkg.types[fn.Name] != "", slices.Contains(builtins, fn.Name), slices.Contains(predeclaredTypes, fn.Name):
			return "" // a conversion or a builtin: its arguments are calls of their own
		}
		return fn.Name + "() called"
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok {
			if _, isPkg := c.names[x.Name]; isPkg {
				for _, arg := range call.Args {
					if what := c.labValue(arg); what != "" {
						return x.Name + "." + fn.Sel.Name + " handed " + what + ","
					}
				}
				return ""
			}
		}
		return "a method called"
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType, *ast.StarExpr:
		return "" // a conversion
	}
	return "a call"
}

// labValue returns what in expr, an argument of a standard package's
// function called at init time, that function could call back into: a
// function or method the lab declares, a function literal, or a value of
// the lab's (which may have methods: String, Error, Less); "" for none.
func (c *checker) labValue(expr ast.Expr) string {
	var what string
	ast.Inspect(expr, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			what = "a function literal"
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if _, isPkg := c.names[x.Name]; isPkg {
					return false // a name of another package
				}
			}
		case *ast.Ident:
			for _, m := range []map[string]string{c.pkg.funcs, c.pkg.vars, c.pkg.types, c.pkg.typedConsts} {
				if file := m[n.Name]; file != "" {
					what = n.Name + c.where(file)
				}
			}
		}
		return true
	})
	return what
}

// where says, for a name declared in file, the file when it is not this
// one: " (in lab/forger.go)".
func (c *checker) where(file string) string {
	if path.Base(c.file) == file {
		return ""
	}
	return " (in " + path.Join(path.Dir(c.file), file) + ")"
}

// predeclaredTypes are the predeclared types: a call of one is a conversion.
var predeclaredTypes = []string{"any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64",
	"int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr"}

// builtins are the predeclared functions, none of which calls a lab's code.
var builtins = []string{"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover"}

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
		if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && c.pkg.funcs[id.Name] == "" {
			c.add(Review, n.Pos(), id.Name+" (builtin)", "writes to the test binary's standard error")
		}
	case *ast.BasicLit:
		if n.Kind == token.STRING {
			if s, err := strconv.Unquote(n.Value); err == nil {
				for _, p := range OutputPaths {
					if strings.Contains(s, p) {
						c.add(Review, n.Pos(), fmt.Sprintf("the path %q", p), "names the test binary's own output, file descriptors or memory")
						break
					}
				}
			}
		}
	}
	return true
}
