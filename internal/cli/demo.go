package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

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
Without a stage: the current stage's demo, or 01's. --step waits for Enter between steps.
--html also draws the demo's runs as one page (event time across, arrivals down) and
prints its link: in a course it goes in .de/pictures/, elsewhere in a temporary folder.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "step", Usage: "wait for Enter before each step"},
			&ucli.BoolFlag{Name: "html", Usage: "also draw the demo as an HTML page (no network needed to view it) and print its link"},
		},
		Action: func(c *ucli.Context) error {
			return runDemo(sio, c.Args().Slice(), c.Bool("step"), c.Bool("html"))
		},
	}
}

// runDemo works outside a course checkout too: the demos need only the
// reference, which de is built with. The course on disk only names the
// current stage when no stage is given.
func runDemo(sio IO, args []string, step, html bool) error {
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
	}
	e, envErr := loadEnv(sio)
	if len(args) == 0 && envErr == nil && e.prog.Current != "" {
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
	if html && !demo.HasPicture(st.Number) {
		return fmt.Errorf("stage %s's demo draws no event-time run (its point is elsewhere), so --html has no page to draw; run it without --html", st.Ref())
	}
	opts := demo.Options{Out: sio.Stdout, Style: term.For(sio.Stdout, sio.Getenv)}
	var page bytes.Buffer
	if html {
		opts.HTML = &page
	}
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
	if err := demo.Run(st.Number, opts); err != nil {
		return err
	}
	if !html {
		return nil
	}
	dir := os.TempDir()
	if envErr == nil {
		dir = e.picturesDir()
	}
	path, err := writeNew(filepath.Join(dir, fmt.Sprintf("demo-%02d.html", st.Number)), page.Bytes())
	if err != nil {
		return fmt.Errorf("writing the demo's page: %w", err)
	}
	fmt.Fprintf(sio.Stdout, "\npicture of the demo: %s\n", (&url.URL{Scheme: "file", Path: path}).String())
	return nil
}

// writeNew writes data to path, or, when a file is there already, to
// path with a number before its extension (demo-03-2.html): a page never
// replaces one a learner may have kept open or annotated. It returns the
// path written.
func writeNew(path string, data []byte) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for i := 1; ; i++ {
		p := path
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return p, f.Close()
	}
}
