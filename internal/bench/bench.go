// Package bench is `de bench`: it runs the benchmarks of the stage a
// learner is at (or of every stage they have reached) on their lab/ and on
// the reference in solutions/, in one go test run, and compares each number
// with a baseline measured in the same run.
//
// No benchmark file lives in a stage folder or in lab/. The bodies are in
// package stagebench, compiled and vetted with the course; Run adds to
// package lab and to package solutions, with go test -overlay, a small file
// per stage (adapters.go) that hands stagebench the package's own stage
// functions. So nothing a learner owns is touched, and a stage's file uses
// only the API of the stages up to it.
//
// The table (table.go) lists the benchmarks and the comparisons between
// them; Parse reads go test's output into Measurements, and Report prints
// every comparison whose samples the run produced.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/flk-byo/course/internal/gotest"
)

// Options says what to run and how.
type Options struct {
	Root string // the course root (lab/ and solutions/ are under it)
	// Stage is the last stage reached. The benchmarks of the last stage up
	// to it that has any run: its own, or, at a stage without benchmarks
	// (02, say), those of the latest stage before it.
	Stage int
	// All runs the benchmarks of every stage up to Stage instead (de bench
	// --all): the whole picture, at the cost of a run several times longer.
	All       bool
	Count     int    // go test -count; ≥ 1
	Benchtime string // go test -benchtime; "" for go's default
	// Full selects the full run's benchmarks (de bench --full), whose
	// states are larger, in place of the quick default's (Benchmark.In).
	Full bool
	// Progress, if not nil, gets a line when the run starts building and
	// one as each benchmark finishes, with the time since the start, so
	// that a run of a minute or more is not a silent one.
	Progress io.Writer
}

// The two packages a run measures, by import path.
const (
	LabPkg = "github.com/flk-byo/course/lab"
	RefPkg = "github.com/flk-byo/course/solutions"
)

// BinDir is where, under the course root, a run keeps the test binaries it
// builds, lab.test and solutions.test. go test links a test binary for
// every run that is not a cached test result, which a benchmark run never
// is; with -o into a folder that outlives the run, it links again only
// what changed (a lab/ edited since the last run, or another last stage,
// whose benchmark files differ), and otherwise finds the binary up
// to date: about 4–5 s of every run saved on a 2-core machine.
// They are de's build outputs, not a learner's work (*.test is ignored).
// Two runs at once in one course would write them both, and each would
// time its benchmarks beside the other's, so a run holds BinDir's lock.
const BinDir = ".de/bench"

// ErrBusy is Run's error when another run holds the course's BinDir.
var ErrBusy = errors.New("another de bench is running in this course: wait for it to finish, then run again")

// lockBins takes the lock of the folder bins for the run, or returns
// ErrBusy if another run holds it. The lock is the operating system's on
// an open file (flock), so a run that is killed leaves none behind.
func lockBins(bins string) (unlock func(), err error) {
	l := flock.New(filepath.Join(bins, "lock"))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", bins, err)
	}
	if !ok {
		return nil, ErrBusy
	}
	return func() { l.Unlock() }, nil
}

// RefTags are the build tags of the run: the reference's tuned build. The
// same go test run builds lab/, which the tag does not concern.
const RefTags = "fast"

// WorkError is a failure of the code being measured: the lab does not
// compile, a benchmark failed or panicked, the test binary crashed. Every
// other error of Run means the benchmarks could not run at all.
type WorkError struct{ msg string }

func (e *WorkError) Error() string { return e.msg }

// workErrorf returns a WorkError with a formatted message.
func workErrorf(format string, args ...any) error {
	return &WorkError{msg: fmt.Sprintf(format, args...)}
}

