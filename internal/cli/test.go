package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/term"
	"github.com/flk-byo/course/internal/testreport"
	"github.com/flk-byo/course/internal/verdict"
)

func testCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "test",
		Usage: "run stages 01..current against your lab/ (current first); exit 0 only when all pass",
		Description: `Runs the suites of stages 01..current against your lab/: the current stage first,
its verdict printed as soon as it is in, then the earlier ones, for regressions, which
start in the background (at a lower CPU priority) once the current stage's tests run.

Each test is shown with the one line it certifies; each failure with its message and
the one go test command that re-runs it alone (go test -tags lab -run '^TestName$'
./stages/NN-slug). The first failure is shown in full, the others on a line each
(--verbose: all in full). A failing event-time test also draws its run as a page (event
time across, arrivals down: the events, windows, watermark, firings, and what was wanted
beside what came back) and links it beside the text timeline; the pages of a run are in
.de/pictures/, and a page is drawn only under de test, which reads each processor's
Watermark() after every call to draw it.

A test that reaches a skeleton's panic("TODO …") says "not implemented yet"; a test that
crashes the test binary (a panic in a goroutine, os.Exit, a stack overflow) is named with
the cause and where your code was, and the stage's other tests still run; a test that
hangs is stopped after --test-timeout (Linux) and named, with where your code was, and the
others run without it (elsewhere, when the stage's --timeout runs out). A test that hangs
twice in the same place ends the run.

A current stage whose lesson is concurrency (02, 06) answers first without the race
detector, then runs again with it; a test only the race detector fails still fails the
run. --race-all runs every stage with it, as de grade does.

Ends with a summary such as "stage 2 of 8 — 19/41 passed" (an extension stage counts to
the last extension: "stage 9 of 12"). Exit status: 0 when everything passed, 1 when a
test failed, 2 when it could not run. Ctrl-C stops the run and everything it started.

With --solution, or LAB_MODULE=solution in the environment, the same stages run against
the reference solution instead: what passing looks like; it never counts as your pass.`,
		Flags: append([]ucli.Flag{
			&ucli.BoolFlag{Name: "solution", Usage: "test the reference solution instead of lab/"},
			&ucli.StringFlag{Name: "stage", Usage: "test stages 01..`NN` instead of 01..current"},
			verboseFlag,
		}, slices.Concat(timeoutFlags(60*time.Second, 20*time.Second), raceFlags())...),
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			e.verbose = c.Bool("verbose")
			return e.test(c.Context, testOptions{
				solution: c.Bool("solution"),
				stage:    c.String("stage"),
				timeout:  c.Duration("timeout"),
				testTime: c.Duration("test-timeout"),
				race:     raceMode(c),
				reruns:   true,
			})
		},
	}
}

// verboseFlag is --verbose, shared by de test, de watch and de drill test:
// every test and every failure in full, where the report otherwise shows
// the first failure in full and folds the rest.
var verboseFlag = &ucli.BoolFlag{Name: "verbose", Aliases: []string{"v"},
	Usage: "print every test and every failure in full (otherwise: the first failure in full, the others on a line each, an earlier stage that passes as its count)"}

// timeoutFlags are --timeout and --test-timeout, shared by de test, de
// watch and de grade: how long a stage's test binary, and one of its
// tests, may run before the running test is reported as hung.
func timeoutFlags(stage, test time.Duration) []ucli.Flag {
	return []ucli.Flag{
		&ucli.DurationFlag{Name: "timeout", Value: stage, Usage: "time allowed per stage before its running test is reported as hung",
			Action: func(_ *ucli.Context, d time.Duration) error {
				if d <= 0 {
					return fmt.Errorf("--timeout %v: give the time a stage may take, more than 0 (e.g. %v)", d, stage)
				}
				return nil
			}},
		&ucli.DurationFlag{Name: "test-timeout", Value: test, Usage: "time allowed per test: a test running longer is stopped, reported as hung with where your code was, and the stage's other tests run without it (Linux; 0 turns it off)",
			Action: func(c *ucli.Context, d time.Duration) error {
				switch {
				case d < 0:
					return fmt.Errorf("--test-timeout %v: give the time a test may take (e.g. %v), or 0 to stop no test before --timeout", d, test)
				case d == 0:
					fmt.Fprintln(c.App.ErrWriter, "de: --test-timeout 0: no test is stopped as hung; a test that hangs runs until its stage's --timeout")
				}
				return nil
			}},
	}
}

