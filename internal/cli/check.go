package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/mutants"
	"github.com/flk-byo/course/internal/skeletoncheck"
)

func checkCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:     "check",
		Category: "maintainer",
		Usage:    "prove each stage's tests fail on the untouched skeletons, or (--mutants) catch the classic mistakes (course maintainers, CI)",
		Description: `For each ready stage N (or --stage N), composes the skeletons 01..N into a scratch
lab/ in a copy of the course, compiles suites 01..N against it, and fails if any
test of stage N passes there. Then, for each ready drill (or --drill NAME), copies
its untouched job into lab/drills/ of a copy of the course and fails if any of its
TestReproduce tests passes there: the symptom must show before the fix.

With --mutants, runs the catalogue of classic mistakes in mutants/ instead (or
those of --stage N or --drill NAME, or the one --mutant NAME; a drill's mutants
are its classic wrong fixes, applied to its reference fix): each mutant's suite runs on the
reference with that one mistake put in through go test -overlay, and the check
fails naming every mutant that survives, is caught only by tests other than the
ones it lists, or no longer applies to the reference.

Examples:
   de check                          the skeleton check, every ready stage
   de check --mutants                every mutant in mutants/
   de check --mutants --stage 3      the mutants of stage 03
   de check --mutant end-inclusive   one mutant (also 01-windows/end-inclusive)
   de check --drill quiet-partition  one drill: its reproduce tests fail on the untouched job`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "stage", Usage: "check only stage `NN`"},
			&ucli.StringFlag{Name: "drill", Usage: "check only the drill `NAME` (its reproduce tests must fail on the untouched job; with --mutants, its wrong fixes)"},
			&ucli.BoolFlag{Name: "mutants", Usage: "run the catalogue of classic mistakes (mutants/) instead of the skeleton check"},
			&ucli.StringFlag{Name: "mutant", Usage: "run only the mutant `NAME` (implies --mutants)"},
			&ucli.BoolFlag{Name: "later", Usage: "with --mutants, also run the later stages' suites and name which of their tests catch each mutant"},
			&ucli.IntFlag{Name: "parallel", Usage: "with --mutants, run up to `N` mutants at once (default GOMAXPROCS)"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			if c.Bool("mutants") || c.String("mutant") != "" {
				return e.checkMutants(c)
			}
			if c.Bool("later") || c.IsSet("parallel") {
				return fmt.Errorf("--later and --parallel go with --mutants")
			}
			sts := slices.Concat(e.cat.Ready(), e.cat.ReadyDrills())
			switch {
			case c.String("stage") != "" && c.String("drill") != "":
				return errors.New("--stage and --drill each name what to check: give one")
			case c.String("stage") != "":
				st, err := e.cat.ResolveReady(c.String("stage"))
				if err != nil {
					return err
				}
				sts = []catalog.Stage{st}
			case c.String("drill") != "":
				d, err := e.cat.ResolveReadyDrill(c.String("drill"))
				if err != nil {
					return err
				}
				sts = []catalog.Stage{d}
			}
			results, err := skeletoncheck.Skeletons(c.Context, e.root, e.cat, sts, func(st catalog.Stage) {
				if st.Track == catalog.Drill {
					fmt.Fprintf(e.Stderr, "checking drill %s against its untouched job …\n", st.Slug)
					return
				}
				fmt.Fprintf(e.Stderr, "checking %s against skeletons 01..%02d …\n", st.ID(), st.Number)
			})
			if err != nil {
				return err
			}
			return e.printSkeletonResults(results)
		},
	}
}

