package gotest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/verdict"
)

// stream builds a go test -json stream of package pkg from lines, each
// "run T", "pass T", "fail T", "out TEXT" (package-level output) or
// "end pass|fail" (the package's own result).
func stream(t *testing.T, pkg string, lines ...string) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, l := range lines {
		verb, arg, _ := strings.Cut(l, " ")
		e := map[string]any{"Package": pkg}
		switch verb {
		case "run", "pass", "fail", "skip":
			e["Action"], e["Test"] = verb, arg
		case "out":
			e["Action"], e["Output"] = "output", arg+"\n"
		case "end":
			e["Action"] = arg
		default:
			t.Fatalf("stream: unknown line %q", l)
		}
		require.NoError(t, enc.Encode(e))
	}
	return b.String()
}

// whole is the records of one clean run of pkg whose tests all passed.
func whole(pkg string, pid int, tests ...string) []verdict.Record {
	recs := []verdict.Record{{Kind: verdict.Begin, Package: pkg, PID: pid}}
	for _, name := range tests {
		recs = append(recs, verdict.Record{Kind: verdict.Test, Package: pkg, PID: pid, Test: name, Status: verdict.Pass})
	}
	return append(recs, verdict.Record{Kind: verdict.End, Package: pkg, PID: pid, Tests: len(tests)})
}

// TestConfirm pins which passes the verdict channel confirms: a test is
// credited only when its suite's report, its binary's exit and its output
// agree, and every way they can disagree says why.
func TestConfirm(t *testing.T) {
	const pkg = "x/stages/01-windows"
	okStream := []string{"run TestA", "pass TestA", "run TestB", "pass TestB", "out PASS", "out ok  \tx\t0.1s", "end pass"}
	for _, c := range []struct {
		name    string
		lines   []string
		records []verdict.Record
		bad     bool
		want    map[string]string // test → "" for confirmed, else a part of Unconfirmed
		cut     bool              // the unconfirmed passes may be confirmed by a rerun
	}{
		{name: "a whole run confirms its passes", lines: okStream, records: whole(pkg, 7, "TestA", "TestB"),
			want: map[string]string{"TestA": "", "TestB": ""}},
		{name: "no report: a crash, an exit or a hang", lines: okStream,
			want: map[string]string{"TestA": "sent no report of its own", "TestB": "sent no report of its own"}, cut: true},
		{name: "a report that never ends", lines: okStream, records: whole(pkg, 7, "TestA", "TestB")[:3],
			want: map[string]string{"TestA": "ended before its suite's report did"}, cut: true},
		{name: "two processes report", lines: okStream, records: append(whole(pkg, 7, "TestA", "TestB"), whole(pkg, 8, "TestA", "TestB")...),
			want: map[string]string{"TestA": "2 processes reported"}},
		{name: "records after the end", lines: okStream,
			records: append(whole(pkg, 7, "TestA", "TestB"), verdict.Record{Kind: verdict.Test, Package: pkg, PID: 7, Test: "TestA", Status: verdict.Pass}),
			want:    map[string]string{"TestA": "goes on after its end"}},
		{name: "a report that does not begin", lines: okStream, records: whole(pkg, 7, "TestA", "TestB")[1:],
			want: map[string]string{"TestA": "does not begin"}},
		{name: "an end that miscounts", lines: okStream,
			records: append(whole(pkg, 7, "TestA", "TestB")[:3], verdict.Record{Kind: verdict.End, Package: pkg, PID: 7, Tests: 5}),
			want:    map[string]string{"TestA": "counts 5 tests and lists 2"}},
		{name: "an exit the report does not say", lines: []string{"run TestA", "pass TestA", "run TestB", "pass TestB", "out PASS", "end fail"},
			records: whole(pkg, 7, "TestA", "TestB"), want: map[string]string{"TestA": "did not exit as its suite's report says"}},
		{name: "two final lines", lines: []string{"run TestA", "pass TestA", "out PASS", "run TestB", "pass TestB", "out PASS", "end pass"},
			records: whole(pkg, 7, "TestA", "TestB"), want: map[string]string{"TestA": "2 final lines"}},
		{name: "printed after the final line", lines: []string{"run TestA", "pass TestA", "run TestB", "pass TestB", "out PASS", "out late", "out ok  \tx\t0.1s", "end pass"},
			records: whole(pkg, 7, "TestA", "TestB"), want: map[string]string{"TestA": `printed after its final line ("late")`}},
		{name: "a forged start and result", lines: []string{"run TestA", "pass TestA", "run TestA", "pass TestA", "run TestB", "pass TestB", "out PASS", "end pass"},
			records: whole(pkg, 7, "TestA", "TestB"), want: map[string]string{"TestA": "2 starts and 2 results", "TestB": ""}},
		{name: "the report says it failed", lines: okStream,
			records: []verdict.Record{{Kind: verdict.Begin, Package: pkg, PID: 7}, {Kind: verdict.Test, Package: pkg, PID: 7, Test: "TestA", Status: verdict.Fail},
				{Kind: verdict.Test, Package: pkg, PID: 7, Test: "TestB", Status: verdict.Pass}, {Kind: verdict.End, Package: pkg, PID: 7, Tests: 2}},
			want: map[string]string{"TestA": "report says fail", "TestB": ""}},
		{name: "the report leaves a test out", lines: okStream, records: whole(pkg, 7, "TestB"),
			want: map[string]string{"TestA": "does not list it", "TestB": ""}},
		{name: "the report lists a test twice", lines: okStream, records: whole(pkg, 7, "TestA", "TestA", "TestB"),
			want: map[string]string{"TestA": "lists it 2 times", "TestB": ""}},
		{name: "the channel carried a datagram that is no record", lines: okStream, records: whole(pkg, 7, "TestA", "TestB"), bad: true,
			want: map[string]string{"TestA": "not a report", "TestB": "not a report"}},
		{name: "another package's report confirms nothing here", lines: okStream, records: whole("x/stages/02-keyed", 7, "TestA", "TestB"),
			want: map[string]string{"TestA": "sent no report of its own"}, cut: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHandler(nil)
			res, err := parseWith(strings.NewReader(stream(t, pkg, c.lines...)), []string{"./stages/01-windows"}, h)
			require.NoError(t, err)
			var bad []error
			if c.bad {
				_, err := verdict.Decode([]byte("PASS"))
				bad = append(bad, err)
			}
			confirm(res, h, c.records, bad)
			p := res.Package("./stages/01-windows")
			require.NotNil(t, p)
			for _, tc := range p.Tests {
				want, ok := c.want[tc.Name]
				if !ok {
					continue
				}
				if want == "" {
					assert.True(t, tc.Confirmed, "%s should be confirmed; unconfirmed because %s", tc.Name, tc.Unconfirmed)
					continue
				}
				assert.False(t, tc.Confirmed, "%s should not be confirmed", tc.Name)
				assert.Contains(t, tc.Unconfirmed, want, "why %s is not confirmed", tc.Name)
				assert.Equal(t, c.cut, tc.cut, "whether a rerun may confirm %s", tc.Name)
			}
		})
	}
}

