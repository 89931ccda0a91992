//go:build solution

package stagebench

// The tests that compare a benchmark's bodies with the reference: they
// build only with -tags solution (as the suites do), so that a student
// template, which has no solutions/, still builds and vets.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestStrategiesMatchTheReference checks the sliding benchmarks' two
// strategies: over the sliding stream, at every Size/Slide the benchmarks
// measure, the naive and the sliced one return, call by call, what the
// reference's SlidingProcessor returns. They are what a learner's cost is
// divided by, so they must do the whole of the work the stream asks for.
func TestStrategiesMatchTheReference(t *testing.T) {
	events := SlidingStream()
	for _, ratio := range bench.SlidingRatios {
		cfg := slidingConfig(bench.Shape{SizeSlide: ratio})
		ref, err := solutions.NewSlidingProcessor(solutions.SlidingConfig(cfg))
		require.NoError(t, err)
		want := run(ref, events)
		require.NotEmpty(t, want)
		for _, sliced := range []bool{false, true} {
			got := run(NewStrategy(cfg, sliced), events)
			require.Equal(t, len(want), len(got), "size/slide %d, sliced %v: as many calls", ratio, sliced)
			for i := range want {
				require.Equal(t, want[i], got[i], "size/slide %d, sliced %v: call %d (the last is Flush)", ratio, sliced, i)
			}
		}
	}
}

// run hands p every event and then calls Flush, and returns what each call
// returned.
func run(p Processor, events []kit.Event) [][]kit.Result {
	var out [][]kit.Result
	for _, e := range events {
		out = append(out, p.Process(e))
	}
	return append(out, p.Flush())
}
