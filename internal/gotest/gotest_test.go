package gotest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/suite"
)

// parseFile replays a go test -json stream recorded from the fixture
// module in testdata/fixture (re-record with testdata/fixture/record.sh).
func parseFile(t *testing.T, name string, patterns ...string) *Result {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	require.NoError(t, err)
	defer f.Close()
	res, err := Parse(f, patterns, nil)
	require.NoError(t, err)
	return res
}

func byName(p *Package) map[string]Test {
	m := map[string]Test{}
	for _, t := range p.Tests {
		m[t.Name] = t
	}
	return m
}

func TestNotImplementedMatchesSuite(t *testing.T) {
	assert.Equal(t, suite.NotImplemented, NotImplemented, "de must recognise the message suite.Recover writes")
}

func TestParseMixedOutcomes(t *testing.T) {
	res := parseFile(t, "mixed.json", "./mixed")
	require.Len(t, res.Packages, 1)
	p := res.Packages[0]
	assert.Equal(t, "fixture/mixed", p.ImportPath)
	var order []string
	for _, tc := range p.Tests {
		order = append(order, tc.Name)
	}
	assert.Equal(t, []string{"TestPasses", "TestFails", "TestTODO", "TestSubtests", "TestSkipped", "TestLogsButPasses"}, order,
		"top-level tests in the order they started, subtests folded into their parent")
	tests := byName(p)
	assert.Equal(t, Pass, tests["TestPasses"].Status)
	assert.Equal(t, Pass, tests["TestLogsButPasses"].Status)
	assert.Equal(t, Skip, tests["TestSkipped"].Status)

	fails := tests["TestFails"]
	assert.Equal(t, Fail, fails.Status)
	assert.Equal(t, []string{"mixed_test.go:17: want 3, got 4", "    second line"}, fails.Output,
		"framing lines dropped, common indentation removed")

	todo := tests["TestTODO"]
	assert.Equal(t, Fail, todo.Status)
	assert.Equal(t, "TODO: AssignWindow", todo.NotImplemented)

	sub := tests["TestSubtests"]
	assert.Equal(t, Fail, sub.Status)
	assert.Contains(t, strings.Join(sub.Output, "\n"), "sub failed", "a failed subtest's output is shown under its parent")
	assert.False(t, p.OK())
	assert.Equal(t, 2, p.Passed())
}

func TestParseBuildFailure(t *testing.T) {
	res := parseFile(t, "broken.json", "./broken")
	require.Len(t, res.Packages, 1)
	p := res.Packages[0]
	assert.Contains(t, p.BuildError, `cannot use "no"`)
	assert.Empty(t, p.Tests)
	assert.False(t, p.OK())
}

func TestParseTimeoutNamesHungTest(t *testing.T) {
	res := parseFile(t, "hang.json", "./hang")
	require.Len(t, res.Packages, 1)
	p := res.Packages[0]
	assert.Equal(t, "test timed out after 2s", p.TimedOut)
	tests := byName(p)
	assert.Equal(t, Pass, tests["TestBeforeHang"].Status)
	assert.Equal(t, Fail, tests["TestHangs"].Status, "a test with no end event counts as failed")
	assert.True(t, tests["TestHangs"].Hung, "the timeout names the test that hung")
	assert.False(t, tests["TestBeforeHang"].Hung)
}

func TestParseKeepsPatternOrder(t *testing.T) {
	res := parseFile(t, "two.json", "./broken", "./mixed")
	require.Len(t, res.Packages, 2)
	assert.Equal(t, "fixture/broken", res.Packages[0].ImportPath)
	assert.Equal(t, "fixture/mixed", res.Packages[1].ImportPath)
	assert.NotNil(t, res.Package("./mixed"))
	assert.Nil(t, res.Package("./absent"))
}

func TestArgs(t *testing.T) {
	o := Options{Tags: "lab", Race: true, Timeout: 0, Run: "^TestX$", Packages: []string{"./stages/01-windows"}}
	assert.Equal(t, []string{"test", "-json", "-trimpath", "-vet=off", "-tags", "lab", "-race", "-run", "^TestX$", "./stages/01-windows"}, o.Args())
}

func TestParseDependencyBuildFailureShowsItsErrors(t *testing.T) {
	res := parseFile(t, "depbroken.json", "./uses")
	require.Len(t, res.Packages, 1)
	p := res.Packages[0]
	assert.Contains(t, p.BuildError, `broken.go:`, "a suite whose dependency (the learner's lab) does not compile shows that dependency's errors")
	assert.Empty(t, p.Crash, "a build failure is not a crash")
	assert.False(t, p.OK())
}

func TestParseCrashNamesTheTestAndTheLabFrames(t *testing.T) {
	res := parseFile(t, "crash.json", "./crash")
	require.Len(t, res.Packages, 1)
	tests := byName(res.Packages[0])
	assert.Equal(t, Pass, tests["TestBeforeCrash"].Status)
	crashed := tests["TestCrashes"]
	assert.Equal(t, Fail, crashed.Status)
	assert.True(t, crashed.Crashed, "the binary died in TestCrashes: it never reported a result of its own")
	assert.False(t, tests["TestBeforeCrash"].Crashed)
	assert.NotContains(t, tests, "TestAfterCrash", "the tests after the crash never ran")
	trace := strings.Join(crashed.Trace, "\n")
	assert.Contains(t, trace, "panic: boom in a goroutine")
	assert.Contains(t, trace, "where your code was (lab/):")
	assert.Regexp(t, `fixture/lab/lab\.go:[0-9]+`, trace)
	assert.NotContains(t, trace, "+0x", "program counters are noise for a learner")
}