// Run builds the test binaries of lab/ and solutions/ (prebuild), runs
// the benchmarks of o.Selected() on them in one go test run (the packages
// one after the other, -p 1) and returns what it measured. When the lab
// fails (a *WorkError), Run returns the error and whatever was measured
// before the failure, which may be nothing.
func Run(ctx context.Context, o Options) (*Measurements, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stages := o.Selected()
	scratch, err := os.MkdirTemp("", "de-bench-")
	if err != nil {
		return nil, fmt.Errorf("making a scratch folder: %w", err)
	}
	defer os.RemoveAll(scratch)
	// Every stage's file up to o.Stage, whichever run: the later files use
	// what stage 01's holds, and one test binary serves de bench and de
	// bench --all at a stage, so switching between them links nothing.
	overlay, err := writeOverlay(scratch, o.Root, Stages(o.Stage))
	if err != nil {
		return nil, err
	}

	bins := filepath.Join(o.Root, BinDir)
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return nil, fmt.Errorf("making the folder for the test binaries: %w", err)
	}
	unlock, err := lockBins(bins)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// -trimpath and -vet=off as de test runs go test (gotest.Options.Args):
	// so the packages both build (Pebble, the kit) come from one build
	// cache entry, and a first de bench after de test does not compile them
	// again; vetting the lab is not what a benchmark run is for.
	// -ldflags=-s -w: no symbol table and no DWARF, which nothing here
	// reads (a panic's trace comes from the function table, which stays),
	// and which were most of the time of linking the lab's test binary
	// again after an edit: at stage 12, Pebble inside, 6.6 s → 1.2 s to the
	// first result on a 2-core machine. -o: BinDir.
	build := []string{"-trimpath", "-vet=off", "-ldflags=-s -w", "-tags", RefTags, "-overlay", overlay,
		"-o", bins + string(filepath.Separator)}
	pkgs := []string{"./lab", "./solutions"}
	start := time.Now()
	if o.Progress != nil {
		fmt.Fprintln(o.Progress, "  building the benchmarks of lab/ and of the reference (what changed since the last run)…")
	}
	if err := prebuild(ctx, o.Root, build, pkgs); err != nil {
		return nil, err
	}
	args := append([]string{"test", "-p", "1"}, build...)
	args = append(args, "-run", "^$", "-bench", benchPattern(stages, o.Full), "-benchmem", "-count", strconv.Itoa(o.Count))
	if o.Benchtime != "" {
		args = append(args, "-benchtime", o.Benchtime)
	}
	args = append(args, pkgs...)
	cmd, err := gotest.Command(ctx, gotest.Options{Dir: o.Root}, args)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if o.Progress != nil {
		// One writer for both, so that go test's two streams stay in one
		// order (exec shares a pipe between equal writers).
		w := io.MultiWriter(&out, &progress{w: o.Progress, total: 2 * o.Count * len(benchmarksOf(stages, o.Full)), start: start})
		cmd.Stdout, cmd.Stderr = w, w
	}
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	m := Parse(bytes.NewReader(out.Bytes()))
	m.Stages, m.Full = stages, o.Full
	return m, check(m, out.String(), runErr)
}

// prebuild builds the test binaries of pkgs into BinDir (go test -c with
// the run's build flags), the packages side by side, so that the run that
// times them finds them up to date. That run's -p 1, which keeps one
// package's benchmarks from running beside the other's, would also build
// them one action after another. It matters when both binaries are out of
// date (a course's first run at a stage, a run after --stage): at stage 12
// on a 2-core machine, compiling and linking both took 5.9 s one after
// another and about 4.6 s side by side (the compiler already uses both
// cores), and a run 0.6–1.4 s less. A run whose binaries are up to date
// pays about 0.2 s for it. What does not build is left to that run to
// report, with the lab's errors (check): prebuild returns an error only
// when it was cancelled or go could not be run.
func prebuild(ctx context.Context, root string, build, pkgs []string) error {
	args := append(append([]string{"test", "-c"}, build...), pkgs...)
	cmd, err := gotest.Command(ctx, gotest.Options{Dir: root}, args)
	if err != nil {
		return err
	}
	err = cmd.Run() // its output: the run's go test prints the same errors
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, exec.ErrNotFound) {
		return gotest.ErrNoGo
	}
	return nil
}

