package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/progress"
	"github.com/flk-byo/course/internal/term"
	"github.com/flk-byo/course/internal/testreport"
)

// fakeRuns returns one scripted result per run: each maps test names of
// stage 01 to their status.
func fakeRuns(t *testing.T, cat *catalog.Catalog, runs ...map[string]gotest.Status) (runFunc, *int) {
	n := 0
	st := cat.Stages[0]
	return func(context.Context) (*testreport.Run, catalog.Stage, error) {
		require.Less(t, n, len(runs), "more runs than scripted")
		pkg := &gotest.Package{ImportPath: "github.com/flk-byo/course/stages/01-windows"}
		for _, name := range []string{"TestA", "TestB"} {
			pkg.Tests = append(pkg.Tests, gotest.Test{Name: name, Status: runs[n][name], Output: []string{name + " says no"}})
		}
		n++
		return &testreport.Run{Tags: "lab", Stages: []catalog.Stage{st}, Result: &gotest.Result{Packages: []*gotest.Package{pkg}}}, st, nil
	}, &n
}

// TestWatchLoop drives the loop with a fake change source and fake runs:
// the first run is reported in full, later ones only by what changed, h
// reveals a hint and q quits.
func TestWatchLoop(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	prog := progress.New()
	prog.Current = cat.Stages[0].ID()
	var out bytes.Buffer
	e := &env{IO: IO{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}, root: t.TempDir(), cat: cat, prog: prog, style: term.Style{}}

	run, runs := fakeRuns(t, cat,
		map[string]gotest.Status{"TestA": gotest.Fail, "TestB": gotest.Pass},
		map[string]gotest.Status{"TestA": gotest.Pass, "TestB": gotest.Fail},
		map[string]gotest.Status{"TestA": gotest.Pass, "TestB": gotest.Pass},
	)
	changes := make(chan []string)
	keys := make(chan string)
	done := make(chan error)
	go func() { done <- e.watch(context.Background(), run, changes, keys) }()

	changes <- []string{"windows.go"}
	keys <- "h" // handled after the second run: the loop is single-threaded
	changes <- []string{"windows.go", "extra.go"}
	keys <- "q"
	require.NoError(t, <-done)
	assert.Equal(t, 3, *runs)

	for _, want := range []string{
		"✗ TestA\n", // first run: the full report
		"lab/windows.go changed: re-running",
		"✓ FLK-BYO/01 TestA now passes",
		"✗ FLK-BYO/01 TestB now fails\n      TestB says no\n      re-run: go test -tags lab -run '^TestB$' ./stages/01-windows",
		"stage 1 of 8 — 1/2 passed (stage 01, your lab/)",
		"Hint 1 of 3 for FLK-BYO/01",
		"lab/windows.go, lab/extra.go changed", // as the source sent them (Debounce sorts)
		"✓ FLK-BYO/01 TestB now passes",
		"stage 1 of 8 — 2/2 passed",
		"FLK-BYO/01 passed. Next: de start FLK-BYO/02",
		"stopped watching",
	} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, out.String(), "TestA now fails")
	assert.True(t, prog.Passed["01-windows"], "an all-green run is recorded like de test records it")
}

func TestWatchStopsOnContext(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	prog := progress.New()
	var out bytes.Buffer
	e := &env{IO: IO{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}, root: t.TempDir(), cat: cat, prog: prog}
	run, _ := fakeRuns(t, cat, map[string]gotest.Status{"TestA": gotest.Fail, "TestB": gotest.Fail})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	keys := make(chan string)
	close(keys) // stdin ended: watching goes on until the context ends
	require.NoError(t, e.watch(ctx, run, make(chan []string), keys))
	assert.Contains(t, out.String(), "stopped watching")
}