// TestVerdictsConfirmWhatTheSuiteReports runs the fixture suite
// testdata/verdicts for real, with the verdict channel: each passing test
// that defers suite.Recover is confirmed; one that does not, is not; a
// plain run confirms nothing and says nothing.
func TestVerdictsConfirmWhatTheSuiteReports(t *testing.T) {
	res, err := Run(t.Context(), Options{Dir: "../..", Tags: "none", Packages: []string{"./internal/gotest/testdata/verdicts"}, Verdicts: true})
	require.NoError(t, err)
	p := res.Package("./internal/gotest/testdata/verdicts")
	require.NotNil(t, p)
	tests := byName(p)
	for _, name := range []string{"TestPasses", "TestForges", "TestCrashes", "TestAfter"} {
		assert.True(t, tests[name].Confirmed, "%s passed and deferred suite.Recover: %s", name, tests[name].Unconfirmed)
	}
	assert.Equal(t, Fail, tests["TestFails"].Status)
	assert.Equal(t, Skip, tests["TestSkips"].Status)
	assert.False(t, tests["TestSkips"].Unsupported, "a plain skip is no test the system cannot run")
	assert.Equal(t, Skip, tests["TestNeedsAnotherSystem"].Status)
	assert.True(t, tests["TestNeedsAnotherSystem"].Unsupported, "suite.SkipUnsupported says the system cannot run it")
	assert.False(t, tests["TestFails"].Confirmed)
	assert.False(t, tests["TestNoRecover"].Confirmed)
	assert.Contains(t, tests["TestNoRecover"].Unconfirmed, "does not list it")

	plain, err := Run(t.Context(), Options{Dir: "../..", Tags: "none", Packages: []string{"./internal/gotest/testdata/verdicts"}, Count: 1})
	require.NoError(t, err)
	for _, tc := range plain.Package("./internal/gotest/testdata/verdicts").Tests {
		assert.False(t, tc.Confirmed, "a run without the channel confirms nothing")
		assert.Empty(t, tc.Unconfirmed, "a run without the channel says nothing of confirmation")
	}
}

// TestVerdictsIgnoreForgedOutput: a test that writes go test's own lines
// for another test to the binary's standard output does not make that
// test pass.
func TestVerdictsIgnoreForgedOutput(t *testing.T) {
	res, err := Run(t.Context(), Options{Dir: "../..", Tags: "none", Packages: []string{"./internal/gotest/testdata/verdicts"},
		Verdicts: true, Env: []string{"VERDICTS=forge"}})
	require.NoError(t, err)
	tests := byName(res.Package("./internal/gotest/testdata/verdicts"))
	assert.False(t, tests["TestFails"].Confirmed, "TestFails failed; the forged pass in the output must not count")
	if tests["TestFails"].Status == Pass {
		assert.Contains(t, tests["TestFails"].Unconfirmed, "starts")
	}
	assert.True(t, tests["TestPasses"].Confirmed, "a forgery costs the forged test, not the others: %s", tests["TestPasses"].Unconfirmed)
}

// TestVerdictsPastACrash: the tests that passed before a crash are
// confirmed by a run that ends, the crashed test never is, and the one
// after the crash is run and confirmed.
func TestVerdictsPastACrash(t *testing.T) {
	all := []string{"TestPasses", "TestFails", "TestSkips", "TestNeedsAnotherSystem", "TestNoRecover", "TestForges", "TestCrashes", "TestAfter"}
	res, err := RunPastCrashes(t.Context(), Options{Dir: "../..", Tags: "none", Packages: []string{"./internal/gotest/testdata/verdicts"},
		Verdicts: true, Env: []string{"VERDICTS=crash"}}, func(string) []string { return all }, nil)
	require.NoError(t, err)
	p := res.Package("./internal/gotest/testdata/verdicts")
	tests := byName(p)
	assert.True(t, tests["TestCrashes"].Crashed)
	assert.False(t, tests["TestCrashes"].Confirmed)
	for _, name := range []string{"TestPasses", "TestForges", "TestAfter"} {
		assert.True(t, tests[name].Confirmed, "%s passed in a run that crashed later, or after it: %s", name, tests[name].Unconfirmed)
	}
	assert.False(t, tests["TestNoRecover"].Confirmed)
	assert.Len(t, p.Tests, len(all), "each test reported once, with its first run's feedback")
}