// raceFlag is --race, shared by de test, de watch and de grade: usage says
// which stages it builds with the race detector.
func raceFlag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: "race", Value: true, Usage: usage + " (needs cgo: without a C compiler de runs without it and says so); --race=false to turn off"}
}

// raceFlags are de test's and de watch's: the race detector for the stages
// whose lesson is concurrency, --race-all for every stage.
func raceFlags() []ucli.Flag {
	return []ucli.Flag{
		raceFlag("run the current stage a second time, with the race detector, when its lesson is concurrency (02, 06): the verdict comes first from a pass without it"),
		&ucli.BoolFlag{Name: "race-all", Usage: "build every stage's suite with the race detector (about twice as slow), as de grade does"},
	}
}

// raceMode reads de test's and de watch's race flags.
func raceMode(c *ucli.Context) int {
	switch {
	case !c.Bool("race"):
		return raceOff
	case c.Bool("race-all"):
		return raceAll
	}
	return raceStages
}

type testOptions struct {
	solution bool
	stage    string
	timeout  time.Duration
	testTime time.Duration // --test-timeout
	race     int           // raceStages, raceAll or raceOff
	// reruns runs the catalogue's rerun passes too (de test does; de watch,
	// which reruns on every save, does not).
	reruns bool
	// firstDone, when set, is called with the run so far as soon as the
	// current stage's results are in, before the earlier stages run.
	firstDone func(*testreport.Run)
}

func (e *env) test(ctx context.Context, o testOptions) error {
	// The current stage's verdict is printed as soon as it is in; the
	// earlier stages, for regressions, follow.
	pr := e.printer()
	o.firstDone = func(run *testreport.Run) { pr.Stage(run, run.Stages[0]) }
	run, upTo, err := e.runTests(ctx, o)
	if err != nil {
		return err
	}
	for _, st := range run.Stages {
		if !pr.Printed(st) {
			pr.Stage(run, st)
		}
	}
	pr.RacePass(run)
	pr.Reruns(run)
	if !pr.Summary(run, upTo) {
		e.notePictures()
		return quietFailure
	}
	return e.recordPassed(run)
}

// picturesDir is where a run's failing event-time tests draw their pages.
func (e *env) picturesDir() string { return filepath.Join(e.root, ".de", "pictures") }

// freshPictures clears the last run's pictures and returns the variable
// (picture.Env=dir) that has a test binary draw this run's: a failing
// event-time test draws its run as a page (internal/picture), and every
// page there is then this run's.
func (e *env) freshPictures() (string, error) {
	if err := os.RemoveAll(e.picturesDir()); err != nil {
		return "", fmt.Errorf("clearing the last run's pictures: %w", err)
	}
	return picture.Env + "=" + e.picturesDir(), nil
}

// notePictures says where the pages of the run's failures are, if any
// failure drew one: each failure shown in full links its own.
func (e *env) notePictures() {
	var pages []string
	_ = filepath.WalkDir(e.picturesDir(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".html") {
			pages = append(pages, path)
		}
		return nil
	})
	if len(pages) == 0 {
		return
	}
	rel, err := filepath.Rel(e.root, e.picturesDir())
	if err != nil {
		rel = e.picturesDir()
	}
	fmt.Fprintf(e.Stdout, "%s of the failing runs in %s (open one in a browser; each failure shown in full links its own)\n", plural(len(pages), "picture"), rel+string(filepath.Separator))
}

