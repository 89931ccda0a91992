//go:build solution

package solutions

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// sinkAlerts keeps the benchmarks' alerts alive.
var sinkAlerts []Alert

// BenchmarkBroadcast measures what stage 11 adds to stage 06's parallel
// windows: holding every window result until the rules' watermark passes
// its end, and checking it against the rule in force for every prefix of
// its key. The baseline is the ParallelProcessor alone over the same
// events; each broadcast run has a number of rules, one prefix each, that
// split the keys ("k"; "k0" … "k9"; "k00" … "k99"), and a rules' watermark
// that trails the events' by one window, so every result waits. The cost
// to watch is the check of each result against every prefix.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkBroadcast$' ./solutions
func BenchmarkBroadcast(b *testing.B) {
	events := stagebench.BenchmarkStream()[:20_000]
	cfg := ParallelConfig{Processor: Config{WindowSize: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}, Parallelism: 4, MaxParallelism: 128}
	b.Run("parallel-only", func(b *testing.B) {
		b.ReportAllocs()
		cost := stagebench.Loop(b, func() {
			pp, err := NewParallelProcessor(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range events {
				sinkResults = pp.Process(e)
			}
			sinkResults = pp.Flush()
		})
		perEvent(b, cost, len(events))
	})
	for _, prefixes := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("broadcast/prefixes-%d", prefixes), func(b *testing.B) {
			b.ReportAllocs()
			cost := stagebench.Loop(b, func() {
				bp, err := NewBroadcastProcessor(cfg)
				if err != nil {
					b.Fatal(err)
				}
				for i := range prefixes {
					// "k" matches every key; "k0" … "k9" and "k00" … "k99" split them.
					prefix := "k"
					if prefixes > 1 {
						prefix = fmt.Sprintf("k%0*d", len(fmt.Sprint(prefixes-1)), i)
					}
					bp.ProcessRule(Rule{Prefix: prefix, Threshold: 1, TS: 0})
				}
				for i, e := range events {
					sinkAlerts = bp.ProcessEvent(e)
					if i%500 == 0 {
						sinkAlerts = bp.AdvanceRuleWatermark(e.TS - benchWindow)
					}
				}
				sinkAlerts = bp.Flush()
			})
			perEvent(b, cost, len(events))
		})
	}
}
