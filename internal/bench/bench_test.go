package bench

import (
	"errors"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// output is go test -bench output for both packages at stage 04, with
// -count 2: one lab line broken by the lab's own printing, and results
// with and without the -GOMAXPROCS suffix.
const output = `goos: linux
goarch: amd64
pkg: github.com/flk-byo/course/lab
cpu: AMD EPYC
BenchmarkDe01/throughput-250000-2  	       1	1000000000 ns/op	         3.000 allocs/event	      1000 cpu-ns/event
BenchmarkDe01/throughput-250000-2  	       1	1000000000 ns/op	         1.000 allocs/event	      3000 cpu-ns/event
BenchmarkDe01/open-windows-2       	       9	 167698264 ns/op	       500.0 baseline-cpu-ns/event	      5000 cpu-ns/event
BenchmarkDe01/open-windows-2       	debug: window fired
       9	 167698264 ns/op	       500.0 baseline-cpu-ns/event	     15000 cpu-ns/event
BenchmarkDe03/expiring-windows     	       7	 200010047 ns/op	       400.0 baseline-cpu-ns/event	       440 cpu-ns/event
BenchmarkDe03/expiring-windows     	       7	 200010047 ns/op	       400.0 baseline-cpu-ns/event	       480 cpu-ns/event
BenchmarkDe04/snapshot-100000-2           	       2	 400000000 ns/op	       150.0 baseline-cpu-ns/window	       180.0 cpu-ns/window	22.57 baseline-bytes/window	26.51 bytes/window
BenchmarkDe04/snapshot-100000-2           	       2	 400000000 ns/op	       150.0 baseline-cpu-ns/window	       180.0 cpu-ns/window	22.57 baseline-bytes/window	26.51 bytes/window
PASS
ok  	github.com/flk-byo/course/lab	25.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDe01/throughput-250000-2  	       1	1000000000 ns/op	         0.020 allocs/event	      1000 cpu-ns/event
BenchmarkDe01/throughput-250000-2  	       1	1000000000 ns/op	         0.020 allocs/event	      1500 cpu-ns/event
BenchmarkDe01/open-windows-2       	       9	 167698264 ns/op	       500.0 baseline-cpu-ns/event	       550 cpu-ns/event
BenchmarkDe01/open-windows-2       	       9	 167698264 ns/op	       500.0 baseline-cpu-ns/event	       650 cpu-ns/event
PASS
ok  	github.com/flk-byo/course/solutions	20.3s
`

// comparisonOf returns the comparison whose subject is benchmark's.
func comparisonOf(t *testing.T, benchmark string) Comparison {
	t.Helper()
	i := slices.IndexFunc(Comparisons, func(c Comparison) bool { return c.Subject.Benchmark == benchmark })
	require.GreaterOrEqual(t, i, 0, "no comparison of %s", benchmark)
	return Comparisons[i]
}

func TestParseReadsEverySampleOfEachPackageInRunOrder(t *testing.T) {
	m := Parse(strings.NewReader(output))
	assert.Empty(t, m.Failures)
	thr := m.Samples(LabPkg, "BenchmarkDe01/throughput-250000")
	require.Len(t, thr, 2)
	assert.Equal(t, 1000.0, thr[0]["cpu-ns/event"])
	assert.Equal(t, 3000.0, thr[1]["cpu-ns/event"])
	assert.Equal(t, 1.0, thr[1]["allocs/event"])

	open := m.Samples(LabPkg, "BenchmarkDe01/open-windows")
	require.Len(t, open, 2, "the line the lab's output broke is read too")
	assert.Equal(t, 15000.0, open[1]["cpu-ns/event"])
	assert.Len(t, m.Samples(LabPkg, "BenchmarkDe03/expiring-windows"), 2, "a name without the -GOMAXPROCS suffix")
	assert.Len(t, m.Samples(RefPkg, "BenchmarkDe01/throughput-250000"), 2)
	assert.Empty(t, m.Samples(RefPkg, "BenchmarkDe04/snapshot-100000"))
}

func TestParseRecordsFailuresAndCrashesWithTheirPackage(t *testing.T) {
	out := `pkg: github.com/flk-byo/course/lab
BenchmarkDe01/throughput-2   	       1	1000000000 ns/op	      1000 cpu-ns/event
--- FAIL: BenchmarkDe04/snapshot-100000
    stagebench.go:61: not implemented yet: TODO: encode the state
--- FAIL: BenchmarkDe04
FAIL
exit status 1
FAIL	github.com/flk-byo/course/lab	3.1s
pkg: github.com/flk-byo/course/solutions
panic: runtime error: index out of range [3] with length 3

goroutine 7 [running]:
FAIL	github.com/flk-byo/course/solutions	0.4s
`
	m := Parse(strings.NewReader(out))
	assert.Equal(t, []Failure{
		{Package: LabPkg, Benchmark: "BenchmarkDe04/snapshot-100000", Message: "not implemented yet: TODO: encode the state"},
		{Package: RefPkg, Message: "panic: runtime error: index out of range [3] with length 3"},
	}, m.Failures)
}

func TestCheckSaysInOneLineWhoseFailureItIs(t *testing.T) {
	exit := exitError(t)
	for _, tc := range []struct {
		name     string
		out      string
		runErr   error
		work     bool
		contains string
	}{
		{
			name:     "the lab does not compile",
			out:      "# github.com/flk-byo/course/lab\nlab/windows.go:3:2: undefined: undefinedName\nFAIL\tgithub.com/flk-byo/course/lab [build failed]\n",
			runErr:   exit,
			work:     true,
			contains: "your lab/ does not compile: lab/windows.go:3:2: undefined: undefinedName",
		},
		{
			name:     "stage 01 is still the skeleton",
			out:      "pkg: github.com/flk-byo/course/lab\n--- FAIL: BenchmarkDe01/throughput\n    stagebench.go:61: not implemented yet: TODO: validate cfg\nFAIL\tgithub.com/flk-byo/course/lab\t0.1s\n",
			runErr:   exit,
			work:     true,
			contains: "your processor is not implemented yet (TODO: validate cfg); finish stage 01 first",
		},
		{
			name:     "the lab's first benchmark fails, so go test prints no pkg: header for it",
			out:      "--- FAIL: BenchmarkDe01/throughput\n    stagebench.go:61: not implemented yet: TODO: validate cfg\nFAIL\tgithub.com/flk-byo/course/lab\t0.1s\npkg: github.com/flk-byo/course/solutions\nBenchmarkDe01/throughput-2 1 5 ns/op 1 cpu-ns/event\nok  \tgithub.com/flk-byo/course/solutions\t3s\n",
			runErr:   exit,
			work:     true,
			contains: "your processor is not implemented yet (TODO: validate cfg); finish stage 01 first",
		},
		{
			name:     "stage 04 is still the skeleton",
			out:      "pkg: github.com/flk-byo/course/lab\n--- FAIL: BenchmarkDe04/snapshot-100000\n    stagebench.go:61: not implemented yet: TODO: encode\nFAIL\tgithub.com/flk-byo/course/lab\t0.1s\n",
			runErr:   exit,
			work:     true,
			contains: "finish stage 04 first, or run de bench --stage 03",
		},
		{
			name:     "a benchmark panicked",
			out:      "pkg: github.com/flk-byo/course/lab\n--- FAIL: BenchmarkDe03/expiring-windows\n    stagebench.go:61: panic: runtime error: integer divide by zero\nFAIL\tgithub.com/flk-byo/course/lab\t0.1s\n",
			runErr:   exit,
			work:     true,
			contains: "on your lab/, the benchmark BenchmarkDe03/expiring-windows failed: panic: runtime error: integer divide by zero",
		},
		{
			name:     "the lab's test binary crashed",
			out:      "pkg: github.com/flk-byo/course/lab\nfatal error: concurrent map writes\nFAIL\tgithub.com/flk-byo/course/lab\t0.1s\n",
			runErr:   exit,
			work:     true,
			contains: "the benchmarks crashed: fatal error: concurrent map writes",
		},
		{
			name:     "a reference benchmark failed",
			out:      "pkg: github.com/flk-byo/course/solutions\n--- FAIL: BenchmarkDe01/throughput\n    stagebench.go:61: NewProcessor: bad\nFAIL\tgithub.com/flk-byo/course/solutions\t0.1s\n",
			runErr:   exit,
			contains: "on the reference, the benchmark BenchmarkDe01/throughput failed: NewProcessor: bad (a bug in the course",
		},
		{
			name:     "go is missing",
			runErr:   exec.ErrNotFound,
			contains: "go is not on PATH",
		},
		{
			name:     "a package printed no result",
			out:      "pkg: github.com/flk-byo/course/solutions\nBenchmarkDe01/throughput-2 1 5 ns/op 1 cpu-ns/event\n",
			contains: "no benchmark result for github.com/flk-byo/course/lab",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(Parse(strings.NewReader(tc.out)), tc.out, tc.runErr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.contains)
			assert.NotContains(t, err.Error(), "\n", "one line")
			var work *WorkError
			assert.Equal(t, tc.work, errors.As(err, &work), "a *WorkError when the lab failed, not otherwise")
		})
	}
	assert.NoError(t, check(Parse(strings.NewReader(output)), output, nil), "a complete run")
}

