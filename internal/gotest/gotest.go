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
	"cmp"
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

	"github.com/flk-byo/course/internal/verdict"
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
	Skip     string        // -skip pattern; empty skips nothing
	Overlay  string        // -overlay file: files to replace or add for the build (a mutant, de bench's benchmarks)
	Exec     string        // -exec program: runs each test binary (internal/sandbox's launcher); empty runs them directly
	Race     bool          // build with the race detector
	Timeout  time.Duration // per test binary, i.e. per stage; 0 means go test's default
	// TestTimeout, when set, is how long one top-level test may run (since
	// it started or last continued). A test past it is stopped, its binary
	// made to print its goroutines (SIGQUIT), and reported hung
	// (Test.Stopped) with where its code was, long before Timeout would
	// say so. Where the test binary cannot be found (not Linux) only
	// Timeout applies.
	TestTimeout time.Duration
	Count       int // -count; 0 leaves go test's default (and its result cache) alone
	// Verdicts runs go test with a verdict channel (internal/verdict): each
	// suite's test binary reports there, apart from its output, which of
	// its tests passed, and a test is Confirmed only when that report, the
	// binary's exit and its output agree. It implies -count=1: a cached
	// result is a replay of output, with no report. Where the channel
	// cannot be made (Windows), Run fails with verdict.ErrUnsupported.
	Verdicts bool
	Env      []string // extra environment, KEY=VALUE
	// Background runs go test, and everything it starts, at a lower CPU
	// priority (nice 10, on Unix): beside another run it takes mostly the
	// cores that one leaves idle (not all of the cost: two vCPUs that are
	// hyperthreads of one core still share it). de test runs the earlier
	// stages so, beside the current stage's test binary.
	Background bool

	// OnTest, when set, is called as each top-level test ends, for live progress.
	OnTest func(pkg string, t Test)
	// OnStart, when set, is called as each package's test binary starts to
	// run: its build is over.
	OnStart func(pkg string)
	// OnSlow, when set, is called once for each test that has run half of
	// TestTimeout, and OnStop as a test is stopped as hung: so that a
	// learner hears which test is stuck while it runs, not after.
	OnSlow func(pkg, test string, ran time.Duration)
	OnStop func(pkg, test string, limit time.Duration)
	// HaltOnRepeatedHang makes RunPastCrashes leave a stage's other tests
	// unrun once two of them hung in the same function of the learner's
	// (Package.Halted): for a learner, who has the place to fix, rather
	// than one more --test-timeout per test that reaches it. A grade runs
	// every test it can.
	HaltOnRepeatedHang bool
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
	// Crashed is set when the test binary died while the test ran (a panic
	// in another goroutine, os.Exit, a fatal runtime error such as a stack
	// overflow, running out of memory): the test never reported a result,
	// and the tests after it never ran.
	Crashed bool
	// Stopped is set for a hung test stopped by Options.TestTimeout.
	Stopped bool
	// Trace is, for a crashed or hung test, the panic or fatal error and the
	// stack frames of the learner's code (lab/) from the dump the binary
	// printed: where the code was when it died or hung.
	Trace []string
	// Confirmed is set, in a run with Options.Verdicts, for a test that
	// passed by its output and by the report its suite sent on the verdict
	// channel, in a run of its binary that ended as that report said, with
	// one start and one result in its output and nothing after the
	// binary's last line. Only a confirmed pass is credited.
	Confirmed bool
	// Unconfirmed says, for a test whose output says it passed but that is
	// not Confirmed, why not.
	Unconfirmed string
	// Unsupported is set, in a run with Options.Verdicts, for a skipped
	// test whose suite reported that this system cannot run it
	// (suite.SkipUnsupported), in a whole run: a grade leaves it out here.
	Unsupported bool
	// cut is set for an unconfirmed pass whose binary ended before its
	// report: RunPastCrashes runs it again, for a run that ends.
	cut bool
}

