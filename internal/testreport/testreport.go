// Package testreport writes what de test and de watch print about a run
// of the stage suites: each stage's tests with what they certify, every
// failure with its cause (a crash, a hang, a skeleton's TODO, the test's
// output) and the command that re-runs it, the tests that never ran, the
// lab's findings, and the summary line. Its formats are pinned by golden
// files (go test ./internal/testreport -update rewrites them).
package testreport

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/term"
	"github.com/flk-byo/course/internal/watch"
)

// Run is one run of the suites, as the report shows it.
type Run struct {
	Tags     string             // "lab" (the learner's code) or "solution" (the reference)
	Stages   []catalog.Stage    // the stages run, current first
	Result   *gotest.Result     // what go test reported
	Findings []grade.LabFinding // what lab/ must not use (de grade gives it no credit)

	// RaceSecondPass says that the current stage (Stages[0]) runs a second
	// time, with the race detector, after the fast answer in Result;
	// RacePass is what that pass reported, once it has.
	RaceSecondPass bool
	RacePass       *gotest.Package

	// Reruns are the passes that ran earlier stages' suites again on a
	// later stage's code (catalog.Stage.Reruns), in the catalogue's order.
	Reruns []RerunResult

	rerun bool // a rerun pass's own Run: none of its stages is the current one
}

// current reports whether st is the stage the run is at (Stages[0]), whose
// report is never folded.
func (r *Run) current(st catalog.Stage) bool {
	return !r.rerun && len(r.Stages) > 0 && st.ID() == r.Stages[0].ID()
}

// RerunResult is what one rerun pass reported.
type RerunResult struct {
	catalog.Rerun
	Tags   string         // the pass's build tags: "lab,statebackend_heap"
	Result *gotest.Result // what its go test reported
}

// RaceFailures returns the tests of the current stage that passed in
// Result but failed in RacePass: what only the race detector catches.
func (r *Run) RaceFailures() []gotest.Test {
	if r.RacePass == nil || len(r.Stages) == 0 {
		return nil
	}
	fast := r.Result.Package(r.Stages[0].Package())
	if fast == nil {
		return nil
	}
	var out []gotest.Test
	for _, t := range r.RacePass.Tests {
		if t.Status == gotest.Fail && slices.ContainsFunc(fast.Tests, func(f gotest.Test) bool { return f.Name == t.Name && f.Status == gotest.Pass }) {
			out = append(out, t)
		}
	}
	return out
}

// Merged returns Result with each of RaceFailures in place of the pass it
// contradicts, and a race build's compile error as the current stage's:
// every test's outcome over both passes, which de watch compares from run
// to run.
func (r *Run) Merged() *gotest.Result {
	if r.RacePass == nil || len(r.Stages) == 0 {
		return r.Result
	}
	out := &gotest.Result{Errors: r.Result.Errors, Packages: slices.Clone(r.Result.Packages)}
	failures := r.RaceFailures()
	for i, pkg := range out.Packages {
		if pkg != r.Result.Package(r.Stages[0].Package()) {
			continue
		}
		cp := *pkg
		cp.Tests = slices.Clone(pkg.Tests)
		for j, t := range cp.Tests {
			if k := slices.IndexFunc(failures, func(f gotest.Test) bool { return f.Name == t.Name }); k >= 0 {
				cp.Tests[j] = failures[k]
			}
		}
		cp.BuildError = cmp.Or(cp.BuildError, r.RacePass.BuildError)
		out.Packages[i] = &cp
	}
	return out
}

// Unconfirmed lists the tests of the run (every pass of it) whose output
// says they passed but whose suite's own report did not confirm it
// (gotest.Test.Unconfirmed), each as "TestX (stage-id): why": what de grade
// would not credit.
func (r *Run) Unconfirmed() []string {
	var out []string
	add := func(p *gotest.Package) {
		if p == nil {
			return
		}
		for _, t := range p.Tests {
			if t.Status == gotest.Pass && !t.Confirmed && t.Unconfirmed != "" {
				out = append(out, fmt.Sprintf("%s (%s): %s", t.Name, path.Base(p.ImportPath), t.Unconfirmed))
			}
		}
	}
	for _, p := range r.Result.Packages {
		add(p)
	}
	add(r.RacePass)
	for _, rr := range r.Reruns {
		for _, p := range rr.Result.Packages {
			add(p)
		}
	}
	return out
}