// Validate returns an error if o asks for no runs or for no stage with
// benchmarks.
func (o Options) Validate() error {
	if o.Count < 1 {
		return fmt.Errorf("-count must be at least 1, got %d", o.Count)
	}
	if len(Stages(o.Stage)) == 0 {
		return fmt.Errorf("stage %02d has no benchmarks: the first are stage %02d's", o.Stage, Benchmarks[0].Stage)
	}
	return nil
}

// Selected returns the stages whose benchmarks o runs, in order: every
// stage up to o.Stage that has benchmarks with o.All, else the last of them.
func (o Options) Selected() []int {
	stages := Stages(o.Stage)
	if o.All || len(stages) == 0 {
		return stages
	}
	return stages[len(stages)-1:]
}

// Scope says, under the first line of a run, what o leaves out: the
// stage asked for when it has no benchmarks of its own, and the earlier
// stages that --all would add. "" when the run has every stage up to o's.
func (o Options) Scope() string {
	run, every := o.Selected(), Stages(o.Stage)
	if len(run) == 0 {
		return ""
	}
	var parts []string
	if last := run[len(run)-1]; last != o.Stage {
		none := fmt.Sprintf("stage %02d has no benchmarks of its own", o.Stage)
		if !o.All {
			none += fmt.Sprintf(": these are stage %02d's", last)
		}
		parts = append(parts, none)
	}
	if rest := every[:len(every)-len(run)]; len(rest) > 0 {
		parts = append(parts, "de bench --all adds stage(s) "+StageList(rest))
	}
	return strings.Join(parts, "; ")
}

// StageList renders stage numbers as de prints them: 01, 03, 04.
func StageList(stages []int) string {
	s := make([]string, len(stages))
	for i, n := range stages {
		s[i] = fmt.Sprintf("%02d", n)
	}
	return strings.Join(s, ", ")
}

// Stages returns the stages up to last that have benchmarks, in order.
func Stages(last int) []int {
	var stages []int
	for _, b := range Benchmarks {
		if b.Stage <= last && (len(stages) == 0 || stages[len(stages)-1] != b.Stage) {
			stages = append(stages, b.Stage)
		}
	}
	return stages
}

// benchmarksOf returns the benchmarks of the table that stages have in the
// full run (full) or in the quick one.
func benchmarksOf(stages []int, full bool) []Benchmark {
	var bs []Benchmark
	for _, b := range Benchmarks {
		if slices.Contains(stages, b.Stage) && b.In(full) {
			bs = append(bs, b)
		}
	}
	return bs
}

// progress is the writer of Options.Progress: it reads go test's output
// as it comes and writes a line for each benchmark result in it.
type progress struct {
	w     io.Writer
	total int    // the results the run will print, if every benchmark runs
	done  int    // the results printed so far
	pkg   string // the package of the results now printed
	// pending is a benchmark whose name was printed but not yet its
	// numbers: the code under test printed in between (see Parse).
	pending string
	line    []byte    // the part of a line received so far
	start   time.Time // when the run started
}

// Write takes what go test printed and reports each full line.
func (p *progress) Write(b []byte) (int, error) {
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.see(string(p.line[:i]))
		p.line = p.line[i+1:]
	}
}

// see reports line if it is a benchmark's result, and notes the package
// if it is go test's "pkg:" header.
func (p *progress) see(line string) {
	if pkg, ok := strings.CutPrefix(line, "pkg: "); ok {
		p.pkg, p.pending = strings.TrimSpace(pkg), ""
		return
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return
	}
	if name, ok := benchmarkName(f[0]); ok {
		p.pending, f = name, f[1:]
	}
	if _, ok := parseSample(f); !ok || p.pending == "" {
		return
	}
	name := p.pending
	p.pending = ""
	p.done++
	side := "reference"
	if p.pkg == LabPkg {
		side = "lab/"
	}
	fmt.Fprintf(p.w, "  [%d/%d] %s %s (%s)\n", p.done, p.total, side, name, time.Since(p.start).Round(100*time.Millisecond))
}