// Package is the result of one test package (one stage).
type Package struct {
	ImportPath string
	Tests      []Test // in the order they started
	BuildError string // compile errors; when set, no test ran
	TimedOut   string // go test's timeout message, when the binary timed out
	Crash      string // package output when it failed for a reason no test shows
	// Halted says why the tests not yet run were left so: a second test
	// hung where an earlier one did, and the rest would too (RunPastCrashes).
	Halted string

	passed bool // go test's verdict on the package: its binary exited 0
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

// RaceSupported reports whether go test -race can build in dir: the race
// detector needs cgo, and the go command turns cgo off where it finds no C
// compiler (or CGO_ENABLED=0 says so). It asks `go env CGO_ENABLED`, with
// env added to the environment.
func RaceSupported(dir string, env []string) (bool, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return false, ErrNoGo
	}
	cmd := exec.Command(goBin, "env", "CGO_ENABLED")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return false, fmt.Errorf("go env CGO_ENABLED: %w", err)
	}
	return strings.TrimSpace(string(out)) == "1", nil
}

// ErrInterrupted is returned (wrapped) when the context of a run was
// cancelled: Ctrl-C, or a signal to de.
var ErrInterrupted = errors.New("interrupted")

// ErrNoGo is returned when the go command is not on PATH.
var ErrNoGo = errors.New("go is not on PATH: de runs `go test`; install Go 1.26 or later from https://go.dev/dl and try again")

// Args returns the go command line Run uses, without "go" itself.
func (o Options) Args() []string {
	// -trimpath keeps the build independent of where the course sits, so
	// copies of it (scratch checks, a second clone) share the build cache.
	// -vet=off: go test vets only the packages it tests, the stages'
	// suites, which are the course's code and vetted in its CI; the
	// learner's lab/ is a dependency, which it never reports on. Vetting
	// would cost every run a vet of the suite and of lab/ for nothing.
	args := []string{"test", "-json", "-trimpath", "-vet=off", "-tags", o.Tags}
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
	if o.Skip != "" {
		args = append(args, "-skip", o.Skip)
	}
	if o.Overlay != "" {
		args = append(args, "-overlay", o.Overlay)
	}
	if o.Exec != "" {
		args = append(args, "-exec", o.Exec)
	}
	return append(args, o.Packages...)
}

