package cli

import (
	"context"
	"fmt"
	"io"
	"path"
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
	"github.com/flk-byo/course/internal/term"
)

func testCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "test",
		Usage: "run stages 01..current against your lab/ (current first); exit 0 only when all pass",
		Description: `Each test is shown with what it certifies; each failure with its message and the
one go test command that re-runs it. With --solution, or LAB_MODULE=solution in the
environment, the same stages run against the reference solution instead.`,
		Flags: append([]ucli.Flag{
			&ucli.BoolFlag{Name: "solution", Usage: "test the reference solution instead of lab/"},
			&ucli.StringFlag{Name: "stage", Usage: "test stages 01..`NN` instead of 01..current"},
			timeoutFlag(60 * time.Second),
		}, raceFlags()...),
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.test(c.Context, testOptions{
				solution: c.Bool("solution"),
				stage:    c.String("stage"),
				timeout:  c.Duration("timeout"),
				race:     raceMode(c),
			})
		},
	}
}

// timeoutFlag is --timeout, shared by de test, de watch and de grade: how
// long a stage's test binary may run before its running test is reported
// as hung.
func timeoutFlag(def time.Duration) *ucli.DurationFlag {
	return &ucli.DurationFlag{Name: "timeout", Value: def, Usage: "time allowed per stage before its running test is reported as hung"}
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
		raceFlag("build the current stage's suite with the race detector when its lesson is concurrency (02, 06)"),
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
	race     int // raceStages, raceAll or raceOff
	// firstDone, when set, is called with the run so far as soon as the
	// current stage's results are in, before the earlier stages run.
	firstDone func(*testRun)
}

// testRun is one `de test`: which stages ran against what, and what came back.
type testRun struct {
	tags     string
	stages   []catalog.Stage // current first, then down to 01
	result   *gotest.Result
	findings []grade.LabFinding // what lab/ must not use (de grade gives it no credit)
}

func (e *env) test(ctx context.Context, o testOptions) error {
	// The current stage's verdict is printed as soon as it is in; the
	// earlier stages, for regressions, follow.
	var tl tally
	o.firstDone = func(run *testRun) { e.printStage(run, run.stages[0], &tl) }
	run, upTo, err := e.runTests(ctx, o)
	if err != nil {
		return err
	}
	for _, st := range run.stages {
		if !tl.printed[st.ID()] {
			e.printStage(run, st, &tl)
		}
	}
	if !e.printSummary(run, upTo, &tl) {
		return quietFailure
	}
	return e.recordPassed(run)
}

