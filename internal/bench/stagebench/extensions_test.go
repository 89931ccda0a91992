//go:build solution

package stagebench

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// streamLike returns n events shaped as kit.BenchmarkStream's (10 000
// keys, 100 events a second of event time, disorder bounded by
// kit.BenchmarkDisorder, no redeliveries), from a fixed seed: the tests of
// the bodies run on it, since building the million events of the real one
// takes seconds, and tens of them under -race.
func streamLike(n int) []kit.Event {
	r := kit.NewRand(0x5eed_0010)
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	return kit.BoundedShuffle(r, kit.RandomEvents(r, n, keys, 0, int64(n)*10), kit.BenchmarkDisorder)
}

// TestSeenTTLPassesDoTheSameWork checks what stage 10's benchmarks divide:
// over a stream shaped as theirs, as long as the shorter, the reference with the tight TTL and
// without one returns, call by call, what stage 01's Processor returns, so
// the two passes differ only in what they remember; and with the TTL it
// remembers a small fraction of the IDs that it remembers without.
func TestSeenTTLPassesDoTheSameWork(t *testing.T) {
	events := streamLike(bench.SeenTTLLengths[0].Events)
	cfg := Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}
	ref, err := solutions.NewProcessor(solutions.Config(cfg))
	require.NoError(t, err)
	want := run(ref, events)
	tight := cfg.WindowSize + cfg.AllowedLateness
	remembered := map[int64]int{}
	for _, ttl := range []int64{tight, 0} {
		p, err := solutions.NewSeenTTLProcessor(solutions.Config(cfg), ttl)
		require.NoError(t, err)
		got := run(p, events)
		require.Equal(t, len(want), len(got), "TTL %d: as many calls", ttl)
		for i := range want {
			require.Equal(t, want[i], got[i], "TTL %d: call %d (the last is Flush)", ttl, i)
		}
		remembered[ttl] = p.RememberedIDs()
	}
	assert.Equal(t, len(events), remembered[0], "without a TTL, every ID (the stream has no redeliveries)")
	assert.Less(t, remembered[tight], len(events)/100, "with the tight TTL, those of the last few seconds")
}

// countedReference is the reference's BroadcastProcessor as the adapter
// hands a package's to the benchmarks.
type countedReference struct{ p *solutions.BroadcastProcessor }

func (c countedReference) ProcessEvent(e kit.Event) int { return len(c.p.ProcessEvent(e)) }
func (c countedReference) ProcessRule(r Rule)           { c.p.ProcessRule(solutions.Rule(r)) }
func (c countedReference) AdvanceRuleWatermark(wm int64) int {
	return len(c.p.AdvanceRuleWatermark(wm))
}
func (c countedReference) Flush() int { return len(c.p.Flush()) }

// TestBroadcastChecksEveryResult checks what stage 11's benchmarks
// divide: at every number of prefixes they measure, over a stream shaped
// as theirs and as long, the reference's BroadcastProcessor, driven as
// runBroadcast drives it, alerts once for
// every result of the ParallelProcessor alone over the same events and
// every prefix its key starts with (every rule's threshold is 1), so the
// broadcast pass does all the work of the other and checks every result.
func TestBroadcastChecksEveryResult(t *testing.T) {
	events := streamLike(bench.BroadcastEvents)
	cfg := broadcastConfig()
	pcfg := solutions.ParallelConfig{Processor: solutions.Config(cfg.Processor), Parallelism: cfg.Parallelism, MaxParallelism: cfg.MaxParallelism}
	pp, err := solutions.NewParallelProcessor(pcfg)
	require.NoError(t, err)
	var results []kit.Result
	for _, out := range run(pp, events) {
		results = append(results, out...)
	}
	require.NotEmpty(t, results)
	for _, n := range bench.BroadcastPrefixes {
		prefixes := rulePrefixes(n)
		require.Len(t, prefixes, n)
		want := 0
		for _, r := range results {
			for _, p := range prefixes {
				if strings.HasPrefix(r.Key, p) {
					want++
				}
			}
		}
		bp, err := solutions.NewBroadcastProcessor(pcfg)
		require.NoError(t, err)
		assert.Equal(t, want, runBroadcast(countedReference{bp}, prefixes, events), "%d prefixes: an alert per result and matching prefix", n)
	}
}