func TestRatiosPairTheRunsOfTheSameGoTestRun(t *testing.T) {
	m := Parse(strings.NewReader(output))

	open, ok := comparisonOf(t, "BenchmarkDe01/open-windows").Ratio(m, LabPkg)
	require.True(t, ok)
	assert.Equal(t, Ratio{Mean: 20, Min: 10, Max: 30, Runs: 2, Subject: 10000, Baseline: 500}, open)

	thr, ok := comparisonOf(t, "BenchmarkDe01/throughput-250000").Ratio(m, "")
	require.True(t, ok)
	assert.Equal(t, 2, thr.Runs)
	assert.InDelta(t, (1.0+0.5)/2, thr.Mean, 1e-9, "the lab's speed, the reference's ns over the lab's, run by run")
	assert.Equal(t, 0.5, thr.Min)
	assert.Equal(t, 1.0, thr.Max)

	_, ok = comparisonOf(t, "BenchmarkDe04/snapshot-100000").Ratio(m, RefPkg)
	assert.False(t, ok, "no ratio without samples")
}

func TestReportPrintsTheComparisonsOfTheStagesReached(t *testing.T) {
	m := Parse(strings.NewReader(output))
	m.Stages = Stages(4)
	var out strings.Builder
	Report(&out, m)
	text := out.String()
	for _, want := range []string{
		"your processor: 0.75× the reference (0.50–1.00× over 2 runs), 2 allocs/event\n  over the benchmark stream at 250 000 events (--full: at 1 000 000)\n",
		"  lab/:          2000.0 CPU ns/event, 2 allocs/event (2 run(s))\n",
		"01 per event, 10 000 open windows ÷ 2 (flat, about 1×, is the goal):\n",
		"  lab/:        20×  (500 → 10000 CPU ns/event; 10–30× over 2 runs)\n",
		"  reference:   1.20×  (500 → 600 CPU ns/event; 1.10–1.30× over 2 runs)\n",
		"  20× on your lab/: your processor does work in proportion to its open windows on every event",
		"03 per event, 10 000 fired windows waiting out their lateness ÷ 2",
		"  reference:   not measured\n",
		"04 Snapshot, per window, 100 000 windows ÷ 1 000 (linear, about 1×, is the goal):\n",
		"  lab/:        1.20×  (150 → 180 CPU ns/window; 1.20–1.20× over 2 runs)\n",
		"04 snapshot size, per window, 100 000 windows ÷ 1 000",
		"(22.57 → 26.51 bytes/window; 1.17–1.17× over 2 runs)",
		"  noise floor: the reference's own 2 runs read 0.80–1.20× its mean; a ratio within that is no difference\n",
		"--full",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "RestoreProcessor", "a comparison with no samples is left out")
	assert.Equal(t, 1, strings.Count(text, " on your lab/: "), "the diagnosis only where the lab's ratio calls for it")

	m.Stages = Stages(1)
	out.Reset()
	Report(&out, m)
	assert.NotContains(t, out.String(), "03 ", "only the stages run")
	assert.NotContains(t, out.String(), "04 ")
}

