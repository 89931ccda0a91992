package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/refview"
)

func solutionCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:      "solution",
		Usage:     "show the reference files of a stage you have passed (--force: before, spoiling it)",
		ArgsUsage: "[FLK-BYO/NN]",
		Description: `Prints the reference solution for a stage (the current one by default), once
de test has passed it. --force shows it anyway, and spoils the stage.

Which files: those the catalogue (stages/catalog.json) lists for the stage,
in the reference's plain build: the files with the names of the stage's
skeleton files (stage 01: windows.go), then the reference's own helpers that
they use and no stage asks you to write (stage 01: windowstate.go, how a
window's state is held, and seen.go, the set of seen IDs).

As of the stage: the reference holds every stage, and later stages add
code to earlier stages' files. de solution shows each file as it stands at
the stage, without what later stages add, and after it names those stages.
A file an earlier stage showed is not shown again whole: you see the
declarations this stage adds to, its lines marked +. Stage 03 (allowed
lateness), which has no skeleton files, shows what it adds to windows.go.

The tuned build (solutions/*_fast.go, go build -tags fast) is what de bench
measures and docs/PERFORMANCE.md explains. Nothing is written to lab/.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "force", Usage: "show the reference even though the stage has not passed (spoils it)"},
		},
		BashComplete: completeStages,
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.solution(c.Args().Slice(), c.Bool("force"))
		},
	}
}

func (e *env) solution(args []string, force bool) error {
	var st catalog.Stage
	var err error
	switch len(args) {
	case 0:
		st, err = e.current()
	case 1:
		st, err = e.cat.ResolveReady(args[0])
	default:
		err = errors.New("de solution takes at most one stage, e.g. de solution FLK-BYO/01")
	}
	if err != nil {
		return err
	}
	s := e.style
	if !e.prog.Passed[st.ID()] {
		if !force {
			return fmt.Errorf("%s has not passed yet: the reference would spoil it. Pass it with de test (de hint helps), or see it anyway with de solution --force %s", st.Ref(), st.Ref())
		}
		fmt.Fprintf(e.Stderr, "%s\n", s.Yellow(fmt.Sprintf("Spoiler: %s has not passed yet; here is the reference anyway (--force).", st.Ref())))
	}
	if !coursedir.HasReference(e.root) {
		return errNoReference("de solution shows its files")
	}
	files, note := st.Solution, st.SolutionNote
	e.printf("%s\n", s.Bold(fmt.Sprintf("Reference solution for %s · %s", st.Ref(), st.Title)))
	if note != "" {
		e.printf("%s\n", s.Dim("("+note+")"))
	}
	shown := 0
	for _, name := range files {
		rel := "solutions/" + name
		data, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			continue // a skeleton file with no reference twin
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		if err := e.showReferenceFile(st, rel, data); err != nil {
			return err
		}
		shown++
	}
	if shown == 0 {
		return fmt.Errorf("no reference files for %s in solutions/ (looked for %s)", st.Ref(), strings.Join(files, ", "))
	}
	e.printf("\n%s\n", s.Dim("The reference is in package solutions; your lab/ is unchanged."))
	return nil
}

// showReferenceFile prints the reference file rel as of stage st: whole if
// st is the first stage that shows it, else the declarations st adds to
// (its lines marked +), and then which later stages add to it.
func (e *env) showReferenceFile(st catalog.Stage, rel string, data []byte) error {
	s := e.style
	name := strings.TrimPrefix(rel, "solutions/") // as the catalogue names it: "windows.go", "pebblestate/pebble.go"
	first, _ := e.cat.FirstShowing(name)
	f, err := refview.Parse(data, first.Number)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	v := f.At(st.Number)
	var parts [][]refview.Line
	if first.Number < st.Number {
		if parts, err = v.Excerpt(st.Number); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
	}
	if len(parts) == 0 {
		e.printf("\n%s\n\n%s\n", s.Cyan("── "+rel+" ──"), strings.TrimRight(string(v.Source()), "\n"))
	} else {
		e.printf("\n%s\n", s.Cyan(fmt.Sprintf("── %s · what stage %02d adds, marked + ──", rel, st.Number)))
		for i, part := range parts {
			if i > 0 {
				e.printf("\n%s\n", s.Dim("  ⋮"))
			}
			e.printf("\n")
			for _, l := range part {
				if l.Stage == st.Number {
					e.printf("%s\n", s.Green(strings.TrimRight("+ "+l.Text, " ")))
				} else {
					e.printf("%s\n", strings.TrimRight("  "+l.Text, " "))
				}
			}
		}
	}
	if later := e.laterStages(v.Omitted); later != "" {
		e.printf("\n%s\n", s.Dim(fmt.Sprintf("Later stages add to %s: %s.", name, later)))
	}
	return nil
}

// laterStages describes the regions a view left out: each stage with its
// title and what it adds, "03 Allowed lateness (correcting a fired window),
// 07 Source idleness (following upstream watermarks only)".
func (e *env) laterStages(omitted []refview.Region) string {
	var stages []int
	labels := map[int][]string{}
	for _, r := range omitted {
		if !slices.Contains(stages, r.Stage) {
			stages = append(stages, r.Stage)
		}
		if !slices.Contains(labels[r.Stage], r.Label) {
			labels[r.Stage] = append(labels[r.Stage], r.Label)
		}
	}
	slices.Sort(stages)
	var out []string
	for _, n := range stages {
		title := ""
		if n <= len(e.cat.Stages) {
			title = " " + e.cat.Stages[n-1].Title
		}
		out = append(out, fmt.Sprintf("%02d%s (%s)", n, title, strings.Join(labels[n], "; ")))
	}
	return strings.Join(out, ", ")
}
