//go:build solution

package solutions

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// ratioSizes are the stream lengths of BenchmarkRatios: the open state is
// the same at each (see kit.BenchmarkStreamOf), the IDs seen grow with it.
var ratioSizes = []int{10_000, 100_000, 1_000_000, 4_000_000}

// sizesFor returns ratioSizes, or with -short only the two shortest: the
// smoke run of .ci/run, which checks that the benchmarks run, not what
// they measure.
func sizesFor() []int {
	if testing.Short() {
		return ratioSizes[:2]
	}
	return ratioSizes
}

// BenchmarkRatios is issue 16's headline: at each length of the benchmark
// stream, the reference's Processor in turns with the fold (the practical
// limit, no dedup), the fold that drops redelivered IDs (the limit of any
// processor that keeps the contract), the naive learner's processor
// (stagebench.NewNaive) and the reference with its seen IDs bounded by stage
// 10's TTL (WindowSize, the tight one). Each is timed in every round
// (stagebench.Race), so ref/fold, ref/fold+dedup, ref/naive and ref/ttl
// are the reference's speed over each, with their range over the rounds;
// <name>-cpu-ns/event the time per event of each. Compare the lengths with
// BenchmarkLengths, not across these sub-benchmarks: each holds a stream of
// its own length alone, minutes apart, and the collector paces itself to
// that heap. Run both builds, each for 5 rounds:
//
//	for tags in solution 'solution fast'; do go test -tags "$tags" -run '^$' -bench '^Benchmark(Ratios|Heap|Lengths)$' -benchtime 5x ./solutions; done
func BenchmarkRatios(b *testing.B) {
	for _, n := range sizesFor() {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			events := kit.BenchmarkStreamOf(n)
			stagebench.Race(b, n,
				stagebench.Contender{Name: "ref", Pass: func() { driveReference(b, 0, events) }},
				stagebench.Contender{Name: "fold", Pass: func() { sinkFold = fold(events, benchWindow) }},
				stagebench.Contender{Name: "fold+dedup", Pass: func() { sinkFold = foldDedup(events, benchWindow) }},
				stagebench.Contender{Name: "naive", Pass: func() { stagebench.Drive(stagebench.NewNaive(benchWindow, kit.BenchmarkDisorder), events) }},
				stagebench.Contender{Name: "ttl", Pass: func() { driveReference(b, benchWindow, events) }},
			)
		})
	}
}

// BenchmarkLengths is issue 16's flat cost as state grows, measured in
// pairs: the reference with its seen IDs unbounded (ref) and bounded by
// stage 10's TTL (ttl), each over the first 10k, 100k, 1M and 4M events of
// one stream, the lengths in turns within every round
// (stagebench.Lengths), so that each length meets the same heap and the
// same machine. BenchmarkRatios and BenchmarkReference build a stream of
// each length and hold only that one: there the collector paces itself to
// a heap that grows with the length, here to the same heap at every
// length. ttl-4000000/10000 is, round by round, the cost per event of a
// pass over the first 4M events over that of a pass over the first 10k
// (flat is 1); ref-4000000/10000 the same for an unbounded dedup set.
//
//	go test -tags 'solution fast' -run '^$' -bench '^BenchmarkLengths$' -benchtime 5x ./solutions
func BenchmarkLengths(b *testing.B) {
	lengths := sizesFor()
	events := kit.BenchmarkStreamOf(lengths[len(lengths)-1])
	for _, d := range dedupBounds {
		b.Run(d.name, func(b *testing.B) {
			stagebench.Lengths(b, d.name, lengths, func(n int) { driveReference(b, d.ttl, events[:n]) })
		})
	}
}

// BenchmarkReference runs the reference's Processor alone at each length
// of BenchmarkRatios, unbounded (ref) and with the TTL (ttl): the
// benchmark to profile where the time of an event goes as the state grows,
// without the other contenders in the profile:
//
//	go test -tags 'solution fast' -run '^$' -bench '^BenchmarkReference$/^ref$/events=4000000' -benchtime 3x -cpuprofile cpu.out ./solutions
//	go tool pprof -top solutions.test cpu.out
func BenchmarkReference(b *testing.B) {
	for _, d := range dedupBounds {
		b.Run(d.name, func(b *testing.B) {
			for _, n := range sizesFor() {
				b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
					events := kit.BenchmarkStreamOf(n)
					stagebench.Race(b, n, stagebench.Contender{Name: d.name, Pass: func() { driveReference(b, d.ttl, events) }})
				})
			}
		})
	}
}

// dedupBounds are the reference's two dedup sets in these benchmarks:
// every ID remembered (ref), and each forgotten after stage 10's tightest
// seen TTL, WindowSize (ttl).
var dedupBounds = []struct {
	name string
	ttl  int64
}{{"ref", 0}, {"ttl", benchWindow}}

// driveReference drives (stagebench.Drive) a new reference Processor over events,
// with seen TTL ttl (0: NewProcessor's, which remembers every ID), in the
// benchmark stream's config.
func driveReference(b *testing.B, ttl int64, events []kit.Event) {
	p, err := NewSeenTTLProcessor(Config{WindowSize: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}, ttl)
	if err != nil {
		b.Fatal(err)
	}
	stagebench.Drive(p, events)
}