func TestTableIsConsistent(t *testing.T) {
	names := map[string]Benchmark{}
	last := 0
	for _, b := range Benchmarks {
		assert.GreaterOrEqual(t, b.Stage, last, "%s: the table is in stage order", b.FullName())
		last = b.Stage
		_, dup := names[b.FullName()]
		assert.False(t, dup, "%s twice", b.FullName())
		names[b.FullName()] = b
	}
	for _, s := range Stages(99) {
		src, ok := adapters[s]
		if assert.True(t, ok, "stage %02d has benchmarks and needs an adapter", s) {
			assert.Contains(t, src, "func "+TopLevel(s)+"(b *testing.B)")
			for _, pkg := range []string{"lab", "solutions"} {
				_, err := parser.ParseFile(token.NewFileSet(), "adapter.go", adapter(pkg, s), 0)
				assert.NoError(t, err, "stage %02d's adapter for package %s parses", s, pkg)
			}
		}
	}
	assert.Len(t, adapters, len(Stages(99)), "no adapter without benchmarks")
	for _, c := range Comparisons {
		if c.Across {
			assert.NotEmpty(t, c.Legend, "%s (%s): the lab's speed is printed with the events it is over", c.Title, c.Subject.Benchmark)
		}
		for _, metric := range []Metric{c.Subject, c.Baseline} {
			if metric == (Metric{}) && c.Across {
				continue
			}
			b, ok := names[metric.Benchmark]
			if assert.True(t, ok, "%s: %s is in the table", c.Title, metric.Benchmark) {
				// A default run has one stage's benchmarks: a comparison
				// over another stage's would never print in it.
				assert.Equal(t, c.Stage, b.Stage, "%s: its benchmarks are its stage's", c.Title)
			}
		}
	}
	assert.Equal(t, []int{1, 3}, Stages(3))
	assert.Empty(t, Stages(0))
}