// runTests runs go test on the stages o names, without printing a report:
// `de test` and `de watch` share it. It returns the run and its last stage.
func (e *env) runTests(ctx context.Context, o testOptions) (*testreport.Run, catalog.Stage, error) {
	tags, err := e.tags(o.solution)
	if err != nil {
		return nil, catalog.Stage{}, err
	}
	upTo, err := e.testTarget(o.stage, tags)
	if err != nil {
		return nil, upTo, err
	}
	run := &testreport.Run{Tags: tags}
	if tags == "solution" && !coursedir.HasReference(e.root) {
		return nil, upTo, errNoReference("de test --solution runs the suites on it")
	}
	if tags == "lab" {
		if err := e.checkLab(); err != nil {
			return nil, upTo, err
		}
		if run.Findings, err = grade.CheckLab(e.root, e.cat, course.Files); err != nil {
			return nil, upTo, err
		}
	}
	run.Stages = slices.Clone(e.cat.ReadyThrough(upTo.Number))
	slices.Reverse(run.Stages) // the current stage first
	wanted := o.race == raceAll || (o.race == raceStages && run.Stages[0].Race)
	race, err := e.raceIfSupported(wanted)
	if err != nil {
		return nil, upTo, err
	}
	pictures, err := e.freshPictures()
	if err != nil {
		return nil, upTo, err
	}
	live := newLiveLine(e.Stderr, e.style, e.Getenv)
	defer live.done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bs := batches(run.Stages, race, o.race == raceAll)
	if o.reruns {
		bs = append(bs, rerunBatches(run.Stages)...)
	}
	results := make([]*gotest.Result, len(bs))
	errs := make([]error, len(bs))
	passes := make([]func(onStart func(string)), len(bs))
	for i, b := range bs {
		what := "the current stage"
		switch {
		case b.racePass:
			what = "the current stage again"
			run.RaceSecondPass = true
		case b.rerun != nil:
			what = b.rerun.On
		case i > 0:
			what = "the earlier stages, for regressions"
		}
		passTags := tags
		if b.rerun != nil {
			passTags = b.rerun.Tags(tags)
		}
		// The learner's runs confirm each pass through the suite's own
		// report, as de grade does: a stage counts as passed only then.
		opts := gotest.Options{Dir: e.root, Tags: passTags, Race: b.race, Timeout: o.timeout, TestTimeout: o.testTime, Background: i > 0,
			Verdicts: run.Learner() && verdict.Supported(), HaltOnRepeatedHang: true,
			Env: []string{pictures}}
		if b.rerun != nil {
			opts.TestTimeout = b.rerun.TestTimeout(o.testTime)
		}
		for _, st := range b.stages {
			opts.Packages = append(opts.Packages, st.Package())
		}
		passes[i] = func(onStart func(string)) {
			part := live.part("go test -tags %s on %s (%s%s)", passTags, testreport.StageRange(b.stages), what, map[bool]string{true: ", -race"}[b.race])
			defer part.end()
			opts.OnTest, opts.OnStart = part.test, onStart
			live.hangNotices(&opts)
			results[i], errs[i] = gotest.RunPastCrashes(ctx, opts, e.cat.TestsByPackage(b.stages), func(pkg string, crashed []string) {
				part.printf("%s crashed its test binary; running %s's other tests", strings.Join(crashed, ", "), path.Base(pkg))
			})
			if errs[i] != nil {
				cancel() // an interrupted run stops whole
			}
		}
	}
	// The current stage's fast pass runs in the foreground. The other
	// passes (its race detector's, the earlier stages') run beside it, in
	// the background at a lower CPU priority, from the moment its test
	// binary starts: its compiles are over by then, which theirs would slow
	// (a 2-vCPU machine is often two hyperthreads of one core), and its run
	// leaves cores idle that their builds can use.
	var wg sync.WaitGroup
	var once sync.Once
	// The rerun passes (stage 12's) go one after another, in one
	// goroutine: each builds and runs two suites, and beside every other
	// pass at once they would slow each other's tests past --test-timeout
	// on two cores.
	startBackground := func(string) {
		once.Do(func() {
			var reruns []func(func(string))
			for i, pass := range passes[1:] {
				if bs[i+1].rerun != nil {
					reruns = append(reruns, pass)
					continue
				}
				wg.Go(func() { pass(nil) })
			}
			if len(reruns) > 0 {
				wg.Go(func() {
					for _, pass := range reruns {
						pass(nil)
					}
				})
			}
		})
	}
	passes[0](startBackground)
	if errs[0] == nil {
		startBackground("") // if its binary never started: a compile error
		if o.firstDone != nil {
			run.Result = results[0]
			live.hide()
			o.firstDone(run)
			live.show()
		}
	}
	wg.Wait()
	run.Result = &gotest.Result{}
	for i, res := range results {
		if errs[i] != nil {
			return nil, upTo, errs[i]
		}
		if r := bs[i].rerun; r != nil {
			run.Reruns = append(run.Reruns, testreport.RerunResult{Rerun: *r, Tags: r.Tags(tags), Result: res})
			run.Result.Errors = append(run.Result.Errors, res.Errors...)
			continue
		}
		if bs[i].racePass {
			run.RacePass = res.Package(run.Stages[0].Package())
			run.Result.Errors = append(run.Result.Errors, res.Errors...)
			continue
		}
		run.Result.Packages = append(run.Result.Packages, res.Packages...)
		run.Result.Errors = append(run.Result.Errors, res.Errors...)
	}
	return run, upTo, nil
}