// Learner reports whether the run tested the learner's code: lab/, or a
// drill's job in it on either engine.
func (r *Run) Learner() bool {
	return r.Tags == "lab" || r.Tags == catalog.DrillReferenceEngine
}

// Printer writes one report and counts what it has printed, stage by
// stage, for the summary line. Use a new Printer for each report.
type Printer struct {
	W     io.Writer
	Style term.Style
	Cat   *catalog.Catalog
	// Verbose prints every test and every failure in full. Otherwise the
	// few that matter come first: the first failure in full, the others on
	// a line each, failures that stop at the same TODO as one, an earlier
	// stage that passes as its count alone, and lines cut to Width.
	Verbose bool
	// Width is the widest a line of the report should be (a terminal's
	// columns); 0 means 100.
	Width int
	// VerboseCommand is the command that prints this report with every
	// failure in full, for the line under folded failures; "de test
	// --verbose" when empty.
	VerboseCommand string

	failed                        bool
	passed, skipped, total        int // total counts every test of the catalogue, run or not
	firstFailure, shownBuildError string
	printed                       map[string]bool // stage IDs already printed
	shownFull                     bool            // a failure has been printed in full
	folded                        int             // failures printed on one line
}

// Report prints every stage of run, the race detector's second pass, the
// rerun passes and the summary, and reports whether everything passed.
func (p *Printer) Report(run *Run, target catalog.Stage) bool {
	for _, st := range run.Stages {
		p.Stage(run, st)
	}
	p.RacePass(run)
	p.Reruns(run)
	return p.Summary(run, target)
}

// RacePass prints what the race detector's second pass over the current
// stage found beyond the first, fast pass that Stage printed, and counts
// it for the summary: the tests it fails that passed without it. Call it
// after Stage for every stage of the run. It prints nothing when there was
// no second pass, or when the first did not compile.
func (p *Printer) RacePass(run *Run) {
	rp := run.RacePass
	if rp == nil {
		return
	}
	st := run.Stages[0]
	if fast := run.Result.Package(st.Package()); fast == nil || fast.BuildError != "" {
		return
	}
	s := p.Style
	header := s.Bold(fmt.Sprintf("%s %s, again with the race detector", st.Ref(), st.Title))
	failures := run.RaceFailures()
	switch {
	case rp.BuildError != "":
		p.failed = true
		p.printf("\n%s  %s\n%s\n", header, s.Red("✗ does not compile with -race:"), indent(rp.BuildError, "      "))
		return
	case len(failures) == 0:
		p.printf("\n%s  %s\n", header, s.Green("no test fails with it"))
		return
	}
	p.failed = true
	p.passed -= len(failures)
	what := fmt.Sprintf("%d tests that passed without it fail with it:", len(failures))
	if len(failures) == 1 {
		what = "1 test that passed without it fails with it:"
	}
	p.printf("\n%s  %s\n", header, s.Red(what))
	docs, _ := p.Cat.Tests(st)
	for _, t := range failures {
		if p.firstFailure == "" {
			p.firstFailure = t.Name
		}
		p.printf("  %s %s\n", s.Red("✗"), s.Bold(t.Name))
		if i := slices.IndexFunc(docs, func(d catalog.TestDoc) bool { return d.Name == t.Name }); i >= 0 && docs[i].Certifies != "" {
			p.printf("      %s %s\n", s.Dim("certifies:"), docs[i].Certifies)
		}
		if t.Crashed {
			p.printf("      %s\n", s.Red("crashed the test binary: "+crashCause(t)))
		}
		p.Failure(t, run.Tags, st)
	}
}

// Reruns prints every rerun pass of run, each of its stages as Stage
// prints one, titled with what it ran on, and counts them for the summary:
// a test that fails there fails the run. Call it after RacePass.
func (p *Printer) Reruns(run *Run) {
	for _, rr := range run.Reruns {
		pass := &Run{Tags: rr.Tags, Stages: rr.Stages, Result: rr.Result, rerun: true}
		for _, st := range rr.Stages {
			titled := st
			titled.Title += ", on " + rr.On
			p.Stage(pass, titled)
		}
	}
}

// Printed reports whether Stage has printed st.
func (p *Printer) Printed(st catalog.Stage) bool { return p.printed[st.ID()] }

func (p *Printer) printf(format string, args ...any) { fmt.Fprintf(p.W, format, args...) }