// TestDefaultRunIsOneStage certifies which stages a run measures: by
// default only the stage the learner is at, or at a stage without
// benchmarks of its own the latest before it, so that the quick run
// answers in seconds at any stage; with All every stage up to it.
func TestDefaultRunIsOneStage(t *testing.T) {
	for _, tc := range []struct {
		stage int
		all   bool
		want  []int
		scope string
	}{
		{1, false, []int{1}, ""},
		{2, false, []int{1}, "stage 02 has no benchmarks of its own: these are stage 01's"},
		{4, false, []int{4}, "de bench --all adds stage(s) 01, 03"},
		{8, false, []int{4}, "stage 08 has no benchmarks of its own: these are stage 04's; de bench --all adds stage(s) 01, 03"},
		{12, false, []int{12}, "de bench --all adds stage(s) 01, 03, 04, 09, 10, 11"},
		{4, true, []int{1, 3, 4}, ""},
		{8, true, []int{1, 3, 4}, "stage 08 has no benchmarks of its own"},
		{12, true, Stages(12), ""},
		{0, false, nil, ""},
		{0, true, nil, ""},
	} {
		o := Options{Stage: tc.stage, All: tc.all, Count: 1}
		assert.Equal(t, tc.want, o.Selected(), "stage %02d, All %v", tc.stage, tc.all)
		assert.Equal(t, tc.scope, o.Scope(), "stage %02d, All %v: the line under the first", tc.stage, tc.all)
		assert.Equal(t, len(tc.want) == 0, o.Validate() != nil, "stage %02d, All %v: valid only with benchmarks to run", tc.stage, tc.all)
	}
	assert.Len(t, Stages(12), 7, "every stage with benchmarks: 01 03 04 09 10 11 12")
}

func TestBenchPatternSelectsTheStagesFunctionsOnly(t *testing.T) {
	assert.Equal(t, "^(BenchmarkDe01|BenchmarkDe03)$/^(throughput-250000|open-windows|baselines-100000|expiring-windows)$", benchPattern([]int{1, 3}, false))
	assert.Equal(t, "^(BenchmarkDe01|BenchmarkDe03)$/^(throughput|open-windows|baselines-10000|baselines-100000|baselines-1000000|baselines-4000000|expiring-windows)$", benchPattern([]int{1, 3}, true))
	assert.Equal(t, "^(BenchmarkDe03)$/^(expiring-windows)$", benchPattern([]int{3}, false), "stage 03 alone")
}

// TestQuickAndFullRunsMeasureTheirOwnScale certifies that the quick
// default run measures stage 01's throughput over 250 000 events and
// --full over the million of the benchmark stream; stage 04's checkpoints at the small scale and --full
// at the million windows of the card, each one scale only; that stage 10's
// quick run takes 10 000 and 100 000 events and --full 100 000 and
// 1 000 000; that stage 01's baselines run at 100 000 events and --full
// at issue 16's four lengths; that stage 12's quick run takes 5 000 events per event cost
// and its checkpoints from a kept state, --full 20 000 and a fresh state
// per sample; and that every other
// benchmark runs in both.
func TestQuickAndFullRunsMeasureTheirOwnScale(t *testing.T) {
	for _, tc := range []struct {
		full bool
		want string
	}{
		{false, "^(BenchmarkDe01|BenchmarkDe03|BenchmarkDe04)$/^(throughput-250000|open-windows|baselines-100000|expiring-windows|snapshot-100000|restore-100000)$"},
		{true, "^(BenchmarkDe01|BenchmarkDe03|BenchmarkDe04)$/^(throughput|open-windows|baselines-10000|baselines-100000|baselines-1000000|baselines-4000000|expiring-windows|snapshot-1000000|restore-1000000)$"},
	} {
		assert.Equal(t, tc.want, benchPattern(Stages(4), tc.full), "full %v", tc.full)
		for _, b := range benchmarksOf(Stages(4), tc.full) {
			if b.Kind == Throughput {
				want := map[bool]int{false: 250_000, true: 1_000_000}[tc.full]
				assert.Equal(t, want, b.Subject.Events, "%s in the run with full %v", b.FullName(), tc.full)
			}
			if b.Stage == 4 {
				want := map[bool]int{false: 100_000, true: 1_000_000}[tc.full]
				assert.Equal(t, want, b.Subject.Windows, "%s in the run with full %v", b.FullName(), tc.full)
			}
		}
	}
	for _, tc := range []struct {
		full          bool
		want, against []int
	}{{false, []int{10_000, 100_000}, []int{100_000}}, {true, []int{100_000, 1_000_000}, []int{10_000, 100_000, 1_000_000, 4_000_000}}} {
		var got, against []int
		for _, b := range benchmarksOf(Stages(10), tc.full) {
			if b.Stage == 10 {
				got = append(got, b.Subject.Events)
			}
			if b.Kind == Baselines {
				against = append(against, b.Subject.Events)
			}
		}
		assert.Equal(t, tc.want, got, "stage 10's stream lengths in the run with full %v", tc.full)
		assert.Equal(t, tc.against, against, "stage 01's lengths against the baselines in the run with full %v: issue 16's four in --full", tc.full)
	}
	m := Parse(strings.NewReader(outputExtensions)) // --full's lengths, 100 000 and 1 000 000
	m.Stages = Stages(10)
	var quick strings.Builder
	Report(&quick, m)
	assert.NotContains(t, quick.String(), "1 000 000 events", "the quick run's report has no row of --full's")
	assert.Contains(t, quick.String(), "remembered IDs, 10 000 events:")
	for _, tc := range []struct {
		full bool
		want []string
	}{
		{false, []string{"backend-throughput-5000", "backend-memory", "backend-checkpoint-kept"}},
		{true, []string{"backend-throughput", "backend-memory", "backend-checkpoint"}},
	} {
		var got []string
		for _, b := range benchmarksOf(Stages(12), tc.full) {
			if b.Stage == 12 {
				got = append(got, b.Name)
			}
		}
		assert.Equal(t, tc.want, got, "stage 12's benchmarks in the run with full %v: the quick run takes fewer events per event cost and its checkpoints from a state kept per test binary, --full fills one per sample", tc.full)
	}
	for _, b := range Benchmarks {
		if b.Kind != Throughput && b.Kind != Baselines && b.Stage != 4 && b.Stage != 10 && b.Stage != 12 {
			assert.True(t, b.In(false) && b.In(true), "%s must run in both runs", b.FullName())
		}
	}
}

