package testreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/labpolicy"
	"github.com/flk-byo/course/internal/watch"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the reports print")

// fixture is a catalogue of two stages whose suites certify what their
// doc comments say, for reports that do not change whenever a real card
// or suite does.
func fixture(t *testing.T) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{
		"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "fixture", "stages": [
			{"slug": "windows", "title": "Windows", "ready": true},
			{"slug": "keyed", "title": "Keyed", "ready": true}]}`)},
		"01-windows/a_test.go": {Data: []byte(`package windows
// TestFires certifies that a window fires at its end.
func TestFires(t *testing.T) {}
// TestLate certifies that a late event goes to the side output.
func TestLate(t *testing.T) {}
// TestOrder certifies that one call's results are ordered.
func TestOrder(t *testing.T) {}
// TestSkipped certifies that nothing, and skips.
func TestSkipped(t *testing.T) {}
`)},
		"02-keyed/b_test.go": {Data: []byte(`package keyed
// TestRoutes certifies that a key goes to its worker.
func TestRoutes(t *testing.T) {}
// TestRaceFree certifies that workers share no state.
func TestRaceFree(t *testing.T) {}
`)},
	}
	cat, err := catalog.Load(fsys)
	require.NoError(t, err)
	return cat
}

func pkg(st catalog.Stage, tests ...gotest.Test) *gotest.Package {
	return &gotest.Package{ImportPath: "github.com/flk-byo/course/" + st.Dir(), Tests: tests}
}

func pass(name string) gotest.Test { return gotest.Test{Name: name, Status: gotest.Pass} }

// TestReports pins what de test and de watch print, case by case, against
// testdata/<case>.golden (go test ./internal/testreport -update rewrites
// them; read the diff before committing it).
func TestReports(t *testing.T) {
	cat := fixture(t)
	st1, st2 := cat.Stages[0], cat.Stages[1]
	both := []catalog.Stage{st2, st1} // current first
	cases := []struct {
		name    string
		run     *Run
		target  catalog.Stage
		watch   []watch.Change // a de watch report of what changed, instead of a full one
		ok      bool
		verbose bool // de test --verbose
		width   int  // the terminal's columns
	}{
		{name: "all-pass", target: st2, ok: true, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, pass("TestRoutes"), pass("TestRaceFree")),
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"),
				gotest.Test{Name: "TestSkipped", Status: gotest.Skip, Output: []string{"a_test.go:9: needs strace (Linux); CI runs it"}}),
		}}}},
		{name: "the-reference", target: st1, ok: true, run: &Run{Tags: "solution", Stages: both[1:], Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped")),
		}}}},
		{name: "failures", target: st1, run: &Run{Tags: "lab", Stages: both[1:], Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st1, pass("TestFires"),
				gotest.Test{Name: "TestLate", Status: gotest.Fail, Output: []string{"late_test.go:33: Late() = (none)", "    want [e2 b@9=2]"}},
				gotest.Test{Name: "TestOrder", Status: gotest.Fail, NotImplemented: "TODO: sort the results"},
				gotest.Test{Name: "TestSkipped", Status: gotest.Skip}),
		}}}},
		{name: "failures-verbose", target: st1, verbose: true, run: &Run{Tags: "lab", Stages: both[1:], Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st1, pass("TestFires"),
				gotest.Test{Name: "TestLate", Status: gotest.Fail, Output: []string{"late_test.go:33: Late() = (none)", "    want [e2 b@9=2]"}},
				gotest.Test{Name: "TestOrder", Status: gotest.Fail, NotImplemented: "TODO: sort the results"},
				gotest.Test{Name: "TestSkipped", Status: gotest.Skip}),
		}}}},
		// A learner who jumped to stage 02: both stages' tests stop at
		// their skeletons' TODOs. Each TODO once, with the tests it stops.
		{name: "skeletons", target: st2, width: 60, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, gotest.Test{Name: "TestRoutes", Status: gotest.Fail, NotImplemented: "TODO: route each key to its worker"},
				gotest.Test{Name: "TestRaceFree", Status: gotest.Fail, NotImplemented: "TODO: route each key to its worker"}),
			pkg(st1, gotest.Test{Name: "TestFires", Status: gotest.Fail, NotImplemented: "TODO: NewProcessor"},
				gotest.Test{Name: "TestLate", Status: gotest.Fail, NotImplemented: "TODO: NewProcessor"},
				gotest.Test{Name: "TestOrder", Status: gotest.Fail, NotImplemented: "TODO: NewProcessor"},
				gotest.Test{Name: "TestSkipped", Status: gotest.Fail, Output: []string{"a_test.go:12: AssignWindow(-1, 10) = (0, 10), want (-10, 0): floor, not truncation, for negative timestamps"}}),
		}}}},
		{name: "crash", target: st2, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, gotest.Test{Name: "TestRoutes", Status: gotest.Fail, Crashed: true,
				Output: []string{"panic: boom in a goroutine", "goroutine 7 [running]:"},
				Trace:  []string{"panic: boom in a goroutine", "where your code was (lab/):", "    github.com/flk-byo/course/lab.route.func1()", "        github.com/flk-byo/course/lab/stream.go:42"}}),
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped")),
		}}}},
		{name: "hang", target: st1, run: &Run{Tags: "lab", Stages: both[1:], Result: &gotest.Result{Packages: []*gotest.Package{
			{ImportPath: "github.com/flk-byo/course/" + st1.Dir(), TimedOut: "test timed out after 1m0s", Tests: []gotest.Test{
				pass("TestFires"),
				{Name: "TestLate", Status: gotest.Fail, Hung: true, Trace: []string{"panic: test timed out after 1m0s", "where your code was (lab/):", "    github.com/flk-byo/course/lab.(*Processor).Process(...)", "        github.com/flk-byo/course/lab/windows.go:77"}},
			}},
		}}}},
		{name: "compile-error", target: st2, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			{ImportPath: "github.com/flk-byo/course/" + st2.Dir(), BuildError: "# github.com/flk-byo/course/lab\nlab/stream.go:3:1: syntax error: non-declaration statement outside function body"},
			{ImportPath: "github.com/flk-byo/course/" + st1.Dir(), BuildError: "# github.com/flk-byo/course/lab\nlab/stream.go:3:1: syntax error: non-declaration statement outside function body"},
		}}}},
		{name: "lab-findings", target: st1, run: &Run{Tags: "lab", Stages: both[1:],
			Findings: []grade.LabFinding{{Kind: labpolicy.Review, File: "lab/windows.go", Line: 12, Column: 2, What: "fmt.Println", Why: "writes to the test binary's standard output, where go test reads the results"}},
			Result:   &gotest.Result{Packages: []*gotest.Package{pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped"))}}}},
		{name: "unconfirmed", target: st1, run: &Run{Tags: "lab", Stages: both[1:],
			Result: &gotest.Result{Packages: []*gotest.Package{pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"),
				gotest.Test{Name: "TestSkipped", Status: gotest.Pass, Unconfirmed: "its output holds 2 starts and 2 results for it, not one of each: lines that look like go test's own, printed by the code under test"})}}}},
		{name: "go-errors", target: st1, run: &Run{Tags: "lab", Stages: both[1:], Result: &gotest.Result{
			Errors: []string{"go: updates to go.mod needed; to update it:", "\tgo mod tidy"}}}},
		{name: "race-pass-clean", target: st2, ok: true, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, pass("TestRoutes"), pass("TestRaceFree")),
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped")),
		}}, RaceSecondPass: true, RacePass: pkg(st2, pass("TestRoutes"), pass("TestRaceFree"))}},
		{name: "race-pass-finds", target: st2, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, pass("TestRoutes"), pass("TestRaceFree")),
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped")),
		}}, RaceSecondPass: true, RacePass: pkg(st2, pass("TestRoutes"), gotest.Test{Name: "TestRaceFree", Status: gotest.Fail, Output: []string{
			"==================", "WARNING: DATA RACE", "Write at 0x00c000123 by goroutine 8:", "  github.com/flk-byo/course/lab.(*worker).add()",
			"      /course/lab/stream.go:51 +0x44", "==================", "testing.go:1490: race detected during execution of test"}})}},
		{name: "reruns", target: st2, run: &Run{Tags: "lab", Stages: both, Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st2, pass("TestRoutes"), pass("TestRaceFree")),
			pkg(st1, pass("TestFires"), pass("TestLate"), pass("TestOrder"), pass("TestSkipped")),
		}}, Reruns: []RerunResult{{Rerun: catalog.Rerun{Tag: "onx", On: "stage 2's X", Stages: both[1:]}, Tags: "lab,onx", Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st1, pass("TestFires"), gotest.Test{Name: "TestLate", Status: gotest.Fail, Output: []string{"late_test.go:33: Late() = (none)"}}, pass("TestOrder"), pass("TestSkipped")),
		}}}}}},
		{name: "watch-changes", target: st1, run: &Run{Tags: "lab", Stages: both[1:], Result: &gotest.Result{Packages: []*gotest.Package{
			pkg(st1, pass("TestFires"), gotest.Test{Name: "TestLate", Status: gotest.Fail, Output: []string{"late_test.go:33: Late() = (none)"}}, pass("TestOrder"), pass("TestSkipped")),
		}}}, watch: []watch.Change{
			{Test: "FLK-BYO/01 TestFires", From: watch.Failed, To: watch.Passed},
			{Test: "FLK-BYO/01 TestLate", From: watch.Passed, To: watch.Failed},
			{Test: "FLK-BYO/01 TestGone", From: watch.Passed, To: watch.Other},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Printer{W: &out, Cat: cat, Verbose: c.verbose, Width: c.width}
			var ok bool
			if c.watch != nil {
				ok = p.Changes(c.run, c.target, c.watch)
			} else {
				ok = p.Report(c.run, c.target)
			}
			assert.Equal(t, c.ok, ok, "whether the report says everything passed")
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "no golden file: go test ./internal/testreport -update")
			assert.Equal(t, string(want), out.String(), "%s differs (go test ./internal/testreport -update rewrites it)", golden)
		})
	}
}

// TestMergedCountsWhatOnlyTheRaceDetectorFails: de watch compares Merged
// from run to run, so a test that passes without the race detector and
// fails with it must be failed there, and nothing else changes.
func TestMergedCountsWhatOnlyTheRaceDetectorFails(t *testing.T) {
	cat := fixture(t)
	st1, st2 := cat.Stages[0], cat.Stages[1]
	raced := gotest.Test{Name: "TestRaceFree", Status: gotest.Fail, Output: []string{"testing.go:1490: race detected during execution of test"}}
	r := &Run{Tags: "lab", Stages: []catalog.Stage{st2, st1}, Result: &gotest.Result{Packages: []*gotest.Package{
		pkg(st2, pass("TestRoutes"), pass("TestRaceFree")),
		pkg(st1, pass("TestFires")),
	}}, RaceSecondPass: true, RacePass: pkg(st2, gotest.Test{Name: "TestRoutes", Status: gotest.Fail}, raced)}
	r.Result.Packages[0].Tests[0].Status = gotest.Fail // failed in the fast pass too: not the race detector's finding
	assert.Equal(t, []gotest.Test{raced}, r.RaceFailures())
	m := r.Merged()
	assert.Equal(t, []gotest.Test{{Name: "TestRoutes", Status: gotest.Fail}, raced}, m.Package(st2.Package()).Tests)
	assert.Equal(t, []gotest.Test{pass("TestFires")}, m.Package(st1.Package()).Tests)
	assert.Equal(t, gotest.Pass, r.Result.Packages[0].Tests[1].Status, "Merged must not change the run's own results")
	assert.Same(t, r.Result, (&Run{Result: r.Result, Stages: r.Stages}).Merged(), "without a second pass Merged is Result")
}

func TestStageRange(t *testing.T) {
	cat := fixture(t)
	assert.Equal(t, "no stages", StageRange(nil))
	assert.Equal(t, "stage 01", StageRange(cat.Stages[:1]))
	assert.Equal(t, "stages 01–02", StageRange([]catalog.Stage{cat.Stages[1], cat.Stages[0]}), "lowest first, whatever order they ran in")
}

// TestNextStepAcrossTracks checks what de test says after a stage passes:
// the next stage of the track; at the end of the core, that the extensions
// follow if the learner wants more; after the last ready stage, that it is
// the last one there is.
func TestNextStepAcrossTracks(t *testing.T) {
	cat, err := catalog.Load(fstest.MapFS{"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "t", "stages": [
		{"slug": "a", "title": "A", "ready": true},
		{"slug": "b", "title": "B", "ready": true},
		{"slug": "c", "title": "C", "ready": true, "track": "extension"},
		{"slug": "d", "title": "D", "ready": false, "track": "extension"}]}`)}})
	require.NoError(t, err)
	p := &Printer{Cat: cat}
	assert.Equal(t, "FLK-BYO/01 passed. Next: de start FLK-BYO/02 (B)", p.NextStep(cat.Stages[0]))
	assert.Equal(t, "FLK-BYO/02 passed: that completes the core track. If you want more, the extension track is next: de start FLK-BYO/03 (C)", p.NextStep(cat.Stages[1]))
	assert.Equal(t, "FLK-BYO/03 passed: that is the last stage in this version of the course.", p.NextStep(cat.Stages[2]))
}
