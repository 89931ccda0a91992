// Package gotest runs `go test -json` over stage packages and turns the
// event stream into per-test results a learner can read: pass or fail, the
// test's own output without the framing lines, whether it failed on a
// skeleton's TODO, whether it hung until the stage's timeout, and the
// compile errors of a stage that did not build.
//
// Parsing the stream is left to gotestsum's testjson, which also handles
// the cases where go test sends no end event (a test binary that panicked
// or timed out): such tests count as failed.
package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"gotest.tools/gotestsum/testjson"
)

// NotImplemented is the prefix that internal/suite.Recover writes for a
// skeleton's panic("TODO …"); a test that failed with it failed because the
// learner has not written that code yet.
const NotImplemented = "not implemented yet: "

// Options describe one run of go test.
type Options struct {
	Dir      string        // the module root to run in
	Tags     string        // build tags: "lab" or "solution"
	Packages []string      // package patterns, e.g. "./stages/01-windows"
	Run      string        // -run pattern; empty runs every test
	Race     bool          // build with the race detector
	Timeout  time.Duration // per test binary, i.e. per stage; 0 means go test's default
	Count    int           // -count; 0 leaves go test's default (and its result cache) alone
	Env      []string      // extra environment, KEY=VALUE

	// OnTest, when set, is called as each top-level test ends, for live progress.
	OnTest func(pkg string, t Test)
}

// Status is the outcome of a test.
type Status string

// The outcomes of a test.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Test is the result of one top-level test.
type Test struct {
	Name           string
	Status         Status
	Elapsed        time.Duration
	Output         []string // what the test and its failed subtests printed, framing removed
	NotImplemented string   // the skeleton's TODO message when the test failed on one
	Hung           bool     // the test was still running when the stage timed out
}

// Package is the result of one test package (one stage).
type Package struct {
	ImportPath string
	Tests      []Test // in the order they started
	BuildError string // compile errors; when set, no test ran
	TimedOut   string // go test's timeout message, when the binary timed out
	Crash      string // package output when it failed for a reason no test shows
}

// Passed counts the package's passed tests.
func (p *Package) Passed() int {
	n := 0
	for _, t := range p.Tests {
		if t.Status == Pass {
			n++
		}
	}
	return n
}

// OK reports whether the package built and every test passed or skipped.
func (p *Package) OK() bool {
	return p.BuildError == "" && p.TimedOut == "" && p.Crash == "" &&
		!slices.ContainsFunc(p.Tests, func(t Test) bool { return t.Status == Fail })
}

// Result is the outcome of a run.
type Result struct {
	Packages []*Package // in the order of Options.Packages
	Errors   []string   // go command errors not tied to a package (e.g. a bad go.mod)
}

// Package returns the result of the package whose import path ends with
// the given pattern's path ("./stages/01-windows"), or nil.
func (r *Result) Package(pattern string) *Package {
	suffix := "/" + strings.TrimPrefix(pattern, "./")
	for _, p := range r.Packages {
		if strings.HasSuffix(p.ImportPath, suffix) {
			return p
		}
	}
	return nil
}

// ErrNoGo is returned when the go command is not on PATH.
var ErrNoGo = errors.New("go is not on PATH: de runs `go test`; install Go 1.26 or later from https://go.dev/dl and try again")

// Args returns the go command line Run uses, without "go" itself.
func (o Options) Args() []string {
	// -trimpath keeps the build independent of where the course sits, so
	// copies of it (scratch checks, a second clone) share the build cache.
	args := []string{"test", "-json", "-trimpath", "-tags", o.Tags}
	if o.Race {
		args = append(args, "-race")
	}
	if o.Timeout > 0 {
		args = append(args, "-timeout", o.Timeout.String())
	}
	if o.Count > 0 {
		args = append(args, fmt.Sprintf("-count=%d", o.Count))
	}
	if o.Run != "" {
		args = append(args, "-run", o.Run)
	}
	return append(args, o.Packages...)
}

// Run runs go test and collects the results. It returns an error only when
// go could not be run at all; failing and non-compiling stages are results.
func Run(ctx context.Context, o Options) (*Result, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, ErrNoGo
	}
	cmd := exec.CommandContext(ctx, goBin, o.Args()...)
	cmd.Dir = o.Dir
	cmd.Env = os.Environ()
	if os.Getenv("GORACE") == "" {
		// The race detector sleeps a second at exit by default, waiting for
		// stray goroutines to report; suites join their goroutines, so skip it.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.Env = append(cmd.Env, o.Env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("go test: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("go test: %w", err)
	}
	res, scanErr := Parse(stdout, o.Packages, o.OnTest)
	waitErr := cmd.Wait()
	if scanErr != nil {
		return nil, scanErr
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if line != "" {
			res.Errors = append(res.Errors, line)
		}
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("go test: %w", waitErr)
	}
	return res, nil
}

// Parse reads a `go test -json` stream and returns the results of the
// packages matching patterns, in pattern order. onTest, when not nil, is
// called as each top-level test ends.
func Parse(stream io.Reader, patterns []string, onTest func(pkg string, t Test)) (*Result, error) {
	h := &handler{build: map[string]*strings.Builder{}, onTest: onTest}
	execution, err := testjson.ScanTestOutput(testjson.ScanConfig{
		Stdout:                   stream,
		Handler:                  h,
		IgnoreNonJSONOutputLines: true,
	})
	if err != nil {
		return nil, fmt.Errorf("go test: reading its output: %w", err)
	}
	res := collect(execution, patterns, h)
	for _, line := range strings.Split(strings.TrimSpace(h.stray.String()), "\n") {
		if line != "" {
			res.Errors = append(res.Errors, line)
		}
	}
	return res, nil
}