// exitError returns the error of a command that ran and failed.
func exitError(t *testing.T) error {
	t.Helper()
	err := exec.Command("go", "env", "-no-such-flag").Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	return err
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the reports")

// output09 is go test -bench output of stage 09's benchmarks for both
// packages, with -count 2 on the lab and 1 on the reference, whose
// size-slide-64 did not run: a lab that updates every window and slows
// down with its state, beside a reference that slices.
const output09 = `pkg: github.com/flk-byo/course/lab
BenchmarkDe09/size-slide-1-2    	      36	  36637746 ns/op	       500.0 cpu-ns/event	       480.0 naive-cpu-ns/event	       470.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-1-2    	      36	  36637746 ns/op	       520.0 cpu-ns/event	       500.0 naive-cpu-ns/event	       490.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-4-2    	      38	  47197844 ns/op	       600.0 cpu-ns/event	       470.0 naive-cpu-ns/event	       380.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-4-2    	      38	  47197844 ns/op	       640.0 cpu-ns/event	       480.0 naive-cpu-ns/event	       400.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-16-2   	      19	 104731527 ns/op	      4000 cpu-ns/event	      1000 naive-cpu-ns/event	       450.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-16-2   	      19	 104731527 ns/op	      4400 cpu-ns/event	      1100 naive-cpu-ns/event	       460.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-64-2   	       5	 241744738 ns/op	     32000 cpu-ns/event	      3200 naive-cpu-ns/event	       800.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-64-2   	       5	 241744738 ns/op	     35200 cpu-ns/event	      3200 naive-cpu-ns/event	       800.0 sliced-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/lab	25.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDe09/size-slide-1-2    	      36	  36637746 ns/op	       490.0 cpu-ns/event	       480.0 naive-cpu-ns/event	       490.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-4-2    	      38	  47197844 ns/op	       400.0 cpu-ns/event	       480.0 naive-cpu-ns/event	       380.0 sliced-cpu-ns/event
BenchmarkDe09/size-slide-16-2   	      19	 104731527 ns/op	       500.0 cpu-ns/event	      1000 naive-cpu-ns/event	       450.0 sliced-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/solutions	20.3s
`

// TestReportPrintsStage09AsOneTable pins de bench's stage 09 table against
// testdata/report09.golden: a row per Size/Slide and strategy, the lab's
// ratio beside the reference's, each from the same run's pairs, "not
// measured" where a benchmark did not run, and the diagnosis where the
// lab's ratio to the naive strategy calls for it. go test
// ./internal/bench -update rewrites the file after a deliberate change.
func TestReportPrintsStage09AsOneTable(t *testing.T) {
	m := Parse(strings.NewReader(output09))
	require.Empty(t, m.Failures)
	m.Stages = Stages(9)
	var out strings.Builder
	Report(&out, m)
	assertGolden(t, "report09.golden", out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "09 sliding windows"), "one heading for the whole table")

	r, ok := comparisonOf(t, "BenchmarkDe09/size-slide-16").Ratio(m, LabPkg)
	require.True(t, ok)
	assert.Equal(t, Ratio{Mean: 4, Min: 4, Max: 4, Runs: 2, Subject: 4200, Baseline: 1050}, r, "÷ naive, run by run")

	m.Stages = Stages(8)
	out.Reset()
	Report(&out, m)
	assert.Empty(t, out.String(), "nothing of stage 09 before it")
}