// The race modes of de test and de watch.
const (
	raceStages = iota // -race for the current stage if its lesson is concurrency (the catalogue's "race")
	raceAll           // -race for every stage (--race-all)
	raceOff           // no -race (--race=false)
)

// batch is one go test invocation of a run: stages that build alike.
type batch struct {
	stages   []catalog.Stage
	race     bool
	racePass bool // the current stage again, with the race detector, after its fast pass
	rerun    *catalog.Rerun
}

// rerunBatches are the passes that run earlier stages' suites again under
// the build tags of a stage of the run (catalog.Stage.Reruns): at stage 12,
// stages 01 and 03 on the learner's BackendProcessor, once per backend.
// They run beside the earlier stages, in the background, and never with
// the race detector, not even with --race-all: stage 12's BackendProcessor
// is one goroutine's, and Pebble's own code under the race detector takes
// minutes a suite.
func rerunBatches(stages []catalog.Stage) []batch {
	var out []batch
	for _, st := range stages {
		for _, r := range st.Reruns {
			out = append(out, batch{stages: r.Stages, rerun: &r})
		}
	}
	return out
}

// batches splits a run's stages (current first) into go test invocations.
// The current stage comes alone and first, so that its verdict comes
// first, and without the race detector, which makes a build and a run
// about twice as slow. If its lesson is concurrency, a second pass runs it
// again with the race detector. The earlier stages follow, for
// regressions, without it: their lessons were checked with it when they
// were current. race says whether the race detector can build at all;
// all, that every stage wants it in its only pass (--race-all, as de grade
// does).
func batches(stages []catalog.Stage, race, all bool) []batch {
	out := []batch{{stages: stages[:1], race: race && all}}
	if race && !all && stages[0].Race {
		out = append(out, batch{stages: stages[:1], race: true, racePass: true})
	}
	if len(stages) > 1 {
		out = append(out, batch{stages: stages[1:], race: race && all})
	}
	return out
}

// printer returns a report printer for e's output.
func (e *env) printer() *testreport.Printer {
	return &testreport.Printer{W: e.Stdout, Style: e.style, Cat: e.cat, Verbose: e.verbose, Width: term.Width(e.Stdout, e.Getenv)}
}

// recordPassed records every stage of a run that passed against lab/ in
// the progress file; call it only when the whole run passed.
func (e *env) recordPassed(run *testreport.Run) error {
	if run.Tags != "lab" {
		return nil
	}
	for _, st := range run.Stages {
		e.prog.Passed[st.ID()] = true
	}
	return e.prog.Save(e.root)
}

// tags picks the build tag: the reference with --solution or
// LAB_MODULE=solution, otherwise the learner's lab/.
func (e *env) tags(solution bool) (string, error) {
	switch v := e.Getenv("LAB_MODULE"); v {
	case "", "lab":
	case "solution":
		solution = true
	default:
		return "", fmt.Errorf("LAB_MODULE=%q: it must be lab (your code) or solution (the reference)", v)
	}
	if solution {
		return "solution", nil
	}
	return "lab", nil
}

// testTarget is the last stage to test: --stage, else the current stage,
// else (for the reference only) the last ready stage.
func (e *env) testTarget(stage, tags string) (catalog.Stage, error) {
	if stage != "" {
		return e.cat.ResolveReady(stage)
	}
	if ready := e.cat.Ready(); e.prog.Current == "" && tags == "solution" && len(ready) > 0 {
		return ready[len(ready)-1], nil
	}
	return e.current()
}

