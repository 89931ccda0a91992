//go:build solution

package stagebench

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// referenceNew is the reference's NewProcessor, as the adapter hands a
// package's to the benchmarks.
func referenceNew(c Config) (Processor, error) { return solutions.NewProcessor(solutions.Config(c)) }

// TestNaiveMatchesReference certifies that the naive baseline
// (NewNaive), which BenchmarkRatios and de bench divide by, returns, call
// by call, the results of the reference's Processor on the benchmark
// stream, at the shortest length they run and at a longer one, with
// redeliveries: a baseline that did less work would flatter the processor
// it is set against.
func TestNaiveMatchesReference(t *testing.T) {
	defer suite.Recover(t)
	for _, n := range []int{10_000, 100_000} {
		t.Run(fmt.Sprintf("events=%d", n), func(t *testing.T) {
			defer suite.Recover(t)
			stream := kit.BenchmarkStreamOf(n)
			events := append(kit.WithDuplicates(suite.Rand(t), stream[:n/10], 0.01), stream[n/10:]...)
			ref, err := referenceNew(Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder})
			require.NoError(t, err)
			naive := NewNaive(kit.BenchmarkWindow, kit.BenchmarkDisorder)
			results := 0
			check := func(call string, want, got []kit.Result) {
				t.Helper()
				if !slices.Equal(want, got) {
					t.Fatalf("%s: the reference returned %d results, the naive baseline %d:\nreference: %v\nnaive:     %v\nthe benchmarks compare the two as doing the same work, so they must agree",
						call, len(want), len(got), want[:min(len(want), 5)], got[:min(len(got), 5)])
				}
				results += len(want)
			}
			for i, e := range events {
				check(fmt.Sprintf("Process(%v), event %d", e, i), ref.Process(e), naive.Process(e))
			}
			check("Flush()", ref.Flush(), naive.Flush())
			require.Positive(t, results, "no results at all: the stream must fire windows")
		})
	}
}

// TestFoldDedupFoldsEachIDOnce certifies the fold+dedup baseline: over a
// stream with redeliveries, FoldDedup with a Go map of IDs (de bench's) is
// the fold of the stream without them, and the fold of the whole stream
// counts the redeliveries, which is the work fold+dedup adds. Windows
// start at the multiple of the size at or below a timestamp, negative
// ones included.
func TestFoldDedupFoldsEachIDOnce(t *testing.T) {
	stream := kit.BenchmarkStreamOf(10_000)
	redelivered := kit.WithDuplicates(suite.Rand(t), stream, 0.05)
	require.Greater(t, len(redelivered), len(stream), "the stream has redeliveries")
	want := Fold(stream, kit.BenchmarkWindow)
	assert.True(t, maps.Equal(want, FoldDedup(redelivered, kit.BenchmarkWindow, MapSet())), "fold+dedup over redeliveries is the fold without them")
	assert.False(t, maps.Equal(want, Fold(redelivered, kit.BenchmarkWindow)), "the plain fold counts redeliveries")

	for _, tc := range []struct{ ts, start int64 }{{0, 0}, {999, 0}, {1000, 1000}, {-1, -1000}, {-1000, -1000}, {-1001, -2000}} {
		assert.Equal(t, tc.start, floor(tc.ts, 1000), "the window of %d", tc.ts)
	}
}

// TestBaselinesTimesEveryContender certifies that stage 01's baselines
// benchmark reports the cost per event of the processor and of each
// baseline the table divides it by, and the processor's speed over each.
func TestBaselinesTimesEveryContender(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) { Baselines(b, API{New: referenceNew}, 10_000) })
	require.Positive(t, res.N, "the benchmark ran")
	for _, name := range []string{"processor", "fold", "fold+dedup", "naive"} {
		assert.Positive(t, res.Extra[name+"-cpu-ns/event"], "Baselines reports %s-cpu-ns/event", name)
	}
	for _, name := range []string{"fold", "fold+dedup", "naive"} {
		assert.Contains(t, res.Extra, "processor/"+name, "and the processor's speed over %s", name)
	}
}