// assertGolden checks got against testdata/name, or rewrites the file
// with -update.
func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./internal/bench -update to create it")
	assert.Equal(t, string(want), got, "the report in %s changed; go test ./internal/bench -update accepts the change", name)
}

// output12 is go test -bench output of stage 12's benchmarks in the quick
// run for both packages, with -count 2 on the lab and 1 on the reference,
// whose checkpoint benchmark did not run: a lab whose Pebble backend keeps
// its state on the Go heap too, beside a reference that spills. The lab's
// checkpoints come from a state kept between samples, so only its first
// sample has a first checkpoint.
const output12 = `pkg: github.com/flk-byo/course/lab
BenchmarkDe12/backend-throughput-5000-2         	       1	1585302555 ns/op	     50000 cpu-ns/event	      5000 heap-cpu-ns/event
BenchmarkDe12/backend-throughput-5000-2         	       1	1585302555 ns/op	     60000 cpu-ns/event	      5000 heap-cpu-ns/event
BenchmarkDe12/backend-memory-2             	       1	 442753600 ns/op	     13000 heap-live-B/window	     15000 live-B/window
BenchmarkDe12/backend-memory-2             	       1	 442753600 ns/op	     13000 heap-live-B/window	     14000 live-B/window
BenchmarkDe12/backend-checkpoint-kept-2    	       1	5317260438 ns/op	 200.0 heap-ms/checkpoint	 100.0 heap-ms/next-checkpoint	  15.00 ms/checkpoint	  14.00 ms/next-checkpoint
BenchmarkDe12/backend-checkpoint-kept-2    	       1	 317260438 ns/op	 100.0 heap-ms/next-checkpoint	  16.00 ms/next-checkpoint
PASS
ok  	github.com/flk-byo/course/lab	25.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDe12/backend-throughput-5000-2         	       1	1585302555 ns/op	     57719 cpu-ns/event	      5241 heap-cpu-ns/event
BenchmarkDe12/backend-memory-2             	       1	 442753600 ns/op	     13078 heap-live-B/window	       635.6 live-B/window
PASS
ok  	github.com/flk-byo/course/solutions	20.3s
`

// TestReportPrintsStage12AsOneTable pins de bench's stage 12 table against
// testdata/report12.golden: a row per measure, Pebble over the heap
// backend in the lab and in the reference, each from the same run's pairs,
// "not measured" where a benchmark did not run, and the diagnosis where
// the lab's Pebble backend holds its state on the Go heap.
func TestReportPrintsStage12AsOneTable(t *testing.T) {
	m := Parse(strings.NewReader(output12))
	require.Empty(t, m.Failures)
	m.Stages = Stages(12)
	var out strings.Builder
	Report(&out, m)
	assertGolden(t, "report12.golden", out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "12 heap against disk"), "one heading for the whole table")
	assert.Equal(t, 1, strings.Count(out.String(), " on your lab/: "), "the diagnosis only where the lab's ratio calls for it")

	r, ok := comparisonOf(t, "BenchmarkDe12/backend-throughput-5000").Ratio(m, LabPkg)
	require.True(t, ok)
	assert.Equal(t, Ratio{Mean: 11, Min: 10, Max: 12, Runs: 2, Subject: 55000, Baseline: 5000}, r, "Pebble ÷ heap, run by run")

	m.Stages = Stages(11)
	out.Reset()
	Report(&out, m)
	assert.Empty(t, out.String(), "nothing of stage 12 before it")
}

