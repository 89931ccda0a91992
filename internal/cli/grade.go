package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/term"
)

func gradeCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:      "grade",
		Usage:     "score started stages (or --stage N, --all) per test and per stage, for an instructor or CI",
		ArgsUsage: " ",
		Description: `Runs the suites of the graded stages against lab/ and gives each test an equal
share of its stage's points. Checks the suite, bind, kit and helper files against
the ones this de was built with, and gives no credit for a stage whose files differ:
grade with a de built from the course's tagged version, not the student's tree
(docs/GRADING.md). Checks lab/ too: a lab that imports code the student did not
write gets no credit, and one that uses a construct that can forge or escape a test
is marked for review, with no points. A lab close to the course's own solutions
is flagged: by default its points wait for a person (--similar credit keeps them,
and marks the report instead). Appends a markdown summary to
$GITHUB_STEP_SUMMARY when set.

--format classroom writes GitHub Classroom's result object (what its grading
reporter adds up, test by test: partial credit) and, with $GITHUB_OUTPUT set,
appends it there as result=<base64>, even when de could not grade at all (then as
an error worth 0 points), so the reporter always has a result.

Exits 1 when the score is below --min-score, 2 when it could not grade. Never prompts.

Examples:
   de grade                                  every started stage, as text
   de grade --all --format json -o grade.json
   de grade --stage 3 --format junit         stage 03 only, as JUnit XML
   de grade --drill quiet-partition          one incident drill (its job, on the reference engine de carries)
   de grade --stage 1 --format classroom -o classroom.json --min-score 0
   de grade --min-score 80% --course ../alice`,
		Flags: append(timeoutFlags(2*time.Minute, time.Minute), []ucli.Flag{
			&ucli.StringSliceFlag{Name: "stage", Usage: "grade stage `NN` (repeat or comma-separate for several) instead of the started ones"},
			&ucli.BoolFlag{Name: "all", Usage: "grade every stage of the course"},
			&ucli.StringSliceFlag{Name: "drill", Usage: "grade the drill `NAME` too (repeat or comma-separate for several); without --stage or --all, only the drills"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`text`, json, junit or classroom"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` (the text report still goes to stdout)"},
			&ucli.StringSliceFlag{Name: "report", Usage: "also write the report as `FORMAT=FILE` (json=grade.json, junit=grade.xml; repeat for several), from the same run"},
			&ucli.StringFlag{Name: "min-score", Value: "100%", Usage: "exit 1 below this score: points (350) or a percentage of the graded stages' points (80%)"},
			&ucli.StringFlag{Name: "course", Usage: "grade the course tree in `DIR` instead of the current folder's"},
			&ucli.StringFlag{Name: "as-user", Usage: "run the tests as the user `NAME`, who can change none of de's files, inputs or outputs (Linux, as root: the Classroom workflow's way)"},
			&ucli.StringFlag{Name: "similar", Value: string(grade.Withhold), Usage: "what a lab close to the course's own solutions costs: `withhold` its points until a person has looked, or credit them and mark the report (never a plain pass)"},
			raceFlag("build every graded stage's suite with the race detector"),
		}...),
		Action: func(c *ucli.Context) error {
			format := c.String("format")
			if !slices.Contains(reportFormats, format) {
				return fmt.Errorf("--format %q: use text, json, junit or classroom", format)
			}
			err := gradeIn(c, io, format)
			var exit *exitError
			if format == "classroom" && err != nil && !errors.As(err, &exit) {
				classroomFailure(c, io, err)
			}
			return err
		},
	}
}

// gradeIn grades the course tree that --course names, or the current one.
func gradeIn(c *ucli.Context, io IO, format string) error {
	dir := io.Dir
	if d := c.String("course"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(io.Dir, d)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("--course %s: no such folder", c.String("course"))
		}
		dir = d
	}
	eio := io
	eio.Dir = dir
	e, err := loadEnv(eio)
	if err != nil {
		return err
	}
	return e.grade(c, format)
}

