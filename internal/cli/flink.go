package cli

import (
	"errors"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/flinkcmp"
	"github.com/flk-byo/course/internal/term"
)

func flinkCommand(sio IO) *ucli.Command {
	return &ucli.Command{
		Name:      "flink",
		Usage:     "run a stage's demo stream through your lab/ and through Apache Flink, side by side",
		ArgsUsage: "[FLK-BYO/NN]",
		Description: `Runs the stage's demo stream (the events de demo narrates) through your lab/ and
through the stage's graduation job on Apache Flink 2.3.0 (flink/jobs.md), and shows the
two outputs side by side, after the conventions of docs/PARITY.md. Exits 0 when they agree,
1 when they differ or your lab/ is not written yet, 2 when it cannot run.
Needs Java 17 or later and Maven; the first run downloads Flink (about 220 MB, minutes).
Without a stage: the current stage. What it writes goes under .de/flink/.`,
		BashComplete: completeStages,
		Action: func(c *ucli.Context) error {
			return runFlink(c, sio, c.Args().Slice())
		},
	}
}

// runFlink wires de flink: the stage from the argument or the course's
// progress, then internal/flinkcmp; a disagreement or a lab that cannot
// run is the work failing (exit 1), anything else the command (exit 2).
func runFlink(c *ucli.Context, sio IO, args []string) error {
	if len(args) > 1 {
		return errors.New("de flink takes at most one stage, e.g. de flink FLK-BYO/03")
	}
	e, err := loadEnv(sio)
	if err != nil {
		return err
	}
	var st catalog.Stage
	if len(args) == 1 {
		if st, err = e.cat.Resolve(args[0]); err != nil {
			return err
		}
	} else if st, err = e.current(); err != nil {
		return err
	}
	if err := e.checkLab(); err != nil {
		return err
	}
	f, isFile := sio.Stderr.(*os.File)
	live := isFile && term.For(f, sio.Getenv).Color
	agree, err := flinkcmp.Run(c.Context, flinkcmp.Options{
		Root: e.root, Stage: st.Number, Out: sio.Stdout, Style: e.style,
		Progress: sio.Stderr, Live: live,
	})
	var labErr *flinkcmp.LabError
	switch {
	case errors.As(err, &labErr):
		return failed(labErr)
	case err != nil:
		return err
	case !agree:
		return quietFailure
	}
	return nil
}
