//go:build solution

package solutions

import (
	"testing"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
)

// BenchmarkSliding measures the lesson of stage 09 on the reference alone:
// de bench's stage 09 benchmarks (package stagebench), which time the
// SlidingProcessor beside a naive strategy (an update in each of an
// event's windows) and a sliced one (one update in its slice, a merge of
// Size/Slide slices per firing) as Size/Slide grows, and report the CPU
// time per event of each. The plain build updates every window, as the
// naive strategy does; the tuned one (-tags fast) is what de bench shows.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkSliding$' -benchmem ./solutions
func BenchmarkSliding(b *testing.B) {
	api := stagebench.API{NewSliding: func(c stagebench.SlidingConfig) (stagebench.Processor, error) {
		return NewSlidingProcessor(SlidingConfig(c))
	}}
	for _, bm := range bench.Benchmarks {
		if bm.Kind == bench.Sliding {
			b.Run(bm.Name, func(b *testing.B) { stagebench.Measure(b, bm, api) })
		}
	}
}
