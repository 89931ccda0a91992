package mutants

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flk-byo/course/internal/gotest"
)

// Apply writes the mutated copy of m's file, read from the course at root,
// into dir (a folder the caller owns) and returns the absolute paths of the
// reference file and of its mutated copy. A find text that does not occur
// exactly once is an *ApplyError; a missing reference file wraps
// fs.ErrNotExist.
func Apply(root string, m Mutant, dir string) (ref, mutated string, err error) {
	ref, err = filepath.Abs(filepath.Join(root, filepath.FromSlash(m.File)))
	if err != nil {
		return "", "", err
	}
	src, err := os.ReadFile(ref)
	if err != nil {
		return "", "", fmt.Errorf("reference file %s: %w", m.File, err)
	}
	out, err := m.Mutate(src)
	if err != nil {
		return "", "", err
	}
	mutated, err = filepath.Abs(filepath.Join(dir, filepath.Base(ref)))
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(mutated, out, 0o644); err != nil {
		return "", "", err
	}
	return ref, mutated, nil
}

// WriteOverlay applies m (see Apply) into dir and writes there the JSON
// overlay that makes the go command read the mutated copy in place of the
// reference file. It returns the overlay file's absolute path.
func WriteOverlay(root string, m Mutant, dir string) (string, error) {
	ref, mutated, err := Apply(root, m, dir)
	if err != nil {
		return "", err
	}
	return gotest.WriteOverlay(filepath.Dir(mutated), map[string]string{ref: mutated})
}

// Verdict is what running a mutant showed.
type Verdict string

// The verdicts. Only Caught is a pass.
const (
	Caught         Verdict = "caught"                     // every test in caught-by failed
	PartlyCaught   Verdict = "PARTLY CAUGHT"              // some of the caught-by tests passed
	CaughtByOthers Verdict = "caught by other tests only" // no caught-by test failed, others did
	Survived       Verdict = "SURVIVED"                   // every test passed
	NotApplied     Verdict = "find text not found"        // the mutant does not apply to the reference
	Broken         Verdict = "BROKEN"                     // the mutated code does not build, or go test could not run
)

// Result is the outcome of one mutant.
type Result struct {
	Mutant  Mutant
	Verdict Verdict
	Failed  []string // caught-by tests that failed
	Missed  []string // caught-by tests that passed (or never ran, said so)
	Others  []string // other tests that failed; "07-idleness.TestX" for a test of another stage
	Detail  string   // why a mutant is NotApplied or Broken
	Elapsed time.Duration
}

// OK reports whether the mutant was caught by every test it names.
func (r Result) OK() bool { return r.Verdict == Caught }

// Options configure Run.
type Options struct {
	Root    string        // the course root
	Timeout time.Duration // per test binary; 0 means 2 minutes
	// Parallel is how many mutants run at once; 0 means GOMAXPROCS.
	Parallel int
	// Packages returns the test packages to run for m, its own stage's
	// first; nil runs m.Package() alone. Returning later stages' packages
	// too shows which of their tests also catch the mistake.
	Packages func(m Mutant) []string
	// Progress, when set, is called (from one goroutine at a time) as each
	// mutant finishes, with the count done so far.
	Progress func(done, total int, r Result)
}