// Command returns the go command that runs go test with args (Args gives
// Run's; de bench adds its benchmark flags), in o.Dir, with o.Env, in a
// process group of its own that cancelling ctx kills whole: every go test
// the course runs starts here.
func Command(ctx context.Context, o Options, args []string) (*exec.Cmd, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, ErrNoGo
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	ownGroup(cmd)
	cmd.Dir = o.Dir
	cmd.Env = os.Environ()
	if os.Getenv("GORACE") == "" {
		// The race detector sleeps a second at exit by default, waiting for
		// stray goroutines to report; suites join their goroutines, so skip it.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.Env = append(cmd.Env, o.Env...)
	return cmd, nil
}

// Run runs go test and collects the results. It returns an error only when
// go could not be run at all; failing and non-compiling stages are results.
func Run(ctx context.Context, o Options) (*Result, error) {
	var ch *verdict.Channel
	if o.Verdicts {
		if o.Count == 0 {
			o.Count = 1
		}
		var err error
		if ch, err = verdict.New(); err != nil {
			return nil, err
		}
	}
	cmd, err := Command(ctx, o, o.Args())
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("go test: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if ch != nil {
		cmd.ExtraFiles = []*os.File{ch.File()}
		cmd.Env = append(cmd.Env, ch.Env())
	}
	startErr := cmd.Start()
	if ch != nil {
		ch.Listen() // the command holds its end now (or never will)
	}
	if startErr != nil {
		if ch != nil {
			ch.Close()
		}
		return nil, fmt.Errorf("go test: %w", startErr)
	}
	if o.Background {
		// Best effort: at worst the run competes as an equal.
		_ = lowerPriority(cmd.Process.Pid)
	}
	h := newHandler(o.OnTest)
	h.onStart, h.onSlow, h.onStop = o.OnStart, o.OnSlow, o.OnStop
	if o.TestTimeout > 0 {
		stop := make(chan struct{})
		defer close(stop)
		go h.watch(cmd.Process.Pid, o.TestTimeout, stop)
	}
	res, scanErr := parseWith(stdout, o.Packages, h)
	waitErr := cmd.Wait()
	reapGroup(cmd)
	var records []verdict.Record
	var badRecords []error
	if ch != nil {
		records, badRecords = ch.Close()
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: the test run was stopped before it finished, and every process it started with it", ErrInterrupted)
	}
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
	if ch != nil {
		confirm(res, h, records, badRecords)
	}
	return res, nil
}

// RunPastCrashes is Run, and then, for every package whose test binary died
// in a test (Test.Crashed) before the rest of expected(pattern) ran, runs
// those tests again without the ones that crashed (-run and -skip), as
// often as it takes (each run reports at least the next test), and adds
// what they report: a learner sees every test of the
// stage, not only the ones before the crash. A crashed test stays as it
// was, crash and all. onRerun, when set, is told of each rerun.
func RunPastCrashes(ctx context.Context, o Options, expected func(pattern string) []string, onRerun func(pkg string, crashed []string)) (*Result, error) {
	res, err := Run(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, pattern := range o.Packages {
		pkg := res.Package(pattern)
		want := expected(pattern)
		for range len(want) {
			if pkg == nil || pkg.BuildError != "" {
				break
			}
			var missing, crashed []string
			for _, name := range want {
				if !slices.ContainsFunc(pkg.Tests, func(t Test) bool { return t.Name == name }) {
					missing = append(missing, name)
				}
			}
			if n := len(pkg.Tests); len(missing) > 0 && n > 0 && pkg.TimedOut == "" && pkg.Tests[n-1].Status == Fail &&
				!slices.ContainsFunc(pkg.Tests, func(t Test) bool { return t.Crashed || t.Stopped }) {
				// The binary ended right after a failed test, with tests
				// still to run: a panic in the test's own goroutine, which
				// the testing package reports as a failure before it dies.
				pkg.Tests[n-1].Crashed = true
				pkg.Tests[n-1].Trace = LabTrace(pkg.Tests[n-1].Output)
			}
			for _, t := range pkg.Tests {
				if t.Crashed || t.Stopped {
					crashed = append(crashed, t.Name)
				}
			}
			if len(missing) == 0 || len(crashed) == 0 {
				break // done, or not a crash: a timeout, or an end go test explains
			}
			if o.HaltOnRepeatedHang {
				if pkg.Halted = repeatedHang(pkg.Tests, len(missing)); pkg.Halted != "" {
					break // the rest would hang there too, each for the whole limit
				}
			}
			if onRerun != nil {
				onRerun(pkg.ImportPath, crashed)
			}
			again := o
			again.Packages = []string{pattern}
			again.Run = "^(" + strings.Join(missing, "|") + ")$"
			again.Skip = "^(" + strings.Join(crashed, "|") + ")$"
			more, err := Run(ctx, again)
			if err != nil {
				return nil, err
			}
			m := more.Package(pattern)
			if m == nil || len(m.Tests) == 0 {
				break
			}
			pkg.Tests = append(pkg.Tests, m.Tests...)
			pkg.TimedOut = cmp.Or(pkg.TimedOut, m.TimedOut)
		}
		if o.Verdicts && pkg != nil {
			if err := confirmPastCrashes(ctx, o, pattern, pkg, len(want)); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// repeatedHang says, when two of tests hung with the same function of the
// learner's at the top of their trace, that the left tests of the stage
// were not run: they would most likely hang there too, each for a whole
// --test-timeout, and the learner has the place to fix. "" otherwise.
func repeatedHang(tests []Test, left int) string {
	first := map[string]string{} // top lab function → the first test that hung there
	for _, t := range tests {
		if !t.Stopped && !t.Hung {
			continue
		}
		fn := topLabFrame(t.Trace)
		if fn == "" {
			continue
		}
		if earlier, ok := first[fn]; ok {
			return fmt.Sprintf("%s hung where %s did, in %s: the stage's other %d tests were not run, since they would most likely hang there too; fix that hang, then run them again",
				t.Name, earlier, fn, left)
		}
		first[fn] = t.Name
	}
	return ""
}

// topLabFrame returns the function of the first frame of the learner's
// code in a trace LabTrace made ("lab.(*Sink).Commit"), or "".
func topLabFrame(trace []string) string {
	for _, l := range trace {
		if strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "        ") {
			fn := strings.TrimSpace(l)
			if i := strings.LastIndex(fn, "("); i > 0 && strings.HasSuffix(fn, ")") {
				fn = fn[:i] // the call's arguments: "lab.f(0x1, …)"
			}
			if i := strings.LastIndex(fn, "/"); i >= 0 {
				fn = fn[i+1:]
			}
			return fn
		}
	}
	return ""
}

// confirmPastCrashes runs again, with Options.Verdicts, the passed tests of
// pkg that a crash, an exit or a hang left unconfirmed (their binary ended
// before its report, Test.cut), without the tests that crashed or hung,
// until a run that ends confirms them or no run makes progress, at most
// tries times: a run that does not end credits nothing, but the tests
// that passed before a crash should not lose their credit to it. Each
// rerun's own results are not added; a test's feedback stays its first
// run's.
func confirmPastCrashes(ctx context.Context, o Options, pattern string, pkg *Package, tries int) error {
	var excluded []string
	for _, t := range pkg.Tests {
		if t.Crashed || t.Stopped || t.Hung {
			excluded = append(excluded, t.Name)
		}
	}
	for range tries {
		var pending []string
		for _, t := range pkg.Tests {
			if t.cut && !t.Confirmed && !slices.Contains(excluded, t.Name) {
				pending = append(pending, t.Name)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		again := o
		again.Packages = []string{pattern}
		again.Run = "^(" + strings.Join(pending, "|") + ")$"
		again.Skip = ""
		if len(excluded) > 0 {
			again.Skip = "^(" + strings.Join(excluded, "|") + ")$"
		}
		more, err := Run(ctx, again)
		if err != nil {
			return err
		}
		m := more.Package(pattern)
		if m == nil {
			return nil
		}
		progress := false
		for _, rt := range m.Tests {
			i := slices.IndexFunc(pkg.Tests, func(t Test) bool { return t.Name == rt.Name })
			switch {
			case i < 0:
			case rt.Crashed || rt.Stopped || rt.Hung:
				excluded = append(excluded, rt.Name)
				progress = true
			case rt.Confirmed && pkg.Tests[i].Status == Pass:
				pkg.Tests[i].Confirmed, pkg.Tests[i].Unconfirmed, pkg.Tests[i].cut = true, "", false
				progress = true
			}
		}
		if !progress {
			return nil
		}
	}
	return nil
}

// actionStart is the event go test -json sends as a package's test binary
// starts (testjson has no name for it).
const actionStart testjson.Action = "start"

// Parse reads a `go test -json` stream and returns the results of the
// packages matching patterns, in pattern order. onTest, when not nil, is
// called as each top-level test ends.
func Parse(stream io.Reader, patterns []string, onTest func(pkg string, t Test)) (*Result, error) {
	return parseWith(stream, patterns, newHandler(onTest))
}

func parseWith(stream io.Reader, patterns []string, h *handler) (*Result, error) {
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
	mu      sync.Mutex
	build   map[string]*strings.Builder // import path → compiler output
	stray   strings.Builder             // non-JSON lines on stdout
	onTest  func(pkg string, t Test)
	onStart func(pkg string)

	// For Options.TestTimeout: since when each running top-level test has
	// run (by package, then test), the test stopped in each package, and
	// the tests OnSlow was told of.
	running map[string]map[string]time.Time
	stopped map[string]stoppedTest
	slow    map[string]bool // package + " " + test
	onSlow  func(pkg, test string, ran time.Duration)
	onStop  func(pkg, test string, limit time.Duration)

	// For Options.Verdicts: how often each top-level test started and
	// ended in each package's output, how many final lines ("PASS",
	// "FAIL") each package's binary printed, and the first line it printed
	// after its final one.
	starts, ends map[string]map[string]int
	finals       map[string]int
	afterFinal   map[string]string
}

// stoppedTest is a test stopped by the per-test limit.
type stoppedTest struct {
	name  string
	limit time.Duration
}

func newHandler(onTest func(pkg string, t Test)) *handler {
	return &handler{build: map[string]*strings.Builder{}, onTest: onTest,
		running: map[string]map[string]time.Time{}, stopped: map[string]stoppedTest{}, slow: map[string]bool{},
		starts: map[string]map[string]int{}, ends: map[string]map[string]int{},
		finals: map[string]int{}, afterFinal: map[string]string{}}
}

// watch stops, every time a top-level test has run longer than limit, the
// test binary of its package (SIGQUIT: it prints every goroutine's stack
// and exits), until stop is closed. The go command's process group is
// pgid.
func (h *handler) watch(pgid int, limit time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(limit / 20)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			h.mu.Lock()
			for pkg, tests := range h.running {
				if _, done := h.stopped[pkg]; done {
					continue
				}
				for name, since := range tests {
					ran := now.Sub(since)
					if ran > limit/2 && !h.slow[pkg+" "+name] && h.onSlow != nil {
						h.slow[pkg+" "+name] = true
						h.onSlow(pkg, name, ran)
					}
					if ran > limit && quitTestBinary(pgid, pkg) {
						h.stopped[pkg] = stoppedTest{name: name, limit: limit}
						if h.onStop != nil {
							h.onStop(pkg, name, limit)
						}
						break
					}
				}
			}
			h.mu.Unlock()
		}
	}
}

func (h *handler) Event(e testjson.TestEvent, _ *testjson.Execution) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count(e)
	if e.Test != "" && !strings.Contains(e.Test, "/") {
		if h.running[e.Package] == nil {
			h.running[e.Package] = map[string]time.Time{}
		}
		switch {
		case e.Action == testjson.ActionRun || e.Action == testjson.ActionCont:
			h.running[e.Package][e.Test] = time.Now()
		case e.Action == testjson.ActionPause || e.Action.IsTerminal():
			delete(h.running[e.Package], e.Test)
		}
	}
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
	case h.onStart != nil && e.Test == "" && e.Action == actionStart:
		h.onStart(e.Package)
	}
	return nil
}

// count keeps what confirm checks of the output: each top-level test's
// starts and ends, and what a package's binary printed at and after its
// final line. Go's own summary line ("ok  \tpkg\t0.1s", "FAIL\tpkg\t…")
// comes after the final line and is not the binary's.
func (h *handler) count(e testjson.TestEvent) {
	switch {
	case e.Test != "" && !strings.Contains(e.Test, "/"):
		var m map[string]map[string]int
		switch {
		case e.Action == testjson.ActionRun:
			m = h.starts
		case e.Action.IsTerminal():
			m = h.ends
		default:
			return
		}
		if m[e.Package] == nil {
			m[e.Package] = map[string]int{}
		}
		m[e.Package][e.Test]++
	case e.Test == "" && e.Action == testjson.ActionOutput:
		switch out := e.Output; {
		case out == "PASS\n" || out == "FAIL\n":
			h.finals[e.Package]++
		case h.finals[e.Package] > 0 && h.afterFinal[e.Package] == "" &&
			!strings.HasPrefix(out, "ok  \t") && !strings.HasPrefix(out, "FAIL\t"):
			h.afterFinal[e.Package] = strings.TrimSpace(out)
		}
	}
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
			st, stopped := h.stopped[path]
			stopped = stopped && st.name == tc.Test.Name()
			t := newTest(pkg, tc, cases, hung[tc.Test.Name()] || stopped)
			if stopped {
				t.Stopped, t.Crashed = true, false
				p.TimedOut = fmt.Sprintf("ran longer than the %v a test may take (--test-timeout) and was stopped", st.limit)
			}
			if t.Hung && len(t.Trace) == 0 {
				// The timeout's goroutine dump is the package's output.
				t.Trace = LabTrace(strings.Split(pkgOut.String(), "\n"))
			}
			p.Tests = append(p.Tests, t)
		}
		p.passed = pkg.Result() == testjson.ActionPass
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
	// testjson gives a test that never ended (its binary died first) the
	// elapsed time -1 when the package ends.
	t.Crashed = tc.Elapsed < 0 && !hung
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
	if t.Crashed || t.Hung {
		t.Trace = LabTrace(t.Output)
	}
	return t
}

// labFrames is how many frames of the learner's code LabTrace keeps.
const labFrames = 8

// LabTrace picks out of a crash or timeout dump what a learner needs: the
// "panic:" or "fatal error:" lines, and the stack frames (a function line
// and its file line) whose file is in lab/, at most 8, each goroutine's
// first frame in lab/ first. It returns nil when the dump has neither.
func LabTrace(lines []string) []string {
	var head, frames []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "panic: "), strings.HasPrefix(t, "fatal error: "), strings.HasPrefix(t, "SIGQUIT: quit"):
			if len(head) < 3 {
				head = append(head, t)
			}
		case i > 0 && strings.Contains(t, "/lab/") && strings.Contains(t, ".go:") && len(frames) < 2*labFrames:
			fn := strings.TrimSpace(lines[i-1])
			file := t
			if j := strings.LastIndex(file, " +0x"); j > 0 {
				file = file[:j]
			}
			frames = append(frames, "    "+fn, "        "+file)
		}
	}
	if len(head) == 0 && len(frames) == 0 {
		return nil
	}
	if len(frames) > 0 {
		head = append(head, "where your code was (lab/):")
	}
	return append(head, frames...)
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