// Stage prints one stage's tests, as far as run holds them, and counts
// them for the summary.
func (p *Printer) Stage(run *Run, st catalog.Stage) {
	s := p.Style
	if p.printed == nil {
		p.printed = map[string]bool{}
	}
	p.printed[st.ID()] = true
	allOK, passed, skipped, total := true, 0, 0, 0
	firstFailure, shownBuildError := p.firstFailure, p.shownBuildError
	defer func() {
		p.failed = p.failed || !allOK
		p.passed += passed
		p.skipped += skipped
		p.total += total
		p.firstFailure, p.shownBuildError = firstFailure, shownBuildError
	}()
	{
		docs, _ := p.Cat.Tests(st)
		certifies := map[string]string{}
		for _, d := range docs {
			certifies[d.Name] = d.Certifies
		}
		pkg := run.Result.Package(st.Package())
		total += len(docs)
		p.printf("\n%s", s.Bold(fmt.Sprintf("%s %s", st.Ref(), st.Title)))
		if pkg == nil {
			p.printf("  %s\n", s.Red(fmt.Sprintf("0/%d passed: did not run", len(docs))))
			allOK = false
			return
		}
		p.printf("  %s\n", stageScore(s, pkg, len(docs)))
		if run.RaceSecondPass && st.ID() == run.Stages[0].ID() && pkg.BuildError == "" {
			p.printf("  %s\n", s.Dim("run without the race detector, for a fast answer; the pass with it follows the earlier stages"))
		}
		if pkg.BuildError != "" {
			allOK = false
			if pkg.BuildError == shownBuildError {
				p.printf("  %s\n", s.Red("✗ does not compile: the same errors as above"))
			} else {
				p.printf("  %s\n%s\n", s.Red("✗ does not compile:"), indent(pkg.BuildError, "      "))
				shownBuildError = pkg.BuildError
			}
		}
		// An earlier stage that passes is its count; the current one, and a
		// stage that fails, show each test.
		quiet := !p.Verbose && !run.current(st) && pkg.OK() && len(notRun(docs, pkg)) == 0
		todos := p.todoGroups(pkg.Tests)
		var crashed string
		for _, t := range pkg.Tests {
			cert := certifies[t.Name]
			switch t.Status {
			case gotest.Pass:
				passed++
				if !quiet {
					p.printf("  %s %s\n", s.Green("✓"), p.cut(t.Name+" "+s.Dim(cert), 4))
				}
				continue
			case gotest.Skip:
				skipped++
				why := "skipped"
				if len(t.Output) > 0 {
					why += ": " + t.Output[len(t.Output)-1]
				}
				p.printf("  %s %s %s\n", s.Yellow("-"), t.Name, s.Dim(why))
				continue
			}
			allOK = false
			if firstFailure == "" {
				firstFailure = t.Name
			}
			if group, ok := todos[t.NotImplemented]; ok && t.NotImplemented != "" {
				switch {
				case group[0] != t.Name:
				case !run.current(st):
					// An earlier stage's skeleton (a learner who jumped ahead):
					// one line, its names left to --verbose.
					p.folded++
					p.printf("  %s %s\n", s.Red("✗"), p.cut(s.Bold(fmt.Sprintf("%d tests stop at the same TODO", len(group)))+" "+
						s.Dim("— not implemented yet: "+t.NotImplemented), 4))
				default:
					p.todoGroup(t, group, run.Tags, st)
				}
				continue
			}
			if p.shownFull && !p.Verbose && !t.Crashed {
				p.folded++
				p.printf("  %s %s\n", s.Red("✗"), p.cut(s.Bold(t.Name)+" "+s.Dim("— "+firstLine(t, pkg)), 4))
				continue
			}
			p.shownFull = true
			p.printf("  %s %s\n", s.Red("✗"), s.Bold(t.Name))
			if cert != "" {
				p.printf("      %s %s\n", s.Dim("certifies:"), cert)
			}
			switch {
			case t.Stopped:
				p.printf("      %s\n", s.Red(fmt.Sprintf("hung: it %s — look for a loop or a channel nobody closes", pkg.TimedOut)))
			case t.Hung:
				p.printf("      %s\n", s.Red(fmt.Sprintf("hung: still running when the stage %s — look for a loop or a channel nobody closes", pkg.TimedOut)))
			}
			if t.Crashed {
				crashed = t.Name
				p.printf("      %s\n", s.Red("crashed the test binary: "+crashCause(t)))
			}
			p.Failure(t, run.Tags, st)
		}
		if missing := notRun(docs, pkg); len(missing) > 0 {
			allOK = false
			why := "the test binary ended before them"
			switch {
			case pkg.Halted != "":
				why = pkg.Halted
			case crashed != "":
				why = "the test binary died in " + crashed + " (above)"
			case pkg.TimedOut != "" && !slices.ContainsFunc(pkg.Tests, func(t gotest.Test) bool { return t.Stopped }):
				why = "the stage " + pkg.TimedOut
			case pkg.BuildError != "":
				why = "the suite does not compile"
			}
			if pkg.BuildError == "" {
				p.printf("  %s %s\n", s.Red(fmt.Sprintf("%d test(s) did not run:", len(missing))), s.Dim(why))
				p.printf("%s\n", indent(strings.Join(missing, "\n"), "      "))
			}
		}
		if pkg.Crash != "" && crashed == "" {
			allOK = false
			p.printf("  %s\n%s\n", s.Red("✗ the test binary failed outside any test:"), indent(strings.Join(limitLines(strings.Split(pkg.Crash, "\n"), 30), "\n"), "      "))
		}
	}
}

