package stagebench

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
)

// ParallelConfig is stage 06's ParallelConfig, field for field.
type ParallelConfig struct {
	Processor                   Config
	Parallelism, MaxParallelism int
}

// Rule is stage 11's Rule, field for field.
type Rule struct {
	Prefix    string
	Threshold int64
	TS        int64
}

// BroadcastProcessor is the part of stage 11's BroadcastProcessor the
// benchmarks drive, with each call's alerts counted: the adapter's
// wrapper returns how many the package's own method returned.
type BroadcastProcessor interface {
	ProcessEvent(e kit.Event) int
	ProcessRule(r Rule)
	AdvanceRuleWatermark(wm int64) int
	Flush() int
}

// sinkAlerts keeps the compiler from discarding the alerts counted.
var sinkAlerts int

// Broadcast measures what stage 11 adds to stage 06's parallel windows:
// holding every window result until the rules' watermark passes its end,
// and checking it against the rule in force for every prefix of its key.
// It times, in turn within every iteration, the package's
// ParallelProcessor alone and its BroadcastProcessor with shape.Prefixes
// rules, one prefix each (see rulePrefixes), over the benchmark stream at
// bench.BroadcastEvents events (streamOf), the rules' watermark a window
// behind the events' so that every result waits, and a Flush. It reports
// the median turn of each per event: cpu-ns/event for the broadcast one,
// parallel-cpu-ns/event for the other.
func Broadcast(b *testing.B, api API, shape bench.Shape) {
	if api.NewParallel == nil || api.NewBroadcast == nil {
		b.Fatal("the broadcast benchmarks need stage 06's NewParallelProcessor and stage 11's NewBroadcastProcessor")
	}
	events := streamOf(bench.BroadcastEvents)
	runtime.GC()
	cfg := broadcastConfig()
	prefixes := rulePrefixes(shape.Prefixes)
	parallel := func() time.Duration {
		start := cpuTime()
		p, err := api.NewParallel(cfg)
		if err != nil {
			b.Fatalf("NewParallelProcessor(%+v): %v", cfg, err)
		}
		for _, e := range events {
			sinkResults = p.Process(e)
		}
		sinkResults = p.Flush()
		return cpuTime() - start
	}
	broadcast := func() time.Duration {
		start := cpuTime()
		p, err := api.NewBroadcast(cfg)
		if err != nil {
			b.Fatalf("NewBroadcastProcessor(%+v): %v", cfg, err)
		}
		sinkAlerts = runBroadcast(p, prefixes, events)
		return cpuTime() - start
	}
	times := turns(b, broadcast, parallel)
	b.ReportMetric(perItem(times[0], 1, len(events)), "cpu-ns/event")
	b.ReportMetric(perItem(times[1], 1, len(events)), "parallel-cpu-ns/event")
}

// broadcastConfig is the config of the broadcast benchmarks: 1 s windows,
// the stream's disorder as the delay, bench.BroadcastParallelism subtasks.
func broadcastConfig() ParallelConfig {
	return ParallelConfig{
		Processor:      Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder},
		Parallelism:    bench.BroadcastParallelism,
		MaxParallelism: bench.BroadcastMaxParallel,
	}
}

// rulePrefixes returns n prefixes of the benchmark stream's keys ("k0" …
// "k9999"): "k" for 1, which every key matches; "k0" … "k9" for 10, of
// which every key matches the one of its first digit; "k0" … "k99" for
// 100, of which most keys match two.
func rulePrefixes(n int) []string {
	if n == 1 {
		return []string{"k"}
	}
	prefixes := make([]string, n)
	for i := range prefixes {
		prefixes[i] = "k" + strconv.Itoa(i)
	}
	return prefixes
}

// runBroadcast hands p a rule of threshold 1 stamped 0 for each prefix,
// then the events, advancing the rules' watermark to a window behind the
// latest event every 500 events, then Flush, and returns how many alerts
// it returned.
func runBroadcast(p BroadcastProcessor, prefixes []string, events []kit.Event) int {
	for _, prefix := range prefixes {
		p.ProcessRule(Rule{Prefix: prefix, Threshold: 1, TS: 0})
	}
	alerts := 0
	for i, e := range events {
		alerts += p.ProcessEvent(e)
		if i%500 == 0 {
			alerts += p.AdvanceRuleWatermark(e.TS - kit.BenchmarkWindow)
		}
	}
	return alerts + p.Flush()
}