// runTests runs go test on the stages o names, without printing a report:
// `de test` and `de watch` share it. It returns the run and its last stage.
func (e *env) runTests(ctx context.Context, o testOptions) (*testRun, catalog.Stage, error) {
	tags, err := e.tags(o.solution)
	if err != nil {
		return nil, catalog.Stage{}, err
	}
	upTo, err := e.testTarget(o.stage, tags)
	if err != nil {
		return nil, upTo, err
	}
	run := &testRun{tags: tags}
	if tags == "solution" && !coursedir.HasReference(e.root) {
		return nil, upTo, errNoReference("de test --solution runs the suites on it")
	}
	if tags == "lab" {
		if err := e.checkLab(); err != nil {
			return nil, upTo, err
		}
		if run.findings, err = grade.CheckLab(e.root, e.cat, course.Files); err != nil {
			return nil, upTo, err
		}
	}
	run.stages = slices.Clone(e.cat.ReadyThrough(upTo.Number))
	slices.Reverse(run.stages) // the current stage first
	wanted := o.race == raceAll || (o.race == raceStages && run.stages[0].Race)
	race, err := e.raceIfSupported(wanted)
	if err != nil {
		return nil, upTo, err
	}
	live := newLiveLine(e.Stderr, e.style)
	defer live.done()
	run.result = &gotest.Result{}
	for i, batch := range batches(run.stages, race, o.race == raceAll) {
		opts := gotest.Options{Dir: e.root, Tags: tags, Race: batch.race, Timeout: o.timeout, OnTest: live.test}
		for _, st := range batch.stages {
			opts.Packages = append(opts.Packages, st.Package())
		}
		what := "the current stage"
		if i > 0 {
			what = "the earlier stages, for regressions"
		}
		live.printf("running go test -tags %s on %s (%s%s) …", tags, stageRange(batch.stages), what, map[bool]string{true: ", -race"}[batch.race])
		res, err := gotest.RunPastCrashes(ctx, opts, e.cat.TestsByPackage(batch.stages), func(pkg string, crashed []string) {
			live.printf("%s crashed its test binary; running %s's other tests …", strings.Join(crashed, ", "), path.Base(pkg))
		})
		if err != nil {
			return nil, upTo, err
		}
		run.result.Packages = append(run.result.Packages, res.Packages...)
		run.result.Errors = append(run.result.Errors, res.Errors...)
		if i == 0 && o.firstDone != nil {
			live.done()
			o.firstDone(run)
		}
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
	stages []catalog.Stage
	race   bool
}

// batches splits a run's stages (current first) into go test invocations:
// the current stage alone, so that its verdict comes first, built with the
// race detector if its lesson is concurrency; then the earlier stages, for
// regressions, without it (the race detector makes a build and a run about
// twice as slow, and their lessons were checked with it when they were
// current). race says whether the race detector can build at all; all,
// that every stage wants it (--race-all, as de grade does).
func batches(stages []catalog.Stage, race, all bool) []batch {
	out := []batch{{stages: stages[:1], race: race && (all || stages[0].Race)}}
	if len(stages) > 1 {
		out = append(out, batch{stages: stages[1:], race: race && all})
	}
	return out
}

// recordPassed records every stage of a run that passed against lab/ in
// the progress file; call it only when the whole run passed.
func (e *env) recordPassed(run *testRun) error {
	if run.tags != "lab" {
		return nil
	}
	for _, st := range run.stages {
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

// report prints every stage's tests and the summary line, and reports
// whether everything passed.
func (e *env) report(run *testRun, target catalog.Stage) bool {
	var tl tally
	for _, st := range run.stages {
		e.printStage(run, st, &tl)
	}
	return e.printSummary(run, target, &tl)
}

// tally is what a report has counted so far, stage by stage.
type tally struct {
	failed                        bool
	passed, total                 int // total counts every test of the catalogue, run or not
	firstFailure, shownBuildError string
	printed                       map[string]bool // stage IDs already printed
}

// printStage prints one stage's tests, as far as run holds them, and
// counts them into tl.
func (e *env) printStage(run *testRun, st catalog.Stage, tl *tally) {
	s := e.style
	if tl.printed == nil {
		tl.printed = map[string]bool{}
	}
	tl.printed[st.ID()] = true
	allOK, passed, total := true, 0, 0
	firstFailure, shownBuildError := tl.firstFailure, tl.shownBuildError
	defer func() {
		tl.failed = tl.failed || !allOK
		tl.passed += passed
		tl.total += total
		tl.firstFailure, tl.shownBuildError = firstFailure, shownBuildError
	}()
	{
		docs, _ := e.cat.Tests(st)
		certifies := map[string]string{}
		for _, d := range docs {
			certifies[d.Name] = d.Certifies
		}
		pkg := run.result.Package(st.Package())
		total += len(docs)
		e.printf("\n%s", s.Bold(fmt.Sprintf("%s %s", st.Ref(), st.Title)))
		if pkg == nil {
			e.printf("  %s\n", s.Red(fmt.Sprintf("0/%d passed: did not run", len(docs))))
			allOK = false
			return
		}
		e.printf("  %s\n", stageScore(s, pkg, len(docs)))
		if pkg.BuildError != "" {
			allOK = false
			if pkg.BuildError == shownBuildError {
				e.printf("  %s\n", s.Red("✗ does not compile: the same errors as above"))
			} else {
				e.printf("  %s\n%s\n", s.Red("✗ does not compile:"), indent(pkg.BuildError, "      "))
				shownBuildError = pkg.BuildError
			}
		}
		var crashed string
		for _, t := range pkg.Tests {
			cert := certifies[t.Name]
			switch t.Status {
			case gotest.Pass:
				passed++
				e.printf("  %s %s %s\n", s.Green("✓"), t.Name, s.Dim(cert))
				continue
			case gotest.Skip:
				e.printf("  %s %s %s\n", s.Yellow("-"), t.Name, s.Dim("skipped"))
				continue
			}
			allOK = false
			if firstFailure == "" {
				firstFailure = t.Name
			}
			e.printf("  %s %s\n", s.Red("✗"), s.Bold(t.Name))
			if cert != "" {
				e.printf("      %s %s\n", s.Dim("certifies:"), cert)
			}
			if t.Hung {
				e.printf("      %s\n", s.Red(fmt.Sprintf("hung: still running when the stage %s — look for a loop or a channel nobody closes", pkg.TimedOut)))
			}
			if t.Crashed {
				crashed = t.Name
				e.printf("      %s\n", s.Red("crashed the test binary: "+crashCause(t)))
			}
			e.printFailure(t, run.tags, st)
		}
		if missing := notRun(docs, pkg); len(missing) > 0 {
			allOK = false
			why := "the test binary ended before them"
			switch {
			case crashed != "":
				why = "the test binary died in " + crashed + " (above)"
			case pkg.TimedOut != "":
				why = "the stage " + pkg.TimedOut
			case pkg.BuildError != "":
				why = "the suite does not compile"
			}
			if pkg.BuildError == "" {
				e.printf("  %s %s\n", s.Red(fmt.Sprintf("%d test(s) did not run:", len(missing))), s.Dim(why))
				e.printf("%s\n", indent(strings.Join(missing, "\n"), "      "))
			}
		}
		if pkg.Crash != "" && crashed == "" {
			allOK = false
			e.printf("  %s\n%s\n", s.Red("✗ the test binary failed outside any test:"), indent(strings.Join(limitLines(strings.Split(pkg.Crash, "\n"), 30), "\n"), "      "))
		}
	}
}

// printSummary prints what applies to the whole run (go's own errors, the
// lab's findings) and the summary line, and reports whether everything
// passed.
func (e *env) printSummary(run *testRun, target catalog.Stage, tl *tally) bool {
	s := e.style
	allOK := !tl.failed && len(run.result.Errors) == 0
	passed, total, firstFailure, shownBuildError := tl.passed, tl.total, tl.firstFailure, tl.shownBuildError
	for _, line := range run.result.Errors {
		e.printf("%s %s\n", s.Red("go:"), line)
	}
	if len(run.findings) > 0 {
		allOK = false
		e.printf("\n%s\n", s.Red(s.Bold("de grade would give this lab no credit, whatever its tests say:")))
		for _, f := range run.findings {
			e.printf("  %s %s\n", s.Red("✗"), f)
		}
		e.printf("A lab may import only the standard library and kit, and must not print, exit, read the\n" +
			"environment or run code at init time: the tests could not trust what they see (docs/GRADING.md\n" +
			"lists the rules). Until then no stage counts as passed.\n")
	}

	who := "your lab/"
	if run.tags == "solution" {
		who = "the reference solution"
	}
	summary := fmt.Sprintf("stage %d of %d — %d/%d passed (%s, %s)", target.Number, len(e.cat.Stages), passed, total, stageRange(run.stages), who)
	if allOK {
		e.printf("\n%s\n", s.Green(s.Bold(summary)))
		if run.tags == "lab" {
			e.printf("%s\n", e.nextStep(target))
		}
	} else {
		e.printf("\n%s\n", s.Red(s.Bold(summary)))
		switch {
		case run.tags != "lab":
		case shownBuildError != "":
			e.printf("Next: fix the compile errors above, then run %s again.\n", s.Cyan("de test"))
		case firstFailure != "":
			e.printf("Next: fix %s first, then run %s again. Stuck? %s\n", firstFailure, s.Cyan("de test"), s.Cyan("de hint"))
		}
	}
	return allOK
}

// printFailure prints why a failed test failed (the skeleton's TODO, or
// what it printed) and the command that re-runs it alone. de test and de
// watch both show a failure this way.
func (e *env) printFailure(t gotest.Test, tags string, st catalog.Stage) {
	s := e.style
	switch {
	case len(t.Trace) > 0:
		e.printf("%s\n", indent(strings.Join(t.Trace, "\n"), "      "))
	case t.Hung:
	case t.NotImplemented != "":
		e.printf("      %s %s\n", s.Yellow("not implemented yet:"), t.NotImplemented)
	default:
		e.printf("%s\n", indent(strings.Join(limitLines(t.Output, 40), "\n"), "      "))
	}
	e.printf("      %s %s\n", s.Dim("re-run:"), s.Cyan(rerun(tags, t.Name, st)))
}

func (e *env) nextStep(target catalog.Stage) string {
	if after := e.cat.ReadyAfter(target.Number); len(after) > 0 && after[0].Number == target.Number+1 {
		next := after[0]
		return fmt.Sprintf("%s passed. Next: de start %s (%s)", target.Ref(), next.Ref(), next.Title)
	}
	return fmt.Sprintf("%s passed: that is the last stage in this version of the coursedir.", target.Ref())
}

func stageScore(s term.Style, p *gotest.Package, total int) string {
	score := fmt.Sprintf("%d/%d passed", p.Passed(), total)
	if p.OK() && p.Passed() == total {
		return s.Green(score)
	}
	return s.Red(score)
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

// notRun returns the stage's tests, in suite order, that the run of pkg
// never reached.
func notRun(docs []catalog.TestDoc, pkg *gotest.Package) []string {
	var out []string
	for _, d := range docs {
		if !slices.ContainsFunc(pkg.Tests, func(t gotest.Test) bool { return t.Name == d.Name }) {
			out = append(out, d.Name)
		}
	}
	return out
}

// crashCause says in a few words what killed the test binary, from what it
// printed: a panic (in a goroutine the test's recover cannot reach), a
// fatal runtime error, or nothing at all (os.Exit).
func crashCause(t gotest.Test) string {
	for _, l := range t.Output {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "panic: "):
			return "a panic that no recover caught (it happened outside the test's goroutine, where the test cannot catch it: " + strings.TrimPrefix(l, "panic: ") + ")"
		case strings.Contains(l, "stack overflow"), strings.Contains(l, "goroutine stack exceeds"):
			return "a stack overflow: a function that calls itself without end"
		case strings.Contains(l, "out of memory"):
			return "it ran out of memory: state that grows without bound, or one huge allocation"
		case strings.HasPrefix(l, "fatal error: "):
			return "a fatal runtime error (" + strings.TrimPrefix(l, "fatal error: ") + ")"
		}
	}
	return "it exited without a word while this test ran (os.Exit, or a signal): nothing after it ran"
}

// rerun is the go test command that re-runs one test by itself.
func rerun(tags, test string, st catalog.Stage) string {
	return fmt.Sprintf("go test -tags %s -run '^%s$' %s", tags, test, st.Package())
}

// stageRange names the stages of a run, lowest first whatever order they
// ran in: "stage 01" or "stages 01–02".
func stageRange(sts []catalog.Stage) string {
	switch len(sts) {
	case 0:
		return "no stages"
	case 1:
		return fmt.Sprintf("stage %02d", sts[0].Number)
	}
	lo, hi := sts[0].Number, sts[0].Number
	for _, st := range sts {
		lo, hi = min(lo, st.Number), max(hi, st.Number)
	}
	return fmt.Sprintf("stages %02d–%02d", lo, hi)
}

func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func limitLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(slices.Clone(lines[:n]), fmt.Sprintf("… %d more lines: run the re-run command to see them all", len(lines)-n))
}

// liveLine shows progress on a terminal while go test runs, on one line
// that is rewritten and finally erased. Off a terminal it prints nothing,
// so logs stay clean.
type liveLine struct {
	mu     sync.Mutex
	w      io.Writer
	on     bool
	prefix string
	done_  int
}

func newLiveLine(w io.Writer, s term.Style) *liveLine { return &liveLine{w: w, on: s.Color} }

func (l *liveLine) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prefix = fmt.Sprintf(format, args...)
	if l.on {
		fmt.Fprintf(l.w, "\r\x1b[K%s", l.prefix)
	}
}

func (l *liveLine) test(_ string, _ gotest.Test) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done_++
	if l.on {
		fmt.Fprintf(l.w, "\r\x1b[K%s %s done", l.prefix, plural(l.done_, "test"))
	}
}

func (l *liveLine) done() {
	if l.on {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
}