// handler receives test2json events as they arrive: it keeps build output,
// which testjson does not, and reports finished tests for live progress.
type handler struct {
	mu     sync.Mutex
	build  map[string]*strings.Builder // import path → compiler output
	stray  strings.Builder             // non-JSON lines on stdout
	onTest func(pkg string, t Test)
}

func (h *handler) Event(e testjson.TestEvent, _ *testjson.Execution) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case e.Action == testjson.ActionBuild:
		path, _, _ := strings.Cut(e.ImportPath, " ")
		b := h.build[path]
		if b == nil {
			b = &strings.Builder{}
			h.build[path] = b
		}
		b.WriteString(e.Output)
	case h.onTest != nil && e.Test != "" && !strings.Contains(e.Test, "/") && e.Action.IsTerminal():
		h.onTest(e.Package, Test{Name: e.Test, Status: Status(e.Action)})
	}
	return nil
}

func (h *handler) Err(text string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stray.WriteString(text + "\n")
	return nil
}

// allBuildOutput returns the compiler output of every package, by import path.
func (h *handler) allBuildOutput() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var parts []string
	for _, path := range slices.Sorted(maps.Keys(h.build)) {
		parts = append(parts, strings.TrimSpace(h.build[path].String()))
	}
	return strings.Join(parts, "\n")
}

var timedOutRe = regexp.MustCompile(`^\s+(Test\S*) \(`)

// collect builds the result of each requested package from the execution.
func collect(ex *testjson.Execution, patterns []string, h *handler) *Result {
	res := &Result{}
	byPath := map[string]*Package{}
	for _, path := range ex.Packages() {
		pkg := ex.Package(path)
		p := &Package{ImportPath: path}
		if b := h.build[path]; b != nil {
			p.BuildError = strings.TrimSpace(b.String())
		}
		var pkgOut strings.Builder
		_ = pkg.WriteOutputTo(&pkgOut, 0)
		hung := map[string]bool{}
		if out := pkgOut.String(); strings.Contains(out, "panic: test timed out") {
			lines := strings.Split(out, "\n")
			for _, l := range lines {
				if strings.HasPrefix(l, "panic: test timed out") {
					p.TimedOut = strings.TrimPrefix(l, "panic: ")
				}
				if m := timedOutRe.FindStringSubmatch(l); m != nil {
					hung[strings.SplitN(m[1], "/", 2)[0]] = true
				}
			}
		}
		if p.BuildError == "" && (strings.Contains(pkgOut.String(), "[build failed]") || strings.Contains(pkgOut.String(), "[setup failed]")) {
			// The package itself compiled but a dependency did not (the
			// learner's lab, typically): its errors are under that
			// dependency's import path.
			p.BuildError = h.allBuildOutput()
		}
		cases := pkg.TestCases()
		slices.SortStableFunc(cases, func(a, b testjson.TestCase) int { return a.ID - b.ID })
		for _, tc := range cases {
			if tc.Test.IsSubTest() {
				continue
			}
			p.Tests = append(p.Tests, newTest(pkg, tc, cases, hung[tc.Test.Name()]))
		}
		if pkg.Result() == testjson.ActionFail && p.BuildError == "" && p.TimedOut == "" &&
			!slices.ContainsFunc(p.Tests, func(t Test) bool { return t.Status == Fail }) {
			p.Crash = strings.TrimSpace(pkgOut.String())
		}
		byPath[path] = p
	}
	// Build errors of packages that never produced a test event.
	for path, b := range h.build {
		if byPath[path] == nil {
			byPath[path] = &Package{ImportPath: path, BuildError: strings.TrimSpace(b.String())}
		}
	}
	for _, pat := range patterns {
		suffix := "/" + strings.TrimPrefix(pat, "./")
		for path, p := range byPath {
			if strings.HasSuffix(path, suffix) {
				res.Packages = append(res.Packages, p)
			}
		}
	}
	return res
}

func newTest(pkg *testjson.Package, tc testjson.TestCase, all []testjson.TestCase, hung bool) Test {
	t := Test{Name: tc.Test.Name(), Elapsed: tc.Elapsed, Hung: hung}
	switch {
	case slices.ContainsFunc(pkg.Failed, func(c testjson.TestCase) bool { return c.ID == tc.ID }):
		t.Status = Fail
	case slices.ContainsFunc(pkg.Skipped, func(c testjson.TestCase) bool { return c.ID == tc.ID }):
		t.Status = Skip
	default:
		t.Status = Pass
	}
	if t.Status == Pass {
		return t
	}
	lines := pkg.OutputLines(tc)
	for _, sub := range all {
		root, _ := sub.Test.Split()
		if sub.Test.IsSubTest() && root == t.Name && slices.ContainsFunc(pkg.Failed, func(c testjson.TestCase) bool { return c.ID == sub.ID }) {
			lines = append(lines, pkg.OutputLines(sub)...)
		}
	}
	t.Output = clean(lines)
	for _, l := range t.Output {
		if _, msg, ok := strings.Cut(l, NotImplemented); ok {
			t.NotImplemented = msg
			break
		}
	}
	return t
}

var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):)`)

// clean drops go test's framing lines and the common indentation, and
// joins the output into lines.
func clean(chunks []string) []string {
	var out []string
	for _, l := range strings.Split(strings.Join(chunks, ""), "\n") {
		if framing.MatchString(l) || strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	indent := -1
	for _, l := range out {
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := range out {
		out[i] = out[i][max(indent, 0):]
	}
	return out
}
