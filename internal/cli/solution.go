package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
)

func solutionCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:      "solution",
		Usage:     "show the reference files of a stage you have passed (--force: before, spoiling it)",
		ArgsUsage: "[FLK-BYO/NN]",
		Description: `Prints the reference solution's files for a stage (the current one by default),
once de test has passed it. --force shows them anyway, and spoils the stage.

Which files: those the catalogue (stages/catalog.json) lists for the stage,
in the reference's plain build: the files with the names of the stage's
skeleton files (stage 01: windows.go), then the reference's own helpers that
they use and no stage asks you to write (stage 01: windowstate.go, how a
window's state is held, and seen.go, the set of seen IDs). A stage without
skeleton files extends an earlier stage's files; stage 03 (allowed lateness)
shows windows.go, where lateness is implemented. The tuned build
(solutions/*_fast.go, go build -tags fast) is what de bench measures and
docs/PERFORMANCE.md explains. Nothing is written to lab/.`,
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
		shown++
		e.printf("\n%s\n\n%s\n", s.Cyan("── "+rel+" ──"), strings.TrimRight(string(data), "\n"))
	}
	if shown == 0 {
		return fmt.Errorf("no reference files for %s in solutions/ (looked for %s)", st.Ref(), strings.Join(files, ", "))
	}
	e.printf("\n%s\n", s.Dim("The reference is in package solutions; your lab/ is unchanged."))
	return nil
}
