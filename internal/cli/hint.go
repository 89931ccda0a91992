package cli

import (
	"fmt"

	"github.com/flk-byo/course/internal/catalog"

	ucli "github.com/urfave/cli/v2"
)

func hintCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "hint",
		Usage: "reveal the next hint of the current stage (they go from a nudge to near the answer)",
		Description: `Each stage has three hints, from a nudge to near the answer. de hint reveals the next one
and remembers, in .de/progress, how many you have seen; de start never prints them.`,
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.hint()
		},
	}
}

func (e *env) hint() error {
	st, err := e.current()
	if err != nil {
		return err
	}
	return e.nextHint(st)
}

// nextHint reveals st's next hint (a stage's or a drill's) and records it,
// or shows them all again once all are revealed.
func (e *env) nextHint(st catalog.Stage) error {
	card, err := e.cat.Card(st)
	if err != nil {
		return err
	}
	total := len(card.Hints)
	if total == 0 {
		e.printf("Stage %s has no hints.\n", st.Ref())
		return nil
	}
	shown := min(e.prog.Hints[st.ID()], total)
	s := e.style
	if shown == total {
		e.printf("%s\n", s.Dim(fmt.Sprintf("All %s of %s are revealed; here they are again.", plural(total, "hint"), st.Ref())))
		for i, h := range card.Hints {
			e.printf("\n%s\n%s\n", s.Bold(fmt.Sprintf("Hint %d of %d: %s", i+1, total, h.Title)), e.markdown(h.Text))
		}
		return nil
	}
	h := card.Hints[shown]
	e.prog.Hints[st.ID()] = shown + 1
	if err := e.prog.Save(e.root); err != nil {
		return err
	}
	e.printf("%s\n\n%s\n", s.Bold(fmt.Sprintf("Hint %d of %d for %s: %s", shown+1, total, st.Ref(), h.Title)), e.markdown(h.Text))
	if left := total - shown - 1; left > 0 {
		again := "de hint"
		if st.Track == catalog.Drill {
			again = "de drill hint " + st.Slug
		}
		e.printf("\n%s\n", s.Dim(fmt.Sprintf("%s left; run %s again for the next.", plural(left, "more hint"), again)))
	}
	return nil
}