// outputExtensions is go test -bench output of stage 10's and stage 11's
// benchmarks for both packages, with -count 2 on the lab and 1 on the
// reference, whose longer stream of stage 10 did not run: a lab that
// never forgets an ID, and whose broadcast check slows with its rules,
// beside the reference.
const outputExtensions = `pkg: github.com/flk-byo/course/lab
BenchmarkDe10/events-100000-2     	       4	 262780356 ns/op	      1400 cpu-ns/event	      1200 nottl-cpu-ns/event	    100000 nottl-remembered-IDs	    100000 remembered-IDs
BenchmarkDe10/events-100000-2     	       4	 262780356 ns/op	      1500 cpu-ns/event	      1200 nottl-cpu-ns/event	    100000 nottl-remembered-IDs	    100000 remembered-IDs
BenchmarkDe10/events-1000000-2    	       1	3074738223 ns/op	      1600 cpu-ns/event	      1700 nottl-cpu-ns/event	   1000000 nottl-remembered-IDs	   1000000 remembered-IDs
BenchmarkDe10/events-1000000-2    	       1	3074738223 ns/op	      1800 cpu-ns/event	      1700 nottl-cpu-ns/event	   1000000 nottl-remembered-IDs	   1000000 remembered-IDs
BenchmarkDe11/prefixes-1-2        	       2	 592796958 ns/op	      7600 cpu-ns/event	      4200 parallel-cpu-ns/event
BenchmarkDe11/prefixes-1-2        	       2	 592796958 ns/op	      8000 cpu-ns/event	      4000 parallel-cpu-ns/event
BenchmarkDe11/prefixes-10-2       	       5	 231045654 ns/op	     12000 cpu-ns/event	      4000 parallel-cpu-ns/event
BenchmarkDe11/prefixes-10-2       	       5	 231045654 ns/op	     12000 cpu-ns/event	      4000 parallel-cpu-ns/event
BenchmarkDe11/prefixes-100-2      	       3	 371986677 ns/op	     80000 cpu-ns/event	      4000 parallel-cpu-ns/event
BenchmarkDe11/prefixes-100-2      	       3	 371986677 ns/op	     84000 cpu-ns/event	      4000 parallel-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/lab	25.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDe10/events-100000-2     	       4	 262780356 ns/op	      1404 cpu-ns/event	      1160 nottl-cpu-ns/event	    100000 nottl-remembered-IDs	       379.0 remembered-IDs
BenchmarkDe11/prefixes-1-2        	       2	 592796958 ns/op	      7637 cpu-ns/event	      4245 parallel-cpu-ns/event
BenchmarkDe11/prefixes-10-2       	       5	 231045654 ns/op	      6883 cpu-ns/event	      3503 parallel-cpu-ns/event
BenchmarkDe11/prefixes-100-2      	       3	 371986677 ns/op	     11291 cpu-ns/event	      4382 parallel-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/solutions	20.3s
`

// TestReportPrintsStages10And11AsOneTableEach pins de bench's stage 10
// and stage 11 tables against testdata/report10.golden and
// report11.golden: a row per stream length and measure (stage 10) or per
// number of prefixes (stage 11), the lab's ratio beside the reference's,
// each from the same run's pairs, "not measured" where a benchmark did not
// run, and stage 10's diagnosis where the lab remembers every ID with the
// TTL at the longer stream; a stage's table only once it is reached.
func TestReportPrintsStages10And11AsOneTableEach(t *testing.T) {
	m := Parse(strings.NewReader(outputExtensions))
	require.Empty(t, m.Failures)
	for _, tc := range []struct {
		stage           int
		golden, heading string
		diagnoses       int
		subject         string
		want            Ratio
	}{
		{10, "report10.golden", "10 forgetting seen IDs", 1, "BenchmarkDe10/events-100000",
			Ratio{Mean: (1400.0/1200 + 1500.0/1200) / 2, Min: 1400.0 / 1200, Max: 1500.0 / 1200, Runs: 2, Subject: 1450, Baseline: 1200}},
		{11, "report11.golden", "11 broadcast rules", 0, "BenchmarkDe11/prefixes-1",
			Ratio{Mean: (7600.0/4200 + 2) / 2, Min: 7600.0 / 4200, Max: 2, Runs: 2, Subject: 7800, Baseline: 4100}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			m.Stages, m.Full = []int{tc.stage}, true // the lengths of --full
			var out strings.Builder
			Report(&out, m)
			report := out.String()
			if tc.stage == 10 {
				report, _, _ = strings.Cut(report, "note: ")
			}
			assertGolden(t, tc.golden, report)
			assert.Equal(t, 1, strings.Count(out.String(), tc.heading), "one heading for the whole table")
			assert.Equal(t, tc.diagnoses, strings.Count(report, " on your lab/: "), "the diagnosis only where the lab's ratio calls for it")
			r, ok := comparisonOf(t, tc.subject).Ratio(m, LabPkg)
			require.True(t, ok)
			assert.InDelta(t, tc.want.Mean, r.Mean, 1e-9)
			assert.InDelta(t, tc.want.Subject, r.Subject, 1e-9)
			assert.InDelta(t, tc.want.Baseline, r.Baseline, 1e-9)
			assert.Equal(t, tc.want.Runs, r.Runs)

			m.Stages = Stages(tc.stage - 1)
			out.Reset()
			Report(&out, m)
			assert.NotContains(t, out.String(), tc.heading, "nothing of stage %02d before it", tc.stage)
		})
	}
}