// todoGroups returns, for each skeleton TODO that two or more of tests
// stopped at (failed as not implemented yet with the same message), the
// names of those tests, in order; nil when Verbose.
func (p *Printer) todoGroups(tests []gotest.Test) map[string][]string {
	if p.Verbose {
		return nil
	}
	byTODO := map[string][]string{}
	for _, t := range tests {
		if t.Status == gotest.Fail && t.NotImplemented != "" && !t.Crashed && !t.Hung && !t.Stopped {
			byTODO[t.NotImplemented] = append(byTODO[t.NotImplemented], t.Name)
		}
	}
	for todo, names := range byTODO {
		if len(names) < 2 {
			delete(byTODO, todo)
		}
	}
	return byTODO
}

// todoGroup prints the tests that stopped at one skeleton TODO as one
// failure: the TODO, their names, the command that re-runs the first.
func (p *Printer) todoGroup(first gotest.Test, names []string, tags string, st catalog.Stage) {
	s := p.Style
	p.shownFull = true
	p.printf("  %s %s\n", s.Red("✗"), s.Bold(fmt.Sprintf("%d tests stop at the same TODO", len(names))))
	p.printf("      %s %s\n", s.Yellow("not implemented yet:"), first.NotImplemented)
	p.printf("%s\n", indent(wrap(strings.Join(names, ", "), p.width()-6), "      "))
	p.printf("      %s %s\n", s.Dim("re-run the first:"), s.Cyan(rerun(tags, first, st)))
}

// width is the widest a line should be: Width, or 100.
func (p *Printer) width() int {
	if p.Width > 0 {
		return p.Width
	}
	return 100
}

// cut shortens text, printed after indent columns, to the width, unless
// Verbose. It counts runes, escape codes included: a colored line may be
// cut a little short, never too long.
func (p *Printer) cut(text string, indent int) string {
	max := p.width() - indent
	r := []rune(text)
	if p.Verbose || len(r) <= max || max < 10 {
		return text
	}
	cut := string(r[:max-1]) + "…"
	if p.Style.Color {
		cut += "\x1b[0m" // close a color the cut left open
	}
	return cut
}

// firstLine is the one line that says why t failed: its crash or hang, its
// TODO, or the first line it printed.
func firstLine(t gotest.Test, pkg *gotest.Package) string {
	switch {
	case t.Stopped:
		return "hung: it " + pkg.TimedOut
	case t.Hung:
		return "hung: still running when the stage " + pkg.TimedOut
	case t.NotImplemented != "":
		return "not implemented yet: " + t.NotImplemented
	case len(t.Output) > 0:
		return strings.TrimSpace(t.Output[0])
	}
	return "failed"
}