// classroomFailure gives GitHub Classroom's reporter a result for the
// stages --stage (or --all) names when de could not grade them: an error
// worth 0 points, appended to $GITHUB_OUTPUT and written to --output. A
// step without a result would stop the reporter, and every stage's
// points with it.
func classroomFailure(c *ucli.Context, io IO, cause error) {
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		return
	}
	var sts []catalog.Stage
	for _, st := range cat.Stages {
		for _, n := range c.StringSlice("stage") {
			if r, err := cat.Resolve(n); err == nil && r.Number == st.Number {
				sts = append(sts, st)
			}
		}
	}
	if c.Bool("all") {
		sts = cat.Ready()
	}
	if cat.LoadDrills(course.Drills()) == nil {
		for _, n := range c.StringSlice("drill") {
			if d, err := cat.ResolveReadyDrill(n); err == nil {
				sts = append(sts, d)
			}
		}
	}
	res := grade.ClassroomFailure(sts, cause)
	var out bytes.Buffer
	if grade.WriteClassroom(&out, res) == nil {
		if file := c.String("output"); file != "" {
			if !filepath.IsAbs(file) {
				file = filepath.Join(io.Dir, file)
			}
			_ = os.WriteFile(file, out.Bytes(), 0o644)
		}
	}
	if path := io.Getenv("GITHUB_OUTPUT"); path != "" {
		if line, err := grade.ClassroomOutput(res); err == nil {
			if err := appendFile(path, line); err != nil {
				fmt.Fprintf(io.Stderr, "de: warning: could not append to $GITHUB_OUTPUT: %v\n", err)
			}
		}
	}
}

func (e *env) grade(c *ucli.Context, format string) error {
	sts, err := e.gradedStages(c.StringSlice("stage"), c.Bool("all"), c.StringSlice("drill"))
	if err != nil {
		return err
	}
	if _, err := grade.MinPoints(c.String("min-score"), 0); err != nil {
		return err
	}
	reports, err := e.extraReports(c.StringSlice("report"))
	if err != nil {
		return err
	}
	if os.Geteuid() == 0 && c.String("as-user") == "" && e.Getenv("GITHUB_ACTIONS") == "true" {
		fmt.Fprintln(e.Stderr, e.style.Yellow("de: warning: grading as root without --as-user: the student's code runs as root, "+
			"and could rewrite de, its reports and the job's outputs (docs/GRADING.md)"))
	}
	policy := grade.Policy(c.String("similar"))
	if policy != grade.Withhold && policy != grade.Credit {
		return fmt.Errorf("--similar %q: use withhold (the default: no points until a person has looked) or credit", c.String("similar"))
	}
	live := newLiveLine(e.Stderr, term.For(e.Stderr, e.Getenv), e.Getenv)
	part := live.part("the suites of %d stages, to grade them", len(sts))
	race, err := e.raceIfSupported(c.Bool("race"))
	if err != nil {
		return err
	}
	r, err := grade.Run(c.Context, grade.Options{
		Root: e.root, Catalog: e.cat, Stages: sts, Pristine: course.Files, Reference: course.Reference, Solutions: e.solutions(),
		Race: race, Timeout: c.Duration("timeout"), TestTimeout: c.Duration("test-timeout"), OnTest: part.test,
		Similar: policy, AsUser: c.String("as-user"), Launcher: e.launcher(),
	})
	live.done()
	if err != nil {
		return err
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		r.DeVersion = bi.Main.Version
	}
	minPoints, _ := grade.MinPoints(c.String("min-score"), r.MaxPoints)

	out, err := renderReport(r, format, minPoints, e.style)
	if err != nil {
		return err
	}
	for _, extra := range reports {
		data, err := renderReport(r, extra.format, minPoints, e.style)
		if err == nil {
			err = os.WriteFile(extra.file, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("write the %s report: %w", extra.format, err)
		}
	}
	if format == "classroom" || slices.ContainsFunc(reports, func(x extraReport) bool { return x.format == "classroom" }) {
		if path := e.Getenv("GITHUB_OUTPUT"); path != "" {
			lines, err := grade.ClassroomOutput(grade.Classroom(r))
			if err == nil {
				err = appendFile(path, lines)
			}
			if err != nil {
				return fmt.Errorf("append the result to $GITHUB_OUTPUT: %w", err)
			}
		}
	}
	if file := c.String("output"); file != "" {
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Dir, file)
		}
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
		if format != "text" {
			grade.WriteText(e.Stdout, r, minPoints, e.style)
		}
	} else {
		if _, err := e.Stdout.Write(out); err != nil {
			return err
		}
	}
	if summary := e.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		if err := appendFile(summary, grade.Markdown(r, minPoints)); err != nil {
			fmt.Fprintf(e.Stderr, "de: warning: could not append to $GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	if err := e.recordGraded(c, r); err != nil {
		return err
	}
	if r.Points < minPoints {
		return quietFailure
	}
	return nil
}