// raceIfSupported returns whether to build with the race detector: as
// asked, unless it cannot build here (no C compiler: cgo is off), which it
// says, once per run, instead of failing every stage with a cgo error.
func (e *env) raceIfSupported(race bool) (bool, error) {
	if !race {
		return false, nil
	}
	ok, err := gotest.RaceSupported(e.root, nil)
	if err != nil {
		return false, err
	}
	if !ok {
		fmt.Fprintf(e.Stderr, "%s\n", e.style.Yellow("de: no C compiler found (go env CGO_ENABLED is 0), and the race detector needs one: "+
			"running without -race. Install gcc or clang to get it back, or pass --race=false to say you know."))
	}
	return ok, nil
}

// liveLine shows progress on a terminal while go test runs, on one line
// that is rewritten and finally erased: a part for each go test running at
// once, each with the tests it has finished, cut to the terminal's width
// (a line that wraps leaves a copy behind at every redraw). Off a terminal
// it prints nothing but its notices, so logs stay clean. Its methods may be
// called from several goroutines.
type liveLine struct {
	mu     sync.Mutex
	w      io.Writer
	on     bool
	width  func() int // the terminal's columns; 0 when unknown
	hidden bool
	parts  []*livePart
}

// livePart is one go test's share of a liveLine.
type livePart struct {
	l     *liveLine
	text  string
	tests int
	ended bool
}

func newLiveLine(w io.Writer, s term.Style, getenv func(string) string) *liveLine {
	return &liveLine{w: w, on: s.Color, width: func() int { return term.Width(w, getenv) }}
}

// notice prints a line that stays, above the live line on a terminal, and
// on its own off one: what a learner must hear while the tests still run (a
// test that hangs).
func (l *liveLine) notice(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
	fmt.Fprintf(l.w, format+"\n", args...)
	l.draw()
}

// hangNotices are the notices of a go test run's hangs: a test that has
// run half its --test-timeout, and one stopped as hung.
func (l *liveLine) hangNotices(o *gotest.Options) {
	o.OnSlow = func(pkg, test string, ran time.Duration) {
		l.notice("de: %s (%s) has run %v; at %v it is stopped as hung", test, path.Base(pkg), ran.Round(time.Second), o.TestTimeout)
	}
	o.OnStop = func(pkg, test string, limit time.Duration) {
		l.notice("de: %s (%s) ran longer than %v and was stopped as hung; the stage's other tests run without it", test, path.Base(pkg), limit)
	}
}

// part adds a part to the line, saying what is running.
func (l *liveLine) part(format string, args ...any) *livePart {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := &livePart{l: l, text: fmt.Sprintf(format, args...)}
	l.parts = append(l.parts, p)
	l.draw()
	return p
}

// printf replaces what the part says is running.
func (p *livePart) printf(format string, args ...any) {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	p.text = fmt.Sprintf(format, args...)
	p.l.draw()
}

// test counts one finished test: it is a gotest.Options.OnTest.
func (p *livePart) test(string, gotest.Test) {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	p.tests++
	p.l.draw()
}

// end takes the part off the line: its go test is over.
func (p *livePart) end() {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	p.ended = true
	p.l.draw()
}

// hide erases the line and keeps it erased until show, while a report is
// printed below it.
func (l *liveLine) hide() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hidden = true
	if l.on {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
}

// show draws the line again after hide.
func (l *liveLine) show() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hidden = false
	l.draw()
}

// draw rewrites the line; l.mu is held.
func (l *liveLine) draw() {
	if !l.on || l.hidden {
		return
	}
	var running []string
	for _, p := range l.parts {
		if !p.ended {
			running = append(running, fmt.Sprintf("%s: %s done", p.text, plural(p.tests, "test")))
		}
	}
	if len(running) == 0 {
		fmt.Fprint(l.w, "\r\x1b[K")
		return
	}
	fmt.Fprintf(l.w, "\r\x1b[K%s", fit("running "+strings.Join(running, "; ")+" …", l.width()))
}

// fit cuts line to width columns less one (so that the cursor stays on
// the line), ending it with "…"; width 0 (unknown) leaves it whole. Every
// rune of a live line takes one column.
func fit(line string, width int) string {
	r := []rune(line)
	if width <= 1 || len(r) < width {
		return line
	}
	return string(r[:width-2]) + "…"
}

// done erases the line for good.
func (l *liveLine) done() { l.hide() }