// benchPattern is the -bench pattern that selects the benchmark functions
// of stages and, under them, the sub-benchmarks of the full run (full) or
// of the quick one: ^(BenchmarkDe01|BenchmarkDe03)$/^(throughput|…)$.
func benchPattern(stages []int, full bool) string {
	tops := make([]string, len(stages))
	for i, s := range stages {
		tops[i] = TopLevel(s)
	}
	var subs []string
	for _, b := range benchmarksOf(stages, full) {
		if sub := regexp.QuoteMeta(b.Name); !slices.Contains(subs, sub) {
			subs = append(subs, sub)
		}
	}
	return "^(" + strings.Join(tops, "|") + ")$/^(" + strings.Join(subs, "|") + ")$"
}

// writeOverlay writes, into scratch, each stage's adapter for package lab
// and for package solutions, and the go test -overlay file that adds them
// to both packages, and returns the overlay file's path.
func writeOverlay(scratch, root string, stages []int) (string, error) {
	replace := map[string]string{}
	for _, pkg := range []string{"lab", "solutions"} {
		for _, s := range stages {
			name := fmt.Sprintf("zz_debench%02d_test.go", s)
			src := filepath.Join(scratch, pkg+"_"+name)
			if err := os.WriteFile(src, []byte(adapter(pkg, s)), 0o644); err != nil {
				return "", fmt.Errorf("writing the benchmark file: %w", err)
			}
			replace[filepath.Join(root, pkg, name)] = src
		}
	}
	return gotest.WriteOverlay(scratch, replace)
}

// check returns the error of a go test run that printed out and ended with
// runErr: nil if it ran every benchmark, a *WorkError if the lab or a
// benchmark failed, another error if go test could not run.
func check(m *Measurements, out string, runErr error) error {
	if strings.Contains(out, LabPkg+" [build failed]") || strings.Contains(out, LabPkg+" [setup failed]") {
		return workErrorf("your lab/ does not compile: %s", firstLine(out, func(l string) bool {
			return strings.HasPrefix(l, "lab/") || strings.Contains(l, "/lab/")
		}))
	}
	if len(m.Failures) > 0 {
		return m.Failures[0].explain()
	}
	if l := firstLine(out, isCrash); l != "" {
		return workErrorf("the benchmarks crashed: %s", l)
	}
	if runErr != nil {
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			if errors.Is(runErr, exec.ErrNotFound) {
				return gotest.ErrNoGo
			}
			return fmt.Errorf("could not run go test: %w", runErr)
		}
		if strings.Contains(out, RefPkg+" [build failed]") {
			return fmt.Errorf("the reference in solutions/ does not compile: %s", firstLine(out, func(l string) bool {
				return strings.HasPrefix(l, "solutions/")
			}))
		}
		if l := firstLine(out, func(l string) bool { return strings.HasPrefix(l, "FAIL") || strings.Contains(l, "error") }); l != "" {
			return fmt.Errorf("go test -bench failed: %s", l)
		}
		return fmt.Errorf("go test -bench failed: %w", runErr)
	}
	for _, pkg := range []string{LabPkg, RefPkg} {
		if !m.ran(pkg) {
			return fmt.Errorf("go test printed no benchmark result for %s", pkg)
		}
	}
	return nil
}

// isCrash reports whether l is the first line of a crashed test binary: a
// panic outside a benchmark's goroutine, a fatal runtime error, a timeout.
func isCrash(l string) bool {
	return strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")
}

// firstLine returns the first line of out, trimmed, for which pred holds,
// or "".
func firstLine(out string, pred func(string) bool) string {
	for line := range strings.Lines(out) {
		if l := strings.TrimSpace(line); pred(l) {
			return l
		}
	}
	return ""
}
