package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/catalog"

	ucli "github.com/urfave/cli/v2"
)

func listCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:    "list",
		Aliases: []string{"status"},
		Usage:   "show every stage with its state and a progress bar",
		Description: `Lists every stage with its state (passed, current, started, not started, coming soon),
the core and the extensions each under its own heading, with a progress bar over the
core stages; the extensions are counted on a line of their own (those ready, and how
many more are coming).`,
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
	core := e.cat.Track(catalog.Core)
	passed := e.passed(core)
	const width = 24
	filled := passed * width / max(len(core), 1)
	bar := s.Green(strings.Repeat("█", filled)) + s.Dim(strings.Repeat("░", width-filled))
	e.printf("%s\n%s %d of %d stages passed\n", s.Bold("FLK-BYO — "+e.cat.Title), bar, passed, len(core))
	if ext := e.cat.Track(catalog.Extension); len(ext) > 0 {
		ready := slices.DeleteFunc(slices.Clone(ext), func(st catalog.Stage) bool { return !st.Ready })
		line := fmt.Sprintf("extensions: %d of %d passed", e.passed(ready), len(ready))
		if soon := len(ext) - len(ready); soon > 0 {
			line += fmt.Sprintf(", %d more coming soon", soon)
		}
		e.printf("%s\n", s.Dim(line))
	}
	if drills := e.cat.ReadyDrills(); len(drills) > 0 {
		e.printf("%s\n", s.Dim(fmt.Sprintf("incident drills: %d of %d passed (de drill list)", e.passed(drills), len(drills))))
	}
	for _, t := range e.cat.Tracks() {
		e.printf("\n%s\n", s.Bold(e.cat.TrackHeading(t)))
		for _, st := range e.cat.Track(t) {
			e.printf("  %s  %-20s %-34s %s\n", st.Ref(), st.Slug, st.Title, e.stageState(st))
		}
	}
	if e.prog.Current == "" {
		e.printf("\nStart with %s.\n", s.Cyan("de start "+e.cat.Stages[0].Ref()))
	}
}

// passed returns how many of sts .de/progress records as passed.
func (e *env) passed(sts []catalog.Stage) int {
	n := 0
	for _, st := range sts {
		if e.prog.Passed[st.ID()] {
			n++
		}
	}
	return n
}

// stageState is a stage's column in de list: coming soon, current, passed,
// started or not, and the hints seen.
func (e *env) stageState(st catalog.Stage) string {
	s := e.style
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
	return state
}
