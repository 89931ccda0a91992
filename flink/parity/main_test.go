//go:build flink

package parity

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/flinkrun"
)

// scenarios is how many random scenarios each differential test runs.
var scenarios = flag.Int("flink.scenarios", 500, "random scenarios per differential test")

// flink is the one Flink runner every test of the package sends its
// scenarios to, one at a time; nil when Java or Maven is missing.
var flink *flinkrun.Runner

// missing says what is missing when flink is nil.
var missing string

// env is the machine's Java and Maven and the course's Flink module, for
// the benchmarks' own JVM (peer_bench_test.go); nil when flink is.
var env *flinkrun.Env

// timed is the Flink runner BenchmarkFlinkPeer times, in a JVM of its own
// tuned for timing (flinkrun.Env.StartForTiming), started by the first
// benchmark that needs it; nil until then, and in a run of tests alone.
var timed *peer

func TestMain(m *testing.M) {
	flag.Parse()
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parity:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	root, err := coursedir.FindRoot(".")
	if err != nil {
		return 0, err
	}
	env, err = flinkrun.Find(root)
	if err != nil {
		if os.Getenv("FLK_FLINK") == "required" {
			return 0, fmt.Errorf("FLK_FLINK=required, but %w", err)
		}
		missing = err.Error()
		return m.Run(), nil
	}
	ctx := context.Background()
	if err := env.Build(ctx, os.Stderr); err != nil {
		return 0, err
	}
	if flink, err = env.Start(ctx); err != nil {
		return 0, err
	}
	code := m.Run()
	if err := flink.Close(); err != nil && code == 0 {
		return 0, fmt.Errorf("the Flink runner: %w", err)
	}
	if timed != nil {
		if err := timed.close(); err != nil && code == 0 {
			return 0, fmt.Errorf("the benchmarks' Flink runner: %w", err)
		}
	}
	return code, nil
}

// needFlink skips t (a test or a benchmark) when Java or Maven is missing.
func needFlink(t testing.TB) {
	t.Helper()
	if flink == nil {
		t.Skipf("Flink is not in the loop here: %s", missing)
	}
}
