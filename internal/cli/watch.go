package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/testreport"
	"github.com/flk-byo/course/internal/watch"
)

func watchCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "watch",
		Usage: "re-run the current stage's tests whenever a file in lab/ changes",
		Description: `The first run shows the full de test report; after that each run shows only the tests
that changed (now passing, now failing) and the summary line. A compile error, a hung
test or a crash always shows the full report.

Keys (type the letter, then Enter): h shows the next hint, q quits. Ctrl-C also quits.

Changes are seen through file-system events; where those do not work (network
folders, some containers and VMs) use --poll, which checks file sizes and times
every --poll-interval.`,
		Flags: append([]ucli.Flag{
			&ucli.BoolFlag{Name: "poll", Usage: "check lab/ on an interval instead of using file-system events"},
			&ucli.DurationFlag{Name: "poll-interval", Value: 500 * time.Millisecond, Usage: "how often --poll checks lab/"},
			&ucli.DurationFlag{Name: "debounce", Value: 200 * time.Millisecond, Usage: "wait this long after the last change before re-running"},
			verboseFlag,
		}, slices.Concat(timeoutFlags(60*time.Second, 20*time.Second), raceFlags())...),
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			e.verbose = c.Bool("verbose")
			if _, err := e.current(); err != nil {
				return err
			}
			if err := e.checkLab(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt)
			defer stop()
			lab := filepath.Join(e.root, coursedir.LabDir)
			var src watch.Source
			if c.Bool("poll") {
				src, err = watch.Poll(lab, c.Duration("poll-interval"))
			} else {
				src, err = watch.Notify(lab)
			}
			if err != nil {
				return err
			}
			defer src.Close()
			changes := watch.Debounce(src.Changes(), c.Duration("debounce"), time.After)
			o := testOptions{timeout: c.Duration("timeout"), testTime: c.Duration("test-timeout"), race: raceMode(c)}
			run := func(ctx context.Context) (*testreport.Run, catalog.Stage, error) { return e.runTests(ctx, o) }
			return e.watch(ctx, run, changes, readKeys(e.Stdin))
		},
	}
}

// readKeys sends each line read from r, trimmed, until r ends; then it
// closes the channel. Keys are whole lines so a script can drive de watch.
func readKeys(r io.Reader) <-chan string {
	keys := make(chan string)
	go func() {
		defer close(keys)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			keys <- strings.ToLower(strings.TrimSpace(sc.Text()))
		}
	}()
	return keys
}

// runFunc runs the current stage's tests once, without printing a report.
type runFunc func(context.Context) (*testreport.Run, catalog.Stage, error)

// watch runs the tests, then again after every batch of changes, until
// ctx ends or q is read from keys. It prints the full report the first
// time and after a run that could not report per test; otherwise only
// what changed.
func (e *env) watch(ctx context.Context, run runFunc, changes <-chan []string, keys <-chan string) error {
	s := e.style
	prev, err := e.watchRun(ctx, run, nil)
	if err != nil {
		return err
	}
	e.printf("\n%s\n", s.Dim("watching lab/ for changes · h + Enter: next hint · q + Enter: quit"))
	for {
		select {
		case <-ctx.Done():
			e.printf("stopped watching\n")
			return nil
		case names, ok := <-changes:
			if !ok {
				return fmt.Errorf("stopped watching lab/: the file watcher ended (try de watch --poll)")
			}
			e.printf("\n%s %s\n", s.Cyan(strings.Join(prefixAll("lab/", names), ", ")), "changed: re-running the tests …")
			next, err := e.watchRun(ctx, run, prev)
			if ctx.Err() != nil {
				e.printf("stopped watching\n")
				return nil
			}
			if err != nil {
				fmt.Fprintf(e.Stderr, "%s%v (still watching)\n", s.Red("de: "), err)
				continue
			}
			prev = next
		case k, ok := <-keys:
			if !ok {
				keys = nil // stdin ended: keep watching until Ctrl-C
				continue
			}
			switch k {
			case "":
			case "h", "hint":
				e.printf("\n")
				if err := e.hint(); err != nil {
					fmt.Fprintf(e.Stderr, "%s%v\n", s.Red("de: "), err)
				}
			case "q", "quit", "exit":
				e.printf("stopped watching\n")
				return nil
			default:
				e.printf("%s\n", s.Dim(fmt.Sprintf("unknown key %q: h + Enter shows the next hint, q + Enter quits", k)))
			}
		}
	}
}

// watchRun runs the tests once and prints either the full report (when
// prev is nil, or the run has problems no per-test line shows) or what
// changed since prev. It returns the outcomes to compare the next run
// with: nil after a run with such problems, so the next is shown in full.
func (e *env) watchRun(ctx context.Context, run runFunc, prev map[string]watch.Outcome) (map[string]watch.Outcome, error) {
	r, target, err := run(ctx)
	if err != nil {
		return nil, err
	}
	cur, whole := outcomes(r)
	var ok bool
	if prev == nil || !whole {
		ok = e.printer().Report(r, target)
	} else {
		ok = e.printer().Changes(r, target, watch.Diff(prev, cur))
	}
	if ok {
		if err := e.recordPassed(r); err != nil {
			return nil, err
		}
	}
	if !whole {
		return nil, nil
	}
	return cur, nil
}

// outcomes returns every test's outcome in a run, keyed "FLK-BYO/01
// TestName", and whether the run reported per test at all (it compiled,
// did not crash or hang, the go command raised no errors, and lab/ uses
// nothing a lab must not).
func outcomes(r *testreport.Run) (map[string]watch.Outcome, bool) {
	m := map[string]watch.Outcome{}
	res := r.Merged() // a test only the race detector fails is failed
	whole := len(res.Errors) == 0 && len(r.Findings) == 0
	for _, st := range r.Stages {
		pkg := res.Package(st.Package())
		if pkg == nil || pkg.BuildError != "" || pkg.Crash != "" || pkg.TimedOut != "" ||
			slices.ContainsFunc(pkg.Tests, func(t gotest.Test) bool { return t.Crashed }) {
			whole = false
			continue
		}
		for _, t := range pkg.Tests {
			o := watch.Other
			switch t.Status {
			case gotest.Pass:
				o = watch.Passed
			case gotest.Fail:
				o = watch.Failed
			}
			m[st.Ref()+" "+t.Name] = o
		}
	}
	return m, whole
}

func prefixAll(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}
