//go:build e2e

package mutants

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunJudgesEveryVerdict runs the fixture course's catalogue
// (testdata/fixture: a module of its own) through go test -overlay.
func TestEndToEndRunJudgesEveryVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test once per fixture mutant")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := filepath.Join("testdata", "fixture")
	ms, err := Load(os.DirFS(filepath.Join(root, "mutants")))
	require.NoError(t, err)
	var done []string
	results, err := Run(context.Background(), ms, Options{Root: root, Progress: func(n, total int, r Result) {
		assert.Equal(t, len(ms), total)
		done = append(done, r.Mutant.ID())
	}})
	require.NoError(t, err)
	assert.Len(t, done, len(ms))

	byName := map[string]Result{}
	for i, r := range results {
		assert.Equal(t, ms[i].ID(), r.Mutant.ID(), "results come in catalogue order")
		byName[r.Mutant.Name] = r
	}
	type want struct {
		verdict        Verdict
		failed, missed []string
		others         []string
		detail         string
	}
	for name, w := range map[string]want{
		"subtracts":      {verdict: Caught, failed: []string{"TestAdd"}, others: []string{"TestAddZero"}},
		"or-not-plus":    {verdict: PartlyCaught, failed: []string{"TestAdd"}, missed: []string{"TestAddZero"}},
		"abs-zero":       {verdict: Survived, missed: []string{"TestAbs"}},
		"abs-identity":   {verdict: CaughtByOthers, missed: []string{"TestAdd"}, others: []string{"TestAbs"}},
		"stale":          {verdict: NotApplied, detail: `find text 1 not found: "return a + b + 0"`},
		"does-not-build": {verdict: Broken, detail: "the mutated code does not build"},
		"crashes":        {verdict: Caught, failed: []string{"TestDoubleListed"}, others: []string{"TestDoubleFirst"}},
		"any":            {verdict: Broken, detail: "the stage's suite does not build even without the mutant"},
		"no-such-test":   {verdict: CaughtByOthers, missed: []string{"TestNope (did not run: no such test in 01-calc?)"}, others: []string{"TestAdd", "TestAddZero"}},
	} {
		r, ok := byName[name]
		if !assert.True(t, ok, "fixture mutant %s", name) {
			continue
		}
		assert.Equal(t, w.verdict, r.Verdict, name)
		assert.Equal(t, w.verdict == Caught, r.OK(), name)
		assert.Equal(t, w.failed, r.Failed, name)
		assert.Equal(t, w.missed, r.Missed, name)
		if name == "crashes" {
			// The binary died in TestDoubleFirst; the listed test ran alone.
			assert.Contains(t, r.Others, "TestDoubleFirst", name)
		} else {
			assert.Equal(t, w.others, r.Others, name)
		}
		assert.Contains(t, r.Detail, w.detail, name)
	}
}