func (e *env) printSkeletonResults(results []skeletoncheck.SkeletonResult) error {
	s := e.style
	e.printf("%-24s %6s %18s  %s\n", "stage", "tests", "fail on skeleton", "result")
	bad := 0
	for _, r := range results {
		verdict := s.Green("ok")
		if len(r.Problems) > 0 {
			verdict = s.Red("UNSOUND")
			bad++
		}
		e.printf("%-24s %6d %18d  %s\n", r.Stage.ID(), r.Tests, r.Failed, verdict)
		for _, p := range r.Problems {
			e.printf("    %s\n", p)
		}
	}
	if bad > 0 {
		return failed(fmt.Errorf("skeleton check: %d of %d stages have tests that cannot fail or suites that do not compile", bad, len(results)))
	}
	return nil
}

// mutantsDir is the catalogue of classic mistakes, relative to the root.
const mutantsDir = "mutants"

// checkMutants runs the mutants the flags select and prints their table.
func (e *env) checkMutants(c *ucli.Context) error {
	all, err := mutants.Load(os.DirFS(filepath.Join(e.root, mutantsDir)))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no mutant catalogue: %s/ is missing from the course", mutantsDir)
	}
	if err != nil {
		return err
	}
	var problems []string
	for _, m := range all {
		st, ok := e.cat.Find(m.Stage)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: %s/%s is not the folder of a stage in stages/catalog.json or of a drill in drills/catalog.json", m.ID(), mutantsDir, m.Stage))
		}
		if m.RerunStage != "" && !slices.ContainsFunc(st.Reruns, func(r catalog.Rerun) bool {
			return r.Tag == m.RerunTag && slices.ContainsFunc(r.Stages, func(s catalog.Stage) bool { return s.ID() == m.RerunStage })
		}) {
			problems = append(problems, fmt.Sprintf("%s: rerun %s %s is not one of stage %s's reruns in stages/catalog.json", m.ID(), m.RerunStage, m.RerunTag, m.Stage))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the mutant catalogue has %d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}

	stage := ""
	if name := c.String("stage"); name != "" {
		st, err := e.cat.Resolve(name)
		if err != nil {
			return err
		}
		stage = st.ID()
	}
	if name := c.String("drill"); name != "" {
		d, err := e.cat.ResolveDrill(name)
		if err != nil {
			return err
		}
		stage = d.ID()
	}
	if stage == "" && c.String("mutant") == "" {
		all = mutants.OfReadyStages(all, func(stage string) bool {
			st, _ := e.cat.Find(stage)
			return st.Ready
		})
	}
	ms := mutants.Filter(all, stage, c.String("mutant"))
	switch {
	case len(ms) == 0 && c.String("mutant") != "":
		return fmt.Errorf("no mutant %q%s; the catalogue has %s", c.String("mutant"), inStage(stage), mutantNames(mutants.Filter(all, stage, "")))
	case len(ms) == 0:
		return fmt.Errorf("no mutants%s in %s/", inStage(stage), mutantsDir)
	case len(ms) > 1 && c.String("mutant") != "":
		return fmt.Errorf("mutant name %q is ambiguous: %s; give the stage too", c.String("mutant"), mutantNames(ms))
	}

	opts := mutants.Options{Root: e.root, Parallel: c.Int("parallel")}
	if c.Bool("later") {
		opts.Packages = func(m mutants.Mutant) []string {
			pkgs := []string{m.Package()}
			own, _ := e.cat.ByID(m.Stage)
			if m.Drill() {
				return pkgs // a drill has no later stages
			}
			for _, st := range e.cat.ReadyAfter(own.Number) {
				pkgs = append(pkgs, st.Package())
			}
			return pkgs
		}
	}
	width := len(fmt.Sprint(len(ms)))
	opts.Progress = func(done, total int, r mutants.Result) {
		fmt.Fprintf(e.Stderr, "[%*d/%d] %-28s %s (%.1fs)\n", width, done, total, r.Verdict, r.Mutant.ID(), r.Elapsed.Seconds())
	}
	fmt.Fprintf(e.Stderr, "running %d mutant(s), each with go test -overlay on its stage's suite …\n", len(ms))
	started := time.Now()
	results, err := mutants.Run(c.Context, ms, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "done in %.1fs\n", time.Since(started).Seconds())
	return e.printMutantResults(results, c.Bool("later"))
}

