package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/demo"
	"github.com/flk-byo/course/internal/term"
)

func demoCommand(sio IO) *ucli.Command {
	return &ucli.Command{
		Name:      "demo",
		Usage:     "watch the reference solve a small scripted stream, narrated with timelines",
		ArgsUsage: "[FLK-BYO/NN]",
		Description: `Runs the reference implementation on a few events chosen to show the stage's point:
out-of-order and duplicated events (01), parallel workers (02), a late correction (03),
a snapshot and restore (04), a crash between pre-commit and commit (05), a rescale (06),
a quiet partition with and without idleness (07), a late bridge between sessions (08).
Without a stage: the current stage's demo, or 01's. --step waits for Enter between steps.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "step", Usage: "wait for Enter before each step"},
		},
		Action: func(c *ucli.Context) error {
			return runDemo(sio, c.Args().Slice(), c.Bool("step"))
		},
	}
}

// runDemo works outside a course checkout too: the demos need only the
// reference, which de is built with. The course on disk only names the
// current stage when no stage is given.
func runDemo(sio IO, args []string, step bool) error {
	if len(args) > 1 {
		return errors.New("de demo takes at most one stage, e.g. de demo FLK-BYO/03")
	}
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		return err
	}
	st := cat.Stages[0]
	if len(args) == 1 {
		if st, err = cat.Resolve(args[0]); err != nil {
			return err
		}
	} else if e, err := loadEnv(sio); err == nil && e.prog.Current != "" {
		if cur, err := e.current(); err == nil {
			st = cur
		}
	}
	if !demo.Available() {
		return errNoReference("de demo runs the reference on a scripted stream")
	}
	if !demo.Has(st.Number) {
		return fmt.Errorf("stage %s has no demo in this version of de", st.Ref())
	}
	opts := demo.Options{Out: sio.Stdout, Style: term.For(sio.Stdout, sio.Getenv)}
	if step {
		in := bufio.NewReader(sio.Stdin)
		opts.Pause = func() error {
			fmt.Fprint(sio.Stdout, opts.Style.Dim("  [Enter: next step] "))
			if _, err := in.ReadString('\n'); err != nil {
				if errors.Is(err, io.EOF) {
					return errors.New("de demo --step: input ended; run without --step to print the whole demo")
				}
				return err
			}
			return nil
		}
	}
	return demo.Run(st.Number, opts)
}
