//go:build solution

package solutions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// The benchmarks of issue 7. Each one runs beside its baseline in the same
// run, as sub-benchmarks whose names make the ratio obvious, or as one
// benchmark that takes turns between the two and reports both:
//
//	go test -tags solution -run '^$' -bench . -benchmem ./solutions
//
// docs/PERFORMANCE.md has the numbers and how to compare runs with benchstat.
// Setup (generating events, building snapshots) is outside the timed region.
// The processor's benchmarks are those of de bench (package stagebench),
// run here on the reference alone.

const (
	benchWindow  = kit.BenchmarkWindow
	benchGap     = int64(500)          // session gap
	benchWMEvery = 1_000               // sessions: advance the watermark every this many events
	benchSeed    = uint64(0x5eed_0007) // fixed, so every run measures the same stream
)

// reference is the reference's stage API, as stagebench calls it.
var reference = stagebench.API{
	New: func(c stagebench.Config) (stagebench.Processor, error) {
		return NewProcessor(Config(c))
	},
	Snapshot: func(p stagebench.Processor) ([]byte, error) { return p.(*Processor).Snapshot() },
	Restore: func(snap []byte) (stagebench.Processor, error) {
		return RestoreProcessor(snap)
	},
}

// perEvent reports ns/event, cpu-ns/event and allocs/event for b.N passes
// over n events that cost cost.
func perEvent(b *testing.B, cost stagebench.Cost, n int) {
	stagebench.ReportPer(b, cost, n, "event")
	stagebench.ReportAllocs(b, cost, n)
}

// fold is the practical limit: one map keyed by (key, window start), no
// watermark, no dedup, no emission (stagebench.Fold, de bench's baseline too).
func fold(events []kit.Event, size int64) map[stagebench.FoldKey]stagebench.FoldTally {
	return stagebench.Fold(events, size)
}

// foldDedup is the fold that also ignores a redelivered ID, as the
// processor must: the limit for any processor that keeps the contract. It
// keeps the seen IDs in the processor's own idSet, so that the ratio to it
// is the cost of everything but the dedup (de bench, which cannot see a
// lab's set, uses a Go map).
func foldDedup(events []kit.Event, size int64) map[stagebench.FoldKey]stagebench.FoldTally {
	return stagebench.FoldDedup(events, size, newIDSet(0).add)
}

var sinkFold map[stagebench.FoldKey]stagebench.FoldTally
var sinkResults []kit.Result

func benchFold(b *testing.B, events []kit.Event) {
	b.ReportAllocs()
	cost := stagebench.Loop(b, func() { sinkFold = fold(events, benchWindow) })
	perEvent(b, cost, len(events))
}

// BenchmarkTumbling: the keyed tumbling sum against the fold over the same
// events. The ratio fold/processor in ns/event is the processor's share of
// the limit (issue 7 asks for at least 0.5×). fold+dedup is the same fold
// that also drops redelivered IDs, which the processor must do and the
// fold does not: the limit of any processor that keeps the contract.
//
// processor-36-byte-ids runs the same events with IDs as long as a UUID's
// text, too long for idSet to keep inline: what the processor costs when
// the optimisation for short IDs does not apply.
func BenchmarkTumbling(b *testing.B) {
	events := stagebench.BenchmarkStream()
	b.Run("fold", func(b *testing.B) { benchFold(b, events) })
	b.Run("fold+dedup", func(b *testing.B) {
		b.ReportAllocs()
		cost := stagebench.Loop(b, func() { sinkFold = foldDedup(events, benchWindow) })
		perEvent(b, cost, len(events))
	})
	b.Run("processor", func(b *testing.B) { stagebench.Throughput(b, reference, events) })
	b.Run("processor-36-byte-ids", func(b *testing.B) { stagebench.Throughput(b, reference, withLongIDs(events)) })
}

// BenchmarkScaling: de bench's scaling benchmarks on the reference, the
// cost per event with many windows held (open, or fired and waiting out
// their lateness) against the same with few, in turns within one
// benchmark: ns/event against baseline-ns/event, which would be equal if
// the cost per event did not grow with the state.
func BenchmarkScaling(b *testing.B) {
	for _, bm := range bench.Benchmarks {
		if bm.Kind == bench.Scaling {
			b.Run(bm.Name, func(b *testing.B) { stagebench.Measure(b, bm, reference) })
		}
	}
}

// withLongIDs returns a copy of events whose IDs are padded with zeros to
// 36 bytes (the length of a UUID's text), allocated in delivery order.
func withLongIDs(events []kit.Event) []kit.Event {
	out := slices.Clone(events)
	for i := range out {
		out[i].ID = strings.Repeat("0", 36-len(out[i].ID)) + out[i].ID
	}
	return out
}

// BenchmarkSessions: the same events through session windows (the
// watermark follows upstream: max − delay every benchWMEvery events),
// against the same fold.
func BenchmarkSessions(b *testing.B) {
	events := stagebench.BenchmarkStream()
	b.Run("fold", func(b *testing.B) { benchFold(b, events) })
	b.Run("processor", func(b *testing.B) {
		b.ReportAllocs()
		var emits uint64
		cost := stagebench.Loop(b, func() {
			s, err := NewSessionProcessor(SessionConfig{Gap: benchGap})
			if err != nil {
				b.Fatal(err)
			}
			var out []kit.Result
			maxTS := int64(-1 << 63)
			for i, e := range events {
				maxTS = max(maxTS, e.TS)
				out = append(out[:0], s.Process(e)...)
				emits += uint64(min(len(out), 1))
				if (i+1)%benchWMEvery == 0 {
					out = append(out[:0], s.AdvanceWatermark(maxTS-kit.BenchmarkDisorder)...)
					emits += uint64(min(len(out), 1))
				}
			}
			sinkResults = append(out[:0], s.Flush()...)
			emits++
		})
		perEvent(b, cost, len(events))
		stagebench.ReportStateAllocs(b, cost, len(events), emits)
	})
}

