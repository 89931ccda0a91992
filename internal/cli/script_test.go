package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"os/user"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/refview"
)

// TestMain lets the test binary act as the real de binary inside scripts:
// testscript runs "de" as a child process of this binary. "de-unseen" is
// de as it grades a lab the course has never seen: its corpus lacks
// solutions/independent, so that the lab written apart from the reference
// (the script command "independent") stands for any honest learner's.
func TestMain(m *testing.M) {
	run := func(sols []grade.Solution) func() {
		return func() {
			dir, _ := os.Getwd()
			os.Exit(Exec(os.Args, IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Dir: dir, Solutions: sols}))
		}
	}
	testscript.Main(m, map[string]func(){
		"de":        run(nil),
		"de-unseen": run(grade.Solutions(course.Reference, nil)[:1]),
	})
}

// TestScripts drives the real de binary through the scripts in
// testdata/script, one behaviour a script, each in a fresh copy of the
// course at $WORK/course (without lab/ or .de/, like a fresh clone).
func TestScripts(t *testing.T) { runScripts(t, "testdata/script") }

// runScripts runs the testscript scripts in dir against the real de.
func runScripts(t *testing.T, dir string) {
	root, err := coursedir.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		goEnv[k] = strings.TrimSpace(string(out))
	}
	var flink flinkModule
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			dst := filepath.Join(env.WorkDir, "course")
			if err := coursedir.CopyForSuites(root, dst); err != nil {
				return err
			}
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")       // everything is in the module cache already
			env.Setenv("GOTOOLCHAIN", "local") // never download a toolchain in a test
			env.Setenv("GOFLAGS", "-mod=readonly")
			env.Setenv("CI", "true") // plain output
			// Under -race every de process would sleep a second at exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			// The course's own mutant catalogue (not copied into the scratch
			// course), for a script that needs a mutant that applies to
			// today's reference.
			env.Setenv("CATALOGUE", filepath.Join(root, "mutants"))
			// The real course, whole (the scratch copy has only what the
			// suites need), for a script that only reads it, such as one
			// making a student template.
			env.Setenv("COURSEROOT", root)
			// The folder holding the de command, so a script can run de with no go on PATH,
			// and the one holding go, so it can run both and nothing else (no C compiler).
			env.Setenv("DEBIN", strings.SplitN(env.Getenv("PATH"), string(os.PathListSeparator), 2)[0])
			if goBin, err := exec.LookPath("go"); err == nil {
				env.Setenv("GODIR", filepath.Dir(goBin))
			}
			env.Cd = dst
			return nil
		},
		// [root]: de runs as root, as de grade --as-user needs; [user:NAME]:
		// the system has that user; [reference]: the course has its
		// reference (a student template does not); [java]: Java 17 or
		// later and Maven are on PATH, as de flink needs (with
		// FLK_FLINK=required, as in CI, their absence fails the script).
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "reference":
				return coursedir.HasReference(root), nil
			case "java":
				if !flink.available(root) && os.Getenv("FLK_FLINK") == "required" {
					return false, fmt.Errorf("FLK_FLINK=required, and Java 17 or Maven is missing: %v", flink.findErr)
				}
				return flink.available(root), nil
			}
			if name, ok := strings.CutPrefix(cond, "user:"); ok {
				_, err := user.Lookup(name)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"solve":       cmdSolve,
			"independent": cmdIndependent,
			"mergelab":    cmdMergeLab,
			"replace":     cmdReplace,
			"gradejson":   cmdGradeJSON, "junitxml": cmdJUnitXML, "classroomout": cmdClassroomOutput,
			"await": cmdAwait, "awaitproc": cmdAwaitProc, "noproc": cmdNoProc, "signal": cmdSignal,
			"exits": cmdExits,
			"flinkmodule": func(ts *testscript.TestScript, neg bool, args []string) {
				flink.cmd(ts, neg, args, root)
			},
		},
	})
}

// cmdSolve replaces lab/ with the reference solution's plain build, renamed
// to package lab: "solve" is a learner who has finished every stage,
// "solve NN" one who has finished stages 01..NN: the files the catalogue
// lists as their solutions, each as `de solution NN` shows it (without what
// later stages add to it, internal/refview).
func cmdSolve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: solve [NN]")
	}
	cat, err := catalog.Load(course.Stages())
	ts.Check(err)
	upTo := len(cat.Stages)
	if len(args) == 1 {
		st, err := cat.Resolve(args[0])
		ts.Check(err)
		upTo = st.Number
	}
	lab := ts.MkAbs("lab")
	old, _ := filepath.Glob(filepath.Join(lab, "*.go"))
	for _, f := range old {
		ts.Check(os.Remove(f))
	}
	for _, st := range cat.ReadyThrough(upTo) {
		for _, name := range st.Solution {
			data, err := os.ReadFile(ts.MkAbs(filepath.Join("solutions", name)))
			ts.Check(err)
			// The file as de solution shows it at the stage solved to, so
			// that every script that passes a stage with it also proves that
			// view a passing solution.
			first, _ := cat.FirstShowing(name)
			f, err := refview.Parse(data, first.Number)
			ts.Check(err)
			// A file of a package of its own under solutions/
			// (pebblestate/pebble.go) is, in a lab, a file of package lab.
			src := string(f.At(upTo).Source())
			if loc := packageClause.FindStringIndex(src); loc != nil {
				src = src[:loc[0]] + "package lab" + src[loc[1]:]
			}
			ts.Check(os.WriteFile(filepath.Join(lab, path.Base(name)), []byte(src), 0o644))
		}
	}
}

