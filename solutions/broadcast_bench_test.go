//go:build solution

package solutions

import (
	"testing"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// broadcastAPI is the reference's stage 06 and 11 API, as stagebench
// calls it.
var broadcastAPI = stagebench.API{
	NewParallel: func(c stagebench.ParallelConfig) (stagebench.Processor, error) {
		return NewParallelProcessor(parallelConfig(c))
	},
	NewBroadcast: func(c stagebench.ParallelConfig) (stagebench.BroadcastProcessor, error) {
		p, err := NewBroadcastProcessor(parallelConfig(c))
		if err != nil {
			return nil, err
		}
		return countedBroadcast{p}, nil
	},
}

// parallelConfig is c as the reference's ParallelConfig.
func parallelConfig(c stagebench.ParallelConfig) ParallelConfig {
	return ParallelConfig{Processor: Config(c.Processor), Parallelism: c.Parallelism, MaxParallelism: c.MaxParallelism}
}

// countedBroadcast is a BroadcastProcessor as stagebench drives it: each
// call returns how many alerts it returned.
type countedBroadcast struct{ p *BroadcastProcessor }

func (c countedBroadcast) ProcessEvent(e kit.Event) int  { return len(c.p.ProcessEvent(e)) }
func (c countedBroadcast) ProcessRule(r stagebench.Rule) { c.p.ProcessRule(Rule(r)) }
func (c countedBroadcast) AdvanceRuleWatermark(wm int64) int {
	return len(c.p.AdvanceRuleWatermark(wm))
}
func (c countedBroadcast) Flush() int { return len(c.p.Flush()) }

// BenchmarkBroadcast measures what stage 11 adds to stage 06's parallel
// windows on the reference alone: de bench's stage 11 benchmarks (package
// stagebench), which time, in turn within every iteration, the
// ParallelProcessor alone and the BroadcastProcessor over the same 20 000
// events, with 1, 10 and 100 rules of one prefix each and a rules'
// watermark that trails the events' by one window, so that every result
// waits and is checked against the rule in force for every prefix of its
// key. They report cpu-ns/event for the broadcast one and
// parallel-cpu-ns/event for the other.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkBroadcast$' ./solutions
func BenchmarkBroadcast(b *testing.B) {
	for _, bm := range bench.Benchmarks {
		if bm.Kind == bench.Broadcast {
			b.Run(bm.Name, func(b *testing.B) { stagebench.Measure(b, bm, broadcastAPI) })
		}
	}
}