// recordGraded records, when de grade graded the course it runs in (not
// --course another), each stage or drill that earned every point with no
// flag as passed in the progress file, as de test would have: a grade of
// 100 opens de solution and the next stage as a pass of de test does.
func (e *env) recordGraded(c *ucli.Context, r *grade.Report) error {
	if c.String("course") != "" {
		return nil
	}
	changed := false
	for _, st := range r.Stages {
		if st.Status == grade.Pass && st.Points == st.MaxPoints && !e.prog.Passed[st.Stage] {
			e.prog.Passed[st.Stage] = true
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return e.prog.Save(e.root)
}

// renderReport renders r in format: text, json, junit or classroom.
func renderReport(r *grade.Report, format string, minPoints int, style term.Style) ([]byte, error) {
	var out bytes.Buffer
	var err error
	switch format {
	case "json":
		err = grade.WriteJSON(&out, r)
	case "junit":
		err = grade.WriteJUnit(&out, r)
	case "classroom":
		err = grade.WriteClassroom(&out, grade.Classroom(r))
	default:
		grade.WriteText(&out, r, minPoints, style)
	}
	return out.Bytes(), err
}

// extraReport is one --report FORMAT=FILE.
type extraReport struct{ format, file string }

// extraReports parses --report values: each FORMAT=FILE, FILE relative to
// the current folder.
func (e *env) extraReports(values []string) ([]extraReport, error) {
	var out []extraReport
	for _, v := range values {
		format, file, ok := strings.Cut(v, "=")
		if !ok || file == "" || !slices.Contains(reportFormats, format) {
			return nil, fmt.Errorf("--report %q: give FORMAT=FILE, FORMAT one of %s", v, strings.Join(reportFormats, ", "))
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Dir, file)
		}
		out = append(out, extraReport{format, file})
	}
	return out, nil
}

// reportFormats are de grade's --format values.
var reportFormats = []string{"text", "json", "junit", "classroom"}

// launcher is the path of the de binary that runs: what de grade
// --as-user has go test run in place of each test binary.
func (e *env) launcher() string {
	if filepath.Base(e.program) == e.program {
		if p, err := exec.LookPath(e.program); err == nil {
			return p
		}
	}
	if p, err := filepath.Abs(e.program); err == nil {
		return p
	}
	return e.program
}

// solutions are the course's own solutions de grade measures a lab
// against: IO's, or all of them.
func (e *env) solutions() []grade.Solution {
	if e.Solutions != nil {
		return e.Solutions
	}
	return grade.Solutions(course.Reference, course.Independent)
}

// gradedStages picks the stages to grade, in course order: --stage, else
// --all, else every stage the progress file records as started or current.
//
// drills are the drills --drill names: graded after the stages, alone when
// neither --stage nor --all is given. Without any of the three, the started
// stages and drills are graded.
func (e *env) gradedStages(names []string, all bool, drills []string) ([]catalog.Stage, error) {
	var sts []catalog.Stage
	switch {
	case len(names) > 0 && all:
		return nil, errors.New("use --stage or --all, not both")
	case len(names) == 0 && !all && len(drills) > 0:
	case len(names) > 0:
		for _, n := range names {
			st, err := e.cat.ResolveReady(n)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(sts, func(s catalog.Stage) bool { return s.Number == st.Number }) {
				sts = append(sts, st)
			}
		}
		slices.SortFunc(sts, func(a, b catalog.Stage) int { return a.Number - b.Number })
	default:
		for _, st := range e.cat.Ready() {
			if all || e.prog.Started[st.ID()] || e.prog.Current == st.ID() {
				sts = append(sts, st)
			}
		}
		if !all {
			for _, d := range e.cat.ReadyDrills() {
				if e.prog.Started[d.ID()] {
					sts = append(sts, d)
				}
			}
		}
	}
	for _, n := range drills {
		d, err := e.cat.ResolveReadyDrill(n)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(sts, func(s catalog.Stage) bool { return s.ID() == d.ID() }) {
			sts = append(sts, d)
		}
	}
	if len(sts) == 0 {
		return nil, errors.New("nothing to grade: .de/progress records no started stage; use --all or --stage N")
	}
	return sts, nil
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
