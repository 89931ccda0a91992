package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/reset"
)

func resetCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "reset",
		Usage: "put the current stage's skeleton files back in lab/, your versions moved to .de/backup/",
		Description: `Every file of the stage that differs from its skeleton is first moved to
.de/backup/<timestamp>/lab/<name>, byte for byte; then the skeleton is written.
Nothing is deleted. Asks before changing anything unless --yes. With --all, every
started stage is reset. A reset stage is no longer marked passed: de test records it again.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			&ucli.BoolFlag{Name: "all", Usage: "reset every started stage, not only the current one"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.reset(c.Bool("all"), c.Bool("yes"), e.Stdin, time.Now())
		},
	}
}

func (e *env) reset(all, yes bool, answers io.Reader, now time.Time) error {
	cur, err := e.current()
	if err != nil {
		return err
	}
	sts := []catalog.Stage{cur}
	if all {
		sts = nil
		for _, st := range e.cat.Stages {
			if e.prog.Started[st.ID()] || st.ID() == cur.ID() {
				sts = append(sts, st)
			}
		}
	}
	what := cur.Ref()
	if all {
		what = "every started stage"
	}
	return e.resetTo(sts, what, "de reset --yes", yes, answers, now)
}

// resetTo puts the skeleton files of sts back, after showing the plan and
// asking (unless yes); what names them in the messages, yesCommand is the
// command that skips the question. The stages are no longer marked passed.
func (e *env) resetTo(sts []catalog.Stage, what, yesCommand string, yes bool, answers io.Reader, now time.Time) error {
	plan, err := reset.PlanFor(e.root, e.cat, sts)
	if err != nil {
		return err
	}
	s := e.style
	to, next := "the skeleton", "de test"
	if len(sts) == 1 && sts[0].Track == catalog.Drill {
		to, next = "its untouched job", "de drill test "+sts[0].Slug
	}
	if len(plan.Move)+len(plan.Create)+len(plan.Unchanged) == 0 {
		e.printf("%s has no skeleton files of its own (it extends files of earlier stages): nothing to reset. de reset --all resets every started stage.\n", what)
		return nil
	}
	if plan.Empty() {
		e.printf("Nothing to reset: the files of %s are %s already.\n", what, to)
		return nil
	}
	e.printf("%s\n", s.Bold("Resetting "+what+":"))
	for _, f := range plan.Move {
		e.printf("  %s %s %s\n", s.Yellow("back up"), f, s.Dim("(your version goes to "+reset.BackupDir+"/…)"))
	}
	for _, f := range plan.Create {
		e.printf("  %s %s %s\n", s.Green("create"), f, s.Dim("(missing)"))
	}
	if !yes {
		e.printf("Reset %s? [y/N] ", plural(len(plan.Move)+len(plan.Create), "file"))
		line, _ := bufio.NewReader(answers).ReadString('\n')
		e.printf("\n")
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return fmt.Errorf("reset cancelled: nothing was changed (answer y, or run %s)", yesCommand)
		}
	}
	res, err := reset.Reset(e.root, e.cat, sts, now)
	if err != nil {
		return err
	}
	for _, st := range sts {
		delete(e.prog.Passed, st.ID())
	}
	if err := e.prog.Save(e.root); err != nil {
		return err
	}
	if res.Backup != "" {
		e.printf("Your versions are in %s/ (same paths); copy a file back to undo.\n", res.Backup)
	}
	e.printf("%s %s reset to %s. Run %s to see where you stand.\n", s.Green("✓"), what, to, s.Cyan(next))
	return nil
}