// TestNoiseFloorIsTheReferencesOwnSpread certifies that the noise floor
// de bench prints beside the lab's speed is the range of the reference's
// own runs over their mean, and that one run says it has none rather than
// print a ratio of one.
func TestNoiseFloorIsTheReferencesOwnSpread(t *testing.T) {
	for _, tc := range []struct {
		ref  []float64
		want string
	}{
		{[]float64{1000}, "noise floor: one run has no range; -count 3 or more prints this run's, and a ratio within it is no difference"},
		{[]float64{900, 1000, 1100}, "noise floor: the reference's own 3 runs read 0.90–1.10× its mean; a ratio within that is no difference"},
		{[]float64{1000, 1000}, "noise floor: the reference's own 2 runs read 1.00–1.00× its mean; a ratio within that is no difference"},
	} {
		assert.Equal(t, tc.want, noiseFloor(tc.ref), "runs %v", tc.ref)
	}
}

// TestProgressCountsEachResultOnce certifies that Options.Progress gets a
// line per benchmark result, however go test's output is split into
// writes, naming the side (lab/ or reference) by the "pkg:" header before
// it, and nothing for the other lines, broken results included.
func TestProgressCountsEachResultOnce(t *testing.T) {
	for _, chunk := range []int{1, 7, len(output)} {
		var got strings.Builder
		p := &progress{w: &got, total: 12, start: time.Now()}
		for rest := output; rest != ""; {
			n := min(chunk, len(rest))
			_, err := p.Write([]byte(rest[:n]))
			require.NoError(t, err)
			rest = rest[n:]
		}
		lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
		require.Len(t, lines, 12, "writes of %d bytes: a line per result, the broken one included once its numbers come:\n%s", chunk, got.String())
		assert.True(t, strings.HasPrefix(lines[0], "  [1/12] lab/ BenchmarkDe01/throughput-250000 ("), "first line: %q", lines[0])
		assert.True(t, strings.HasPrefix(lines[8], "  [9/12] reference BenchmarkDe01/throughput-250000 ("), "first reference line: %q", lines[8])
	}
}

// output01 is go test -bench output of two of stage 01's baselines
// benchmarks in --full, with -count 2 on the lab and 1 on the reference,
// whose 100 000-event one did not run, with the metrics Race reports
// beside the ones de bench reads: a lab twice the reference's cost per
// event.
const output01 = `pkg: github.com/flk-byo/course/lab
BenchmarkDe01/baselines-10000-2         	       1	 931655314 ns/op	         0.40 processor/fold	         0.35 processor/fold-min	         0.45 processor/fold-max	       800.0 fold+dedup-cpu-ns/event	       500.0 fold-cpu-ns/event	      1400 naive-cpu-ns/event	      1250 processor-cpu-ns/event
BenchmarkDe01/baselines-10000-2         	       1	 931655314 ns/op	       800.0 fold+dedup-cpu-ns/event	       500.0 fold-cpu-ns/event	      1400 naive-cpu-ns/event	      1350 processor-cpu-ns/event
BenchmarkDe01/baselines-100000-2        	       1	 998957541 ns/op	      1000 fold+dedup-cpu-ns/event	       500.0 fold-cpu-ns/event	      1400 naive-cpu-ns/event	      1500 processor-cpu-ns/event
BenchmarkDe01/baselines-100000-2        	       1	 998957541 ns/op	      1000 fold+dedup-cpu-ns/event	       500.0 fold-cpu-ns/event	      1400 naive-cpu-ns/event	      1500 processor-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/lab	25.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDe01/baselines-10000-2         	       1	 618035081 ns/op	       650.0 fold+dedup-cpu-ns/event	       500.0 fold-cpu-ns/event	      1350 naive-cpu-ns/event	       540.0 processor-cpu-ns/event
PASS
ok  	github.com/flk-byo/course/solutions	20.3s
`

// TestReportPrintsStage01BaselinesAsOneTable pins de bench's table of
// stage 01 against the fold, the fold with dedup and the naive learner
// (testdata/report01.golden): a row per length and baseline, the lab's
// cost per event over the baseline's beside the reference's, each from
// the same run's pairs, "not measured" where a benchmark did not run, and
// in the quick run only the rows of its length.
func TestReportPrintsStage01BaselinesAsOneTable(t *testing.T) {
	m := Parse(strings.NewReader(output01))
	require.Empty(t, m.Failures)
	m.Stages, m.Full = []int{1}, true
	var out strings.Builder
	Report(&out, m)
	assertGolden(t, "report01.golden", out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "01 against three baselines"), "one heading for the whole table")

	m.Full = false
	out.Reset()
	Report(&out, m)
	assert.Contains(t, out.String(), "  100 000 events ÷ naive:  ", "the quick run's length")
	assert.NotContains(t, out.String(), "  10 000 events ÷", "no row of --full's lengths in the quick run")

	r, ok := comparisonOf(t, "BenchmarkDe01/baselines-10000").Ratio(m, LabPkg)
	require.True(t, ok)
	assert.Equal(t, Ratio{Mean: 2.6, Min: 2.5, Max: 2.7, Runs: 2, Subject: 1300, Baseline: 500}, r, "÷ fold, run by run")
}