func inStage(stage string) string {
	if stage == "" {
		return ""
	}
	return " in stage " + stage
}

// mutantNames lists the IDs of ms for an error message.
func mutantNames(ms []mutants.Mutant) string {
	if len(ms) == 0 {
		return "none"
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID())
	}
	return strings.Join(ids, ", ")
}

// printMutantResults prints one row per mutant (a test per line when it
// names several), the reason under each one that is not caught as listed
// (with others, the other tests that caught a caught one too), and returns
// an error naming those not caught as listed.
func (e *env) printMutantResults(results []mutants.Result, others bool) error {
	s := e.style
	wName, wStage, wTest := len("mutant"), len("stage"), len("must be caught by")
	for _, r := range results {
		wName = max(wName, len(r.Mutant.Name))
		wStage = max(wStage, len(r.Mutant.Stage))
		for _, t := range r.Mutant.CaughtBy {
			wTest = max(wTest, len(t))
		}
	}
	e.printf("%-*s  %-*s  %-*s  %s\n", wName, "mutant", wStage, "stage", wTest, "must be caught by", "result")
	var bad []string
	for _, r := range results {
		verdict := string(r.Verdict)
		switch r.Verdict {
		case mutants.Caught:
			verdict = s.Green(verdict)
		case mutants.CaughtByOthers:
			verdict = s.Yellow(verdict) + ": " + strings.Join(r.Others, ", ")
		default:
			verdict = s.Red(verdict)
		}
		if !r.OK() {
			bad = append(bad, fmt.Sprintf("%s (%s)", r.Mutant.ID(), r.Verdict))
		}
		for i, t := range r.Mutant.CaughtBy {
			if i == 0 {
				e.printf("%-*s  %-*s  %-*s  %s\n", wName, r.Mutant.Name, wStage, r.Mutant.Stage, wTest, t, verdict)
			} else {
				e.printf("%-*s  %-*s  %s\n", wName, "", wStage, "", t)
			}
		}
		for _, line := range mutantDetail(r) {
			e.printf("    %s\n", line)
		}
		if others && r.Verdict == mutants.Caught && len(r.Others) > 0 {
			e.printf("    %s\n", s.Dim("also failed: "+strings.Join(r.Others, ", ")))
		}
	}
	caught := len(results) - len(bad)
	e.printf("\n%d mutant(s): %d caught as listed, %d not\n", len(results), caught, len(bad))
	if len(bad) > 0 {
		return failed(fmt.Errorf("mutants not caught as listed: %s", strings.Join(bad, ", ")))
	}
	return nil
}

// mutantDetail returns the lines that explain a result that is not a pass.
func mutantDetail(r mutants.Result) []string {
	m := r.Mutant
	var lines []string
	switch r.Verdict {
	case mutants.Caught:
		return nil
	case mutants.Survived:
		lines = append(lines, fmt.Sprintf("every test of %s passed with this mistake in %s: %s", m.Stage, m.File, m.Mistake))
	case mutants.PartlyCaught:
		lines = append(lines, "failed: "+strings.Join(r.Failed, ", "), "passed, though listed: "+strings.Join(r.Missed, ", "))
	case mutants.CaughtByOthers:
		lines = append(lines, "the listed test(s) passed: "+strings.Join(r.Missed, ", "))
	case mutants.NotApplied, mutants.Broken:
		lines = append(lines, strings.Split(r.Detail, "\n")...)
	}
	if r.Verdict == mutants.NotApplied {
		lines = append(lines, fmt.Sprintf("%s changed since this mutant was written: update %s/%s%s to the current code", m.File, mutantsDir, m.ID(), mutants.Ext))
	}
	if r.Verdict == mutants.PartlyCaught && len(r.Others) > 0 {
		lines = append(lines, "also failed: "+strings.Join(r.Others, ", "))
	}
	return lines
}
