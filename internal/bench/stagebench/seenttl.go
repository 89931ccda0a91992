package stagebench

import (
	"runtime"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
)

// SeenTTLProcessor is the part of stage 10's processor the benchmarks
// drive: a Processor that says how many IDs it remembers.
type SeenTTLProcessor interface {
	Processor
	RememberedIDs() int
}

// SeenTTL measures stage 10's lesson, what forgetting seen IDs costs per
// event and what it saves: it times, in turn within every iteration, the
// package's processor with the tight TTL (WindowSize + AllowedLateness)
// and without a TTL, each taking the benchmark stream at shape.Events
// events (streamOf; 1 s windows, its disorder as the delay) and a Flush,
// and reads RememberedIDs before the Flush. It reports the median turn of
// each per event, cpu-ns/event with the TTL and nottl-cpu-ns/event
// without, and the IDs each remembered, remembered-IDs and
// nottl-remembered-IDs.
func SeenTTL(b *testing.B, api API, shape bench.Shape) {
	if api.NewSeenTTL == nil {
		b.Fatal("the seen-ID TTL benchmarks need stage 10's NewSeenTTLProcessor")
	}
	events := streamOf(shape.Events)
	runtime.GC()
	cfg := Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}
	type sample struct {
		cpu        time.Duration
		remembered int64
	}
	pass := func(ttl int64) func() sample {
		return func() sample {
			start := cpuTime()
			p, err := api.NewSeenTTL(cfg, ttl)
			if err != nil {
				b.Fatalf("NewSeenTTLProcessor(%+v, %d): %v", cfg, ttl, err)
			}
			for _, e := range events {
				sinkResults = p.Process(e)
			}
			remembered := p.RememberedIDs()
			sinkResults = p.Flush()
			return sample{cpu: cpuTime() - start, remembered: int64(remembered)}
		}
	}
	samples := collect(b, pass(cfg.WindowSize+cfg.AllowedLateness), pass(0))
	for i, prefix := range []string{"", "nottl-"} {
		var cpu []time.Duration
		var remembered []int64
		for _, s := range samples[i] {
			cpu, remembered = append(cpu, s.cpu), append(remembered, s.remembered)
		}
		b.ReportMetric(perItem(median(cpu), 1, len(events)), prefix+"cpu-ns/event")
		b.ReportMetric(float64(median(remembered)), prefix+"remembered-IDs")
	}
}
