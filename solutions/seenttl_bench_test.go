//go:build solution

package solutions

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// BenchmarkSeenTTL measures the lesson of stage 10: what forgetting seen
// IDs costs per event, and what it saves. It runs prefixes of the course's
// benchmark stream (1 s windows, 5 s of disorder as the watermark delay)
// that grow tenfold (up to 300 000 events, so that CI's one pass stays short), on a processor without a TTL and on one with the
// tight TTL, WindowSize + AllowedLateness, and reports per event the time
// and allocations, and, as remembered-IDs, how many IDs each remembers at
// the end of the stream (before Flush): without a TTL that is every ID, so
// it grows with the stream; with one, the IDs of the last TTL + delay of
// event time, about 6 s of the stream's 100 events a second, however long
// it runs.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkSeenTTL$' ./solutions
func BenchmarkSeenTTL(b *testing.B) {
	all := stagebench.BenchmarkStream()
	cfg := Config{WindowSize: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}
	for _, n := range []int{3_000, 30_000, 300_000} {
		events := all[:n]
		for _, ttl := range []int64{0, cfg.WindowSize + cfg.AllowedLateness} {
			b.Run(fmt.Sprintf("events-%d/ttl-%d", n, ttl), func(b *testing.B) {
				b.ReportAllocs()
				remembered := 0
				cost := stagebench.Loop(b, func() {
					p, err := NewSeenTTLProcessor(cfg, ttl)
					if err != nil {
						b.Fatal(err)
					}
					for _, e := range events {
						sinkResults = p.Process(e)
					}
					remembered = p.RememberedIDs()
					sinkResults = p.Flush()
				})
				perEvent(b, cost, len(events))
				b.ReportMetric(float64(remembered), "remembered-IDs")
			})
		}
	}
}
