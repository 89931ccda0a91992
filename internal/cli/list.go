package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

func listCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:    "list",
		Aliases: []string{"status"},
		Usage:   "show every stage with its state and a progress bar",
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			e.list()
			return nil
		},
	}
}

func (e *env) list() {
	s := e.style
	passed := 0
	for _, st := range e.cat.Stages {
		if e.prog.Passed[st.ID()] {
			passed++
		}
	}
	total := len(e.cat.Stages)
	const width = 24
	filled := passed * width / total
	bar := s.Green(strings.Repeat("█", filled)) + s.Dim(strings.Repeat("░", width-filled))
	e.printf("%s\n%s %d of %d stages passed\n\n", s.Bold("FLK-BYO — "+e.cat.Title), bar, passed, total)
	for _, st := range e.cat.Stages {
		id := st.ID()
		var state string
		switch {
		case !st.Ready:
			state = s.Dim("· coming soon")
		case id == e.prog.Current && e.prog.Passed[id]:
			state = s.Green("✓ passed") + s.Cyan(" ▶ current")
		case id == e.prog.Current:
			state = s.Cyan("▶ current")
		case e.prog.Passed[id]:
			state = s.Green("✓ passed")
		case e.prog.Started[id]:
			state = s.Yellow("… started")
		default:
			state = s.Dim("· not started")
		}
		if n := e.prog.Hints[id]; n > 0 {
			state += s.Dim(fmt.Sprintf(" (%s seen)", plural(n, "hint")))
		}
		e.printf("  %s  %-20s %-30s %s\n", st.Ref(), st.Slug, st.Title, state)
	}
	if e.prog.Current == "" {
		e.printf("\nStart with %s.\n", s.Cyan("de start FLK-BYO/01"))
	}
}