// wrap breaks text at spaces into lines of at most width runes.
func wrap(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// Summary prints what applies to the whole run (go's own errors, the lab's
// findings) and the summary line, and reports whether everything passed.
// Call it after Stage for every stage of the run.
func (p *Printer) Summary(run *Run, target catalog.Stage) bool {
	s := p.Style
	if p.folded > 0 {
		verbose := p.VerboseCommand
		if verbose == "" {
			verbose = "de test --verbose"
		}
		p.printf("\n%s\n", s.Dim(fmt.Sprintf("%d more %s on a line each; %s prints every one in full.",
			p.folded, map[bool]string{true: "failure", false: "failures"}[p.folded == 1], verbose)))
	}
	allOK := !p.failed && len(run.Result.Errors) == 0
	passed, total, firstFailure, shownBuildError := p.passed, p.total, p.firstFailure, p.shownBuildError
	counts := fmt.Sprintf("%d/%d passed", passed, total)
	if p.skipped > 0 {
		counts += fmt.Sprintf(", %d skipped", p.skipped)
	}
	for _, line := range run.Result.Errors {
		if !strings.HasPrefix(line, "go: ") {
			line = "go: " + line
		}
		p.printf("%s\n", s.Red(line))
	}
	if len(run.Findings) > 0 {
		allOK = false
		p.printf("\n%s\n", s.Red(s.Bold("de grade would give this lab no credit, whatever its tests say:")))
		for _, f := range run.Findings {
			p.printf("  %s %s\n", s.Red("✗"), f)
		}
		p.printf("A lab may import only the standard library and kit, and must not print, exit, read the\n" +
			"environment, carry a build constraint or run code at init time: the tests could not trust what\n" +
			"they see (docs/GRADING.md lists the rules). Until then no stage counts as passed.\n")
	}

	if unconfirmed := run.Unconfirmed(); len(unconfirmed) > 0 {
		allOK = false
		p.printf("\n%s\n", s.Red(s.Bold("de grade would credit none of these tests, though their output says they passed:")))
		for _, u := range limitLines(unconfirmed, 10) {
			p.printf("  %s %s\n", s.Red("✗"), u)
		}
		p.printf("A test counts when its suite's own report says it passed, not when the test binary's output\n" +
			"does: code that prints go test's lines can make the output say anything (docs/GRADING.md).\n" +
			"Until then no stage counts as passed.\n")
	}

	who := "your lab/"
	switch {
	case run.Tags == "solution":
		who = "the reference solution"
	case run.Tags == catalog.DrillReferenceEngine:
		who = "your job on the reference engine"
	case target.Track == catalog.Drill:
		who = "your job on your engine"
	}
	summary := fmt.Sprintf("%s — %s (%s, %s)", strings.ToLower(p.Cat.Position(target)), counts, StageRange(run.Stages), who)
	if allOK {
		p.printf("\n%s\n", s.Green(s.Bold(summary)))
		if run.Learner() {
			p.printf("%s\n", p.NextStep(target))
		}
	} else {
		p.printf("\n%s\n", s.Red(s.Bold(summary)))
		switch {
		case !run.Learner():
		case shownBuildError != "":
			p.printf("Next: fix the compile errors above, then run %s again.\n", s.Cyan("de test"))
		case firstFailure != "" && target.Track == catalog.Drill:
			p.printf("Next: fix %s first, then run %s again. Stuck? %s\n", firstFailure, s.Cyan("de drill test "+target.Slug), s.Cyan("de drill hint "+target.Slug))
		case firstFailure != "":
			p.printf("Next: fix %s first, then run %s again. Stuck? %s\n", firstFailure, s.Cyan("de test"), s.Cyan("de hint"))
		}
	}
	return allOK
}

// Failure prints why a failed test failed (its crash or hang, the
// skeleton's TODO, or what it printed) and the command that re-runs it
// alone. de test and de watch both show a failure this way.
func (p *Printer) Failure(t gotest.Test, tags string, st catalog.Stage) {
	s := p.Style
	switch {
	case len(t.Trace) > 0:
		p.printf("%s\n", indent(strings.Join(t.Trace, "\n"), "      "))
	case t.Hung:
	case t.NotImplemented != "":
		p.printf("      %s %s\n", s.Yellow("not implemented yet:"), t.NotImplemented)
	default:
		p.printf("%s\n", indent(strings.Join(limitLines(t.Output, 40), "\n"), "      "))
	}
	p.printf("      %s %s\n", s.Dim("re-run:"), s.Cyan(rerun(tags, t, st)))
}

// NextStep says what to do after target passed: start the next stage, or
// nothing left.
func (p *Printer) NextStep(target catalog.Stage) string {
	if target.Track == catalog.Drill {
		return fmt.Sprintf("Drill %s passed. Now read why it broke, the tempting wrong fixes and what each costs: de drill explain %s", target.Slug, target.Slug)
	}
	if after := p.Cat.ReadyAfter(target.Number); len(after) > 0 && after[0].Number == target.Number+1 {
		next := after[0]
		if next.Track != target.Track {
			return fmt.Sprintf("%s passed: that completes the %s track. If you want more, the %s track is next: de start %s (%s)", target.Ref(), target.Track, next.Track, next.Ref(), next.Title)
		}
		return fmt.Sprintf("%s passed. Next: de start %s (%s)", target.Ref(), next.Ref(), next.Title)
	}
	return fmt.Sprintf("%s passed: that is the last stage in this version of the course.", target.Ref())
}

func stageScore(s term.Style, p *gotest.Package, total int) string {
	score := fmt.Sprintf("%d/%d passed", p.Passed(), total)
	skipped := 0
	for _, t := range p.Tests {
		if t.Status == gotest.Skip {
			skipped++
		}
	}
	if skipped > 0 {
		score += fmt.Sprintf(", %d skipped", skipped)
	}
	if p.OK() && p.Passed()+skipped == total {
		return s.Green(score)
	}
	return s.Red(score)
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

// rerun is the go test command that re-runs one test by itself: with the
// race detector when that is what failed it.
func rerun(tags string, t gotest.Test, st catalog.Stage) string {
	race := ""
	if slices.ContainsFunc(t.Output, func(line string) bool { return strings.Contains(line, raceDetected) }) {
		race = "-race "
	}
	return fmt.Sprintf("go test %s-tags %s -run '^%s$' %s", race, tags, t.Name, st.Package())
}

// raceDetected is what the testing package prints in a test that the race
// detector failed.
const raceDetected = "race detected during execution of test"

// StageRange names the stages of a run, lowest first whatever order they
// ran in: "stage 01" or "stages 01–02"; a drill by its name, "drill
// quiet-partition".
func StageRange(sts []catalog.Stage) string {
	switch len(sts) {
	case 0:
		return "no stages"
	case 1:
		if sts[0].Track == catalog.Drill {
			return sts[0].Ref()
		}
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

// Changes prints, for de watch, the tests whose outcome changed since the
// last run and the summary line, and reports whether everything passed.
// Use it only for a run that reported every test (watch shows any other in
// full, with Report). A test the race detector's second pass failed counts
// as failed (Run.Merged).
func (p *Printer) Changes(r *Run, target catalog.Stage, changes []watch.Change) bool {
	s := p.Style
	tests := map[string]struct {
		st catalog.Stage
		t  gotest.Test
	}{}
	passed, skipped, total := 0, 0, 0
	res := r.Merged()
	for _, st := range r.Stages {
		pkg := res.Package(st.Package())
		for _, t := range pkg.Tests {
			tests[st.Ref()+" "+t.Name] = struct {
				st catalog.Stage
				t  gotest.Test
			}{st, t}
			total++
			switch t.Status {
			case gotest.Pass:
				passed++
			case gotest.Skip:
				skipped++
			}
		}
	}
	if len(changes) == 0 {
		p.printf("  %s\n", s.Dim("no test changed since the last run"))
	}
	for _, c := range changes {
		switch {
		case c.To == watch.Passed:
			p.printf("  %s %s %s\n", s.Green("✓"), c.Test, s.Green("now passes"))
		case c.To == watch.Failed:
			x := tests[c.Test]
			p.printf("  %s %s %s\n", s.Red("✗"), s.Bold(c.Test), s.Red("now fails"))
			p.Failure(x.t, r.Tags, x.st)
		default:
			p.printf("  %s %s %s\n", s.Yellow("-"), c.Test, s.Dim("no longer runs (skipped or removed)"))
		}
	}
	allOK := passed+skipped == total
	counts := fmt.Sprintf("%d/%d passed", passed, total)
	if skipped > 0 {
		counts += fmt.Sprintf(", %d skipped", skipped)
	}
	summary := fmt.Sprintf("%s — %s (%s, your lab/)", strings.ToLower(p.Cat.Position(target)), counts, StageRange(r.Stages))
	if allOK {
		p.printf("%s\n%s\n", s.Green(s.Bold(summary)), p.NextStep(target))
	} else {
		p.printf("%s\n", s.Red(s.Bold(summary)))
	}
	return allOK
}
