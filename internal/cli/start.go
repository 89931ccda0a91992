package cli

import (
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/coursedir"
)

func startCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:         "start",
		Usage:        "start a stage: copy its skeleton into lab/ (never overwriting a file) and show its card",
		ArgsUsage:    "FLK-BYO/NN",
		BashComplete: completeStages,
		Description: `Accepts FLK-BYO/02, FLK-BYO/02-keyed-partitioning, 02, 2 or keyed-partitioning.
A stage can be started once every earlier stage has passed de test; --force starts it anyway.
Files already in lab/ are kept as they are.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "force", Usage: "start even though an earlier stage has not passed"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.start(c.Args().Slice(), c.Bool("force"))
		},
	}
}

func (e *env) start(args []string, force bool) error {
	if len(args) != 1 {
		return errors.New("de start takes one stage, e.g. de start FLK-BYO/01")
	}
	st, err := e.cat.ResolveReady(args[0])
	if err != nil {
		return err
	}
	upTo := e.cat.ReadyThrough(st.Number)
	if !force {
		for _, prev := range upTo[:len(upTo)-1] {
			if !e.prog.Passed[prev.ID()] {
				return fmt.Errorf("stage %s builds on %s, which has not passed yet: finish it with de test, or start anyway with de start --force %s", st.Ref(), prev.Ref(), st.Ref())
			}
		}
	}
	card, err := e.cat.Card(st)
	if err != nil {
		return err
	}
	// Skeletons of every stage up to this one: with --force, earlier
	// stages' files are needed for lab/ to compile. Existing files are kept.
	copied, err := coursedir.CopySkeletons(e.root, e.cat, upTo)
	if err != nil {
		return err
	}
	e.prog.Started[st.ID()] = true
	e.prog.Current = st.ID()
	if err := e.prog.Save(e.root); err != nil {
		return err
	}

	s := e.style
	e.printf("%s\n\n", s.Bold(fmt.Sprintf("%s · %s", st.Ref(), st.Title)))
	e.printf("%s\n", e.markdown(strings.TrimSpace(card.Body)))
	e.printf("\n%s\n", s.Bold("Your files"))
	for _, f := range copied.Created {
		e.printf("  %s %s\n", s.Green("created"), f)
	}
	for _, f := range copied.Kept {
		e.printf("  %s %s %s\n", s.Dim("kept"), f, s.Dim("(already there: yours, left as it is)"))
	}
	if len(copied.Created)+len(copied.Kept) == 0 {
		e.printf("  no new files: this stage extends the files you already have\n")
	}
	e.printf("\n%s edit the files above, then run %s. ", s.Bold("Next:"), s.Cyan("de test"))
	if n := len(card.Hints); n > 0 {
		e.printf("Stuck? %s reveals %s, one at a time.", s.Cyan("de hint"), plural(n, "hint"))
	}
	e.printf("\n")
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
