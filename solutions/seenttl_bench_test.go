//go:build solution

package solutions

import (
	"testing"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
)

// seenTTLAPI is the reference's stage 10 API, as stagebench calls it.
var seenTTLAPI = stagebench.API{
	NewSeenTTL: func(c stagebench.Config, seenTTL int64) (stagebench.SeenTTLProcessor, error) {
		return NewSeenTTLProcessor(Config(c), seenTTL)
	},
}

// BenchmarkSeenTTL measures the lesson of stage 10 on the reference alone:
// de bench's stage 10 benchmarks (package stagebench), which run prefixes
// of the benchmark stream (1 s windows, 5 s of disorder as the watermark
// delay) of 10 000, 100 000 and 1 000 000 events through a processor with the
// tight TTL, WindowSize + AllowedLateness, and one without a TTL, in turn
// within every iteration, and report per event the CPU time of each and,
// as remembered-IDs, how many IDs each remembers at the end of the stream
// (before Flush): without a TTL every ID, so it grows with the stream;
// with one, the IDs of the last TTL + delay of event time, about 6 s of
// the stream's 100 events a second, however long it runs. The numbers
// without a TTL have nottl- in front.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkSeenTTL$' ./solutions
func BenchmarkSeenTTL(b *testing.B) {
	for _, bm := range bench.Benchmarks {
		if bm.Kind == bench.SeenTTL {
			b.Run(bm.Name, func(b *testing.B) { stagebench.Measure(b, bm, seenTTLAPI) })
		}
	}
}