// cmdIndependent replaces lab/ with the lab written apart from the
// reference, from the cards alone, for every stage
// (solutions/independent/*.go.txt): "independent" is a learner who has
// finished the course without ever reading the reference.
func cmdIndependent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 0 {
		ts.Fatalf("usage: independent")
	}
	lab := ts.MkAbs("lab")
	old, _ := filepath.Glob(filepath.Join(lab, "*.go"))
	for _, f := range old {
		ts.Check(os.Remove(f))
	}
	files, err := filepath.Glob(ts.MkAbs(filepath.Join("solutions", "independent", "*.go.txt")))
	ts.Check(err)
	if len(files) == 0 {
		ts.Fatalf("independent: no solutions/independent/*.go.txt in the course")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(lab, strings.TrimSuffix(filepath.Base(f), ".txt")), data, 0o644))
	}
}

// cmdMergeLab merges every Go file of lab/ into one, lab/merged.go, its
// declarations in reverse order and its comments gone, as a copier hiding
// a copy of the reference would: "mergelab".
func cmdMergeLab(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 0 {
		ts.Fatalf("usage: mergelab")
	}
	files, err := filepath.Glob(ts.MkAbs(filepath.Join("lab", "*.go")))
	ts.Check(err)
	fset := token.NewFileSet()
	var decls []ast.Decl
	var imports []ast.Spec
	seen := map[string]bool{}
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		ts.Check(err)
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				for _, spec := range g.Specs {
					if key := importKey(spec.(*ast.ImportSpec)); !seen[key] {
						seen[key] = true
						imports = append(imports, spec)
					}
				}
				continue
			}
			decls = append(decls, d)
		}
		ts.Check(os.Remove(f))
	}
	slices.Reverse(decls)
	merged := &ast.File{Name: ast.NewIdent("lab"), Decls: append([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Lparen: 1, Specs: imports}}, decls...)}
	var buf bytes.Buffer
	ts.Check(format.Node(&buf, fset, merged))
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join("lab", "merged.go")), buf.Bytes(), 0o644))
}

// importKey names an import as it binds: its name and path.
func importKey(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name + " " + s.Path.Value
	}
	return s.Path.Value
}

// packageClause is a Go file's package clause.
var packageClause = regexp.MustCompile(`(?m)^package \w+$`)

// cmdReplace replaces the first occurrence of OLD with NEW in FILE:
// "replace FILE OLD NEW", for a script that needs a broken lab/.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	file := ts.MkAbs(args[0])
	data, err := os.ReadFile(file)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("replace: %s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(file, []byte(strings.Replace(string(data), args[1], args[2], 1)), 0o644))
}

// cmdExits runs a program as exec does (its stdout and stderr are then
// checked with stdout and stderr) and fails unless it exits with CODE:
// "exits CODE PROG [ARGS...]", e.g. "exits 2 de test --frobnicate", for the
// exit codes an instructor's script relies on (1: the work failed; 2: the
// command could not run).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// flinkModule is the course's Flink module as the scripts of one test run
// share it: found once, and built at most once, before any script's de
// flink needs it, so that no two Maven builds write flink/target at once.
type flinkModule struct {
	findOnce  sync.Once
	env       *flinkrun.Env
	findErr   error
	buildOnce sync.Once
	buildErr  error
}

// available reports whether Java and Maven are there for the module at
// root.
func (f *flinkModule) available(root string) bool {
	f.findOnce.Do(func() { f.env, f.findErr = flinkrun.Find(root) })
	return f.env != nil
}

// cmd is the script command "flinkmodule [build]": it links the scratch
// course's flink/ to the course's own (the scratch copy has only what the
// suites need), and with build, builds the module if it is stale, once per
// test run (a script that builds must check [java] first).
func (f *flinkModule) cmd(ts *testscript.TestScript, neg bool, args []string, root string) {
	if neg || len(args) > 1 || (len(args) == 1 && args[0] != "build") {
		ts.Fatalf("usage: flinkmodule [build]")
	}
	ts.Check(os.Symlink(filepath.Join(root, "flink"), ts.MkAbs("flink")))
	if len(args) == 0 {
		return
	}
	if !f.available(root) {
		ts.Fatalf("flinkmodule build: no Java or Maven; check [java] first")
	}
	f.buildOnce.Do(func() { f.buildErr = f.env.Build(context.Background(), nil) })
	ts.Check(f.buildErr)
}
