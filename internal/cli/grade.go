package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	ucli "github.com/urfave/cli/v2"

	course "github.com/flk-byo/course"
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
(docs/GRADING.md). Appends a markdown summary to $GITHUB_STEP_SUMMARY when set.
Exits 1 when the score is below --min-score. Never prompts.

Examples:
   de grade                                  every started stage, as text
   de grade --all --format json -o grade.json
   de grade --stage 3 --format junit         stage 03 only, as JUnit XML
   de grade --min-score 80% --course ../alice`,
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "stage", Usage: "grade stage `NN` (repeat or comma-separate for several) instead of the started ones"},
			&ucli.BoolFlag{Name: "all", Usage: "grade every stage of the course"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`text`, json or junit"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` (the text report still goes to stdout)"},
			&ucli.StringFlag{Name: "min-score", Value: "100%", Usage: "exit 1 below this score: points (350) or a percentage of the graded stages' points (80%)"},
			&ucli.StringFlag{Name: "course", Usage: "grade the course tree in `DIR` instead of the current folder's"},
			&ucli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "time allowed per stage before its running test is reported as hung"},
			&ucli.BoolFlag{Name: "race", Value: true, Usage: "build with the race detector (needs cgo); --race=false to turn off"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("de grade takes no arguments (got %q); name stages with --stage", c.Args().First())
			}
			format := c.String("format")
			if !slices.Contains([]string{"text", "json", "junit"}, format) {
				return fmt.Errorf("--format %q: use text, json or junit", format)
			}
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
		},
	}
}

func (e *env) grade(c *ucli.Context, format string) error {
	sts, err := e.gradedStages(c.StringSlice("stage"), c.Bool("all"))
	if err != nil {
		return err
	}
	if _, err := grade.MinPoints(c.String("min-score"), 0); err != nil {
		return err
	}
	live := newLiveLine(e.Stderr, term.For(e.Stderr, e.Getenv))
	live.printf("grading %d stages …", len(sts))
	r, err := grade.Run(c.Context, grade.Options{
		Root: e.root, Catalog: e.cat, Stages: sts, Pristine: course.Pristine,
		Race: c.Bool("race"), Timeout: c.Duration("timeout"), OnTest: live.test,
	})
	live.done()
	if err != nil {
		return err
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		r.DeVersion = bi.Main.Version
	}
	minPoints, _ := grade.MinPoints(c.String("min-score"), r.MaxPoints)

	var out bytes.Buffer
	switch format {
	case "json":
		err = grade.WriteJSON(&out, r)
	case "junit":
		err = grade.WriteJUnit(&out, r)
	default:
		grade.WriteText(&out, r, minPoints, e.style)
	}
	if err != nil {
		return err
	}
	if file := c.String("output"); file != "" {
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Dir, file)
		}
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
		if format != "text" {
			grade.WriteText(e.Stdout, r, minPoints, e.style)
		}
	} else {
		if _, err := e.Stdout.Write(out.Bytes()); err != nil {
			return err
		}
	}
	if summary := e.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		if err := appendFile(summary, grade.Markdown(r, minPoints)); err != nil {
			fmt.Fprintf(e.Stderr, "de: warning: could not append to $GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	if r.Points < minPoints {
		return quietFailure
	}
	return nil
}

// gradedStages picks the stages to grade, in course order: --stage, else
// --all, else every stage the progress file records as started or current.
func (e *env) gradedStages(names []string, all bool) ([]catalog.Stage, error) {
	var sts []catalog.Stage
	switch {
	case len(names) > 0 && all:
		return nil, errors.New("use --stage or --all, not both")
	case len(names) > 0:
		for _, n := range names {
			st, err := e.cat.Resolve(n)
			if err != nil {
				return nil, err
			}
			if !st.Ready {
				return nil, fmt.Errorf("stage %s (%s) is not in this version of the course yet", st.Ref(), st.Slug)
			}
			if !slices.ContainsFunc(sts, func(s catalog.Stage) bool { return s.Number == st.Number }) {
				sts = append(sts, st)
			}
		}
		slices.SortFunc(sts, func(a, b catalog.Stage) int { return a.Number - b.Number })
	default:
		for _, st := range e.cat.Stages {
			if st.Ready && (all || e.prog.Started[st.ID()] || e.prog.Current == st.ID()) {
				sts = append(sts, st)
			}
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