func TestParseHangShowsTheLabFrames(t *testing.T) {
	res := parseFile(t, "hang.json", "./hang")
	hung := byName(res.Packages[0])["TestHangs"]
	assert.False(t, hung.Crashed, "a hang is a hang, not a crash")
	assert.Regexp(t, `fixture/lab/lab\.go:[0-9]+`, strings.Join(hung.Trace, "\n"), "where the learner's code was when the stage timed out")
}

// TestRunPastCrashesReportsEveryTest runs the fixture's crashing package
// for real: the test after the crash runs in a second go test, without the
// test that crashed.
func TestRunPastCrashesReportsEveryTest(t *testing.T) {
	var reruns [][]string
	res, err := RunPastCrashes(t.Context(), Options{Dir: "testdata/fixture", Tags: "none", Packages: []string{"./crash"}},
		func(string) []string { return []string{"TestBeforeCrash", "TestCrashes", "TestAfterCrash"} },
		func(_ string, crashed []string) { reruns = append(reruns, crashed) })
	require.NoError(t, err)
	p := res.Package("./crash")
	require.NotNil(t, p)
	tests := byName(p)
	assert.True(t, tests["TestCrashes"].Crashed)
	assert.Equal(t, Pass, tests["TestAfterCrash"].Status, "the test after the crash ran, in a second run")
	assert.Equal(t, [][]string{{"TestCrashes"}}, reruns)
	assert.Len(t, p.Tests, 3)
}

// TestBackgroundRunsAtLowerPriority runs the fixture's nice package for
// real, once as a foreground and once as a background run: the test
// binary, two processes below go test, must run at nice 10 more.
func TestBackgroundRunsAtLowerPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fixture reads its nice value from /proc")
	}
	ours, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	require.NoError(t, err)
	nice := 20 - ours // Linux's getpriority returns 20 - nice
	for _, c := range []struct {
		background bool
		want       int
	}{{false, nice}, {true, min(nice+10, 19)}} {
		res, err := Run(t.Context(), Options{Dir: "testdata/fixture", Tags: "none", Packages: []string{"./nice"}, Count: 1,
			Background: c.background, Env: []string{fmt.Sprintf("WANT_NICE=%d", c.want)}})
		require.NoError(t, err)
		p := res.Package("./nice")
		require.NotNil(t, p)
		require.Len(t, p.Tests, 1)
		assert.Equal(t, Pass, p.Tests[0].Status, "Background=%v: the test binary should run at nice %d:\n%s", c.background, c.want, strings.Join(p.Tests[0].Output, ""))
	}
}

// TestWriteOverlay checks the file -overlay reads: its Replace map, as
// given, a "" (a file left out) included.
func TestWriteOverlay(t *testing.T) {
	dir := t.TempDir()
	file, err := WriteOverlay(dir, map[string]string{"/course/lab/a.go": "/tmp/a.go", "/course/lab/b.go": ""})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("overlay %s is not JSON: %v", file, err)
	}
	if want := map[string]string{"/course/lab/a.go": "/tmp/a.go", "/course/lab/b.go": ""}; !maps.Equal(got.Replace, want) {
		t.Errorf("Replace = %v, want %v", got.Replace, want)
	}
}

// TestRepeatedHangHaltsTheStage: a second test that hangs in the same
// function of the learner's code as an earlier one halts the stage, with
// both named and the place to look; hangs in different places, a hang
// without a lab frame, and a crash do not.
func TestRepeatedHangHaltsTheStage(t *testing.T) {
	where := func(fn, file string) []string {
		return []string{"SIGQUIT: quit", "where your code was (lab/):", "    github.com/flk-byo/course/lab." + fn + "(0xc000012345, 0x3)", "        /course/lab/" + file}
	}
	for _, c := range []struct {
		name  string
		tests []Test
		want  string
	}{
		{"same place", []Test{{Name: "TestA", Stopped: true, Trace: where("(*Sink).Commit", "sink.go:80")}, {Name: "TestB", Status: Pass},
			{Name: "TestC", Stopped: true, Trace: where("(*Sink).Commit", "sink.go:81")}},
			"TestC hung where TestA did, in lab.(*Sink).Commit: the stage's other 7 tests were not run"},
		{"two places", []Test{{Name: "TestA", Stopped: true, Trace: where("(*Sink).Commit", "sink.go:80")},
			{Name: "TestC", Stopped: true, Trace: where("Flush", "windows.go:12")}}, ""},
		{"no lab frame", []Test{{Name: "TestA", Stopped: true, Trace: []string{"SIGQUIT: quit"}}, {Name: "TestC", Stopped: true}}, ""},
		{"crashes are not hangs", []Test{{Name: "TestA", Crashed: true, Trace: where("f", "x.go:1")}, {Name: "TestC", Crashed: true, Trace: where("f", "x.go:1")}}, ""},
	} {
		got := repeatedHang(c.tests, 7)
		if c.want == "" {
			assert.Empty(t, got, c.name)
			continue
		}
		assert.Contains(t, got, c.want, c.name)
	}
}