// Run runs every mutant in ms and returns their results in the order of
// ms. It returns an error only when the check itself cannot run (no go
// command, a cancelled context); a mutant that survives, or does not
// apply, is a result.
func Run(ctx context.Context, ms []Mutant, o Options) ([]Result, error) {
	par := o.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(ms))
	errs := make([]error, len(ms))
	sem := make(chan struct{}, par)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			results[i], errs[i] = RunOne(ctx, m, o)
			if errs[i] == nil && o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(done, len(ms), results[i])
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// RunOne runs one mutant: it writes the mutated file and its overlay to a
// temporary folder, runs go test -json -tags solution (and its rerun tag) -overlay on the
// mutant's packages and judges the outcome.
func RunOne(ctx context.Context, m Mutant, o Options) (Result, error) {
	started := time.Now()
	res := Result{Mutant: m}

	dir, err := os.MkdirTemp("", "flk-mutant-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	overlay, err := WriteOverlay(o.Root, m, dir)
	var applyErr *ApplyError
	switch {
	case errors.As(err, &applyErr), errors.Is(err, fs.ErrNotExist):
		res.Verdict, res.Detail = NotApplied, err.Error()
		res.Elapsed = time.Since(started)
		return res, nil
	case err != nil:
		return res, fmt.Errorf("mutant %s: %w", m.ID(), err)
	}
	if strings.ContainsAny(overlay, " \t\n") {
		return res, fmt.Errorf("mutant %s: the temporary folder %s has a space in its path, which GOFLAGS cannot carry; set TMPDIR", m.ID(), dir)
	}

	pkgs := []string{m.Package()}
	if o.Packages != nil {
		pkgs = o.Packages(m)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	opts := gotest.Options{
		Dir:      o.Root,
		Tags:     m.Tags(),
		Packages: pkgs,
		Race:     m.Race,
		Timeout:  timeout,
		Overlay:  overlay,
	}
	out, err := gotest.Run(ctx, opts)
	if err != nil {
		return res, fmt.Errorf("mutant %s: %w", m.ID(), err)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}

	// A mistake can kill the test binary (a fatal "concurrent map writes",
	// a panic in a goroutine) in an earlier test, before a listed test ran.
	// Run the listed tests that did not run again, on their own.
	var alone *gotest.Package
	if own := out.Package(pkgs[0]); own != nil && own.BuildError == "" {
		var missing []string
		for _, name := range m.CaughtBy {
			if !slices.ContainsFunc(own.Tests, func(t gotest.Test) bool { return t.Name == name }) {
				missing = append(missing, regexp.QuoteMeta(name))
			}
		}
		if len(missing) > 0 {
			opts.Packages = pkgs[:1]
			opts.Run = "^(" + strings.Join(missing, "|") + ")$"
			again, err := gotest.Run(ctx, opts)
			if err != nil {
				return res, fmt.Errorf("mutant %s: %w", m.ID(), err)
			}
			alone = again.Package(pkgs[0])
		}
	}
	judge(&res, out, alone, pkgs)
	if res.Verdict == Broken {
		// Is it the mutant, or does the suite not build anyway (someone is
		// editing it)? Build it once without the overlay to say which.
		base := opts
		base.Packages, base.Run, base.Overlay = pkgs[:1], "^$", ""
		if plain, err := gotest.Run(ctx, base); err == nil {
			if p := plain.Package(pkgs[0]); p != nil && p.BuildError != "" {
				res.Detail = "the stage's suite does not build even without the mutant: fix it first:\n" + p.BuildError
			}
		}
	}
	res.Elapsed = time.Since(started)
	return res, nil
}

// judge sets the verdict of res from the run of its packages, pkgs[0]
// being the mutant's own stage, and alone, when not nil, the run of the
// listed tests that the first run never reached.
func judge(res *Result, out *gotest.Result, alone *gotest.Package, pkgs []string) {
	m := res.Mutant
	own := out.Package(pkgs[0])
	switch {
	case own == nil:
		res.Verdict = Broken
		res.Detail = "the stage's suite did not run: " + strings.Join(out.Errors, "; ")
		return
	case own.BuildError != "":
		res.Verdict = Broken
		res.Detail = "the mutated code does not build:\n" + own.BuildError
		return
	}
	status := map[string]gotest.Status{}
	for _, t := range own.Tests {
		status[t.Name] = t.Status
		if t.Status == gotest.Fail && !slices.Contains(m.CaughtBy, t.Name) {
			res.Others = append(res.Others, t.Name)
		}
	}
	if own.Crash != "" || own.TimedOut != "" {
		res.Others = append(res.Others, "(the test binary crashed or timed out)")
	}
	if alone != nil {
		for _, t := range alone.Tests {
			if _, ran := status[t.Name]; !ran {
				status[t.Name] = t.Status
			}
		}
	}
	for _, p := range pkgs[1:] {
		later := out.Package(p)
		if later == nil || later.BuildError != "" {
			continue // judged on its own stage; a later suite that does not build is another check's job
		}
		for _, t := range later.Tests {
			if t.Status == gotest.Fail {
				res.Others = append(res.Others, strings.TrimPrefix(p, "./stages/")+"."+t.Name)
			}
		}
	}
	for _, name := range m.CaughtBy {
		switch s, ran := status[name]; {
		case !ran:
			res.Missed = append(res.Missed, name+" (did not run: no such test in "+m.Stage+"?)")
		case s == gotest.Fail:
			res.Failed = append(res.Failed, name)
		default:
			res.Missed = append(res.Missed, name)
		}
	}
	switch {
	case len(res.Missed) == 0:
		res.Verdict = Caught
	case len(res.Failed) > 0:
		res.Verdict = PartlyCaught
	case len(res.Others) > 0:
		res.Verdict = CaughtByOthers
	default:
		res.Verdict = Survived
	}
}