var sinkSums map[string]kit.Event

// BenchmarkRunParallel: a keyed sum of 1M records at parallelism 1, 2, 4.
// Issue 7 asks for p=2 faster than p=1 on 2 cores.
func BenchmarkRunParallel(b *testing.B) {
	// The stream is built once, outside the timed region: FromSlice copies
	// its input, the same work at every parallelism.
	src := FromSlice(stagebench.BenchmarkStream())
	for _, p := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			cost := stagebench.Loop(b, func() {
				r := KeyBy(src, func(e kit.Event) string { return e.Key }).
					Reduce(func(acc, v kit.Event) kit.Event { acc.Value += v.Value; return acc }, p)
				sinkSums = RunParallel(r)
			})
			perEvent(b, cost, len(src.elems))
		})
	}
}

var benchWindowCounts = []int{10_000, 100_000, 1_000_000}

// BenchmarkSnapshot: Snapshot of 100k and 1M windows, each in turns with
// Snapshot of 10k (de bench's checkpoint benchmark, at one more size).
// ns/window and bytes/window would equal their baseline- values if cost
// were linear; BenchmarkMapFill shows what the caches add.
func BenchmarkSnapshot(b *testing.B) { benchWindows(b, stagebench.Snapshot) }

// BenchmarkRestore: RestoreProcessor of the same snapshots.
func BenchmarkRestore(b *testing.B) { benchWindows(b, stagebench.Restore) }

// benchWindows runs a checkpoint benchmark of stagebench at each size of
// benchWindowCounts past the first, against the first.
func benchWindows(b *testing.B, run func(*testing.B, stagebench.API, bench.Shape, bench.Shape)) {
	small := bench.Shape{Windows: benchWindowCounts[0]}
	for _, n := range benchWindowCounts[1:] {
		b.Run(fmt.Sprintf("windows=%d", n), func(b *testing.B) {
			run(b, reference, small, bench.Shape{Windows: n})
		})
	}
}

var sinkMap map[uint64]struct{}

// BenchmarkMapFill: the baseline for BenchmarkSnapshot and BenchmarkRestore,
// filling a Go map with as many distinct integer keys as they have windows,
// in ns/entry. It does constant work per entry, like them, and shows what
// the memory hierarchy alone does to the time per entry as a hash table
// outgrows the caches.
func BenchmarkMapFill(b *testing.B) {
	for _, n := range benchWindowCounts {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			r := kit.NewRand(benchSeed)
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64()
			}
			cost := stagebench.Loop(b, func() {
				m := make(map[uint64]struct{}, n)
				for _, k := range keys {
					m[k] = struct{}{}
				}
				sinkMap = m
			})
			stagebench.ReportPer(b, cost, n, "entry")
		})
	}
}

// quietReplay is a small version of stage 08's capstone source: 8
// partitions, 3 with data, one of them silent for two hours; a user per
// key comes in bursts of events a minute or so apart, then stays away for
// longer than the 30-minute gap. Processing time tracks event time, each
// event delivered up to 20 s after its timestamp; 2% are delivered twice.
func quietReplay() []Arrival {
	const (
		second = int64(1000)
		minute = 60 * second
		hour   = 60 * minute
	)
	r := kit.NewRand(benchSeed)
	type part struct {
		partition             int
		quietFrom, quietUntil int64
	}
	parts := []part{{1, 2 * hour, 4 * hour}, {4, 0, 0}, {6, 0, 0}}
	var arrivals []Arrival
	n := 0
	for _, pt := range parts {
		for u := range 200 {
			key := fmt.Sprintf("p%d-user%d", pt.partition, u)
			for ts := r.Int64N(20 * minute); ts < 6*hour; ts += 35*minute + r.Int64N(45*minute) {
				for range 1 + r.IntN(10) {
					if ts < 6*hour && (ts < pt.quietFrom || ts >= pt.quietUntil) {
						n++
						e := kit.Event{ID: fmt.Sprintf("e%d", n), Key: key, TS: ts, Value: 1 + r.Int64N(10)}
						at := time.Duration(ts+r.Int64N(20*second)) * time.Millisecond
						arrivals = append(arrivals, Arrival{Partition: pt.partition, At: at, Event: e})
						if r.IntN(50) == 0 {
							arrivals = append(arrivals, Arrival{Partition: pt.partition, At: at + time.Duration(r.Int64N(5*minute))*time.Millisecond, Event: e})
						}
					}
					ts += 10*second + r.Int64N(minute)
				}
			}
		}
	}
	slices.SortStableFunc(arrivals, func(a, b Arrival) int { return cmp.Compare(a.At, b.At) })
	return arrivals
}

// BenchmarkSessionJob: the quiet-partition job end to end (watermarks with
// idleness, session windows, 2PC sink and checkpoints on a temp dir), in
// events/s.
func BenchmarkSessionJob(b *testing.B) {
	arrivals := quietReplay()
	epoch := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		cfg := SessionJobConfig{
			Watermarks:   WatermarkConfig{Partitions: 8, OutOfOrderness: 30_000, IdleTimeout: time.Minute},
			Sessions:     SessionConfig{Gap: 30 * 60_000, AllowedLateness: 60_000},
			Dir:          dir,
			EmitInterval: 2 * time.Minute,
		}
		clock := kit.NewManualClock(epoch)
		b.StartTimer()
		if err := RunSessionJob(cfg, arrivals, clock); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(arrivals))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(arrivals)), "arrivals")
}
