package stagebench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
)

// costly is a Processor that only advances a manual clock by what each
// event costs it, given how many windows it holds: fill's view of a
// processor, without the wait.
type costly struct {
	clock *kit.ManualClock
	open  int
	cost  func(open int) time.Duration
}

func (c *costly) Process(kit.Event) []kit.Result {
	c.clock.Advance(c.cost(c.open))
	c.open++
	return nil
}

func (c *costly) Flush() []kit.Result { return nil }

func TestFillStopsAProcessorThatSlowsDownWithItsState(t *testing.T) {
	const n = 1_000_000
	for _, tc := range []struct {
		name string
		cost func(open int) time.Duration
		stop bool
	}{
		// 200 ns for the event, 1 ns for each window it visits.
		{"visits every open window", func(open int) time.Duration { return 200 + time.Duration(open) }, true},
		// 200 ns, up to 5× that as the state outgrows the caches.
		{"flat, slowed by the caches", func(open int) time.Duration { return 200 + 800*time.Duration(open)/n }, false},
		// Flat, but a burst of other work on the machine makes one
		// chunk 10× slower.
		{"flat, on a busy machine", func(open int) time.Duration {
			if open >= 1<<16 && open < 1<<17 {
				return 2000
			}
			return 200
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := kit.NewManualClock(time.Unix(0, 0))
			p := &costly{clock: clock, cost: tc.cost}
			err := fill(p, n, clock)
			if !tc.stop {
				require.NoError(t, err)
				assert.Equal(t, n, p.open, "every window opened")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "it does work in proportion to the windows it holds")
			assert.Less(t, p.open, n/4, "it stops long before a million")
		})
	}
}

func TestScalingStreamKeepsItsPromises(t *testing.T) {
	events := scalingStream()
	assert.Len(t, events, 100_000)
	seen := map[string]bool{}
	maxTS := events[0].TS
	for _, e := range events {
		assert.False(t, seen[e.ID], "IDs are distinct")
		seen[e.ID] = true
		assert.LessOrEqual(t, maxTS-e.TS, int64(1_000), "disorder is bounded by one window")
		maxTS = max(maxTS, e.TS)
		if !strings.HasPrefix(e.Key, "k") {
			t.Fatalf("key %q", e.Key)
		}
	}
	assert.Less(t, maxTS, int64(20_000_000), "timestamps span 2 × 10 000 windows of 1 s")
}

// TestSlidingStreamKeepsItsPromises checks what the strategies assume of
// the sliding stream: distinct IDs, no event behind the watermark, and as
// many keys and as long a span as the table says.
func TestSlidingStreamKeepsItsPromises(t *testing.T) {
	events := SlidingStream()
	assert.Len(t, events, bench.SlidingEvents)
	keys, seen := map[string]bool{}, map[string]bool{}
	maxTS := events[0].TS
	for _, e := range events {
		assert.False(t, seen[e.ID], "IDs are distinct")
		seen[e.ID] = true
		keys[e.Key] = true
		assert.LessOrEqual(t, maxTS-e.TS, kit.BenchmarkDisorder, "disorder is bounded by the delay")
		maxTS = max(maxTS, e.TS)
	}
	assert.Len(t, keys, bench.SlidingKeys)
	assert.Less(t, maxTS, int64(bench.SlidingEvents/bench.SlidingEventsPerSlide)*bench.SlidingSlide)
}

// TestShortStreamsAreBuiltOnceWithoutTheMillion certifies that a benchmark
// taking the benchmark stream at fewer events than the million gets
// kit.BenchmarkStreamOf at that length, built once per test binary (so
// that the samples of every -count share it, and letting go of the
// million keeps it), and that it does not build the million to get it.
func TestShortStreamsAreBuiltOnceWithoutTheMillion(t *testing.T) {
	t.Cleanup(func() { benchmarkCache, shortStreams = nil, map[int][]kit.Event{} })
	benchmarkCache, shortStreams = nil, map[int][]kit.Event{}
	for _, n := range []int{bench.ThroughputQuickEvents, bench.BackendQuickEvents, bench.BroadcastEvents} {
		if n >= bench.ThroughputEvents {
			t.Fatalf("%d events is not a short stream", n)
		}
		first := streamOf(n)
		if benchmarkCache != nil {
			t.Fatalf("streamOf(%d) built the million events of the benchmark stream", n)
		}
		if want := kit.BenchmarkStreamOf(n); !slices.Equal(first, want) {
			t.Fatalf("streamOf(%d) is not kit.BenchmarkStreamOf(%d)", n, n)
		}
		releaseStream()
		if again := streamOf(n); &again[0] != &first[0] {
			t.Errorf("streamOf(%d) built the stream again: it should be kept for the test binary", n)
		}
	}
}

// TestLongerStreamsAreAsLongAsAsked certifies that a stream longer than
// the million (stage 01's baselines at 4 000 000 in --full) is
// kit.BenchmarkStreamOf at that length, not the million cut short, and
// that it is not kept once the caller lets go of it.
func TestLongerStreamsAreAsLongAsAsked(t *testing.T) {
	t.Cleanup(func() { benchmarkCache, shortStreams = nil, map[int][]kit.Event{} })
	benchmarkCache, shortStreams = nil, map[int][]kit.Event{}
	n := bench.ThroughputEvents + 1_000
	got := streamOf(n)
	if len(got) != n {
		t.Fatalf("streamOf(%d) has %d events; want %d: a benchmark that asks for more than the million must get them", n, len(got), n)
	}
	if want := kit.BenchmarkStreamOf(n); !slices.Equal(got, want) {
		t.Fatalf("streamOf(%d) is not kit.BenchmarkStreamOf(%d)", n, n)
	}
	if benchmarkCache != nil || len(shortStreams) != 0 {
		t.Errorf("streamOf(%d) kept a stream: one longer than the million would be marked by the collector in every benchmark after it", n)
	}
}

// TestFullThroughputTakesTheWholeStream certifies that --full's
// throughput benchmark is over every event of the benchmark stream, and
// the quick run's over a shorter one.
func TestFullThroughputTakesTheWholeStream(t *testing.T) {
	t.Cleanup(func() { benchmarkCache, shortStreams = nil, map[int][]kit.Event{} })
	n := len(kit.BenchmarkStream())
	for _, bm := range bench.Benchmarks {
		if bm.Kind != bench.Throughput {
			continue
		}
		if bm.In(true) && bm.Subject.Events != n {
			t.Errorf("--full's %s takes %d events; want all %d of the benchmark stream", bm.FullName(), bm.Subject.Events, n)
		}
		if bm.In(false) && !bm.In(true) && (bm.Subject.Events <= 0 || bm.Subject.Events >= n) {
			t.Errorf("the quick run's %s takes %d events; want fewer than the %d of the whole stream", bm.FullName(), bm.Subject.Events, n)
		}
	}
}

// TestLengthsRepeatsShortPassesAndReportsEachLength checks what
// BenchmarkLengths reads from Lengths: every length is timed in every
// round, a short pass repeated until a sample covers raceWork events (so
// a length ten times shorter is passed over ten times as often), and each
// length gets its cost per event and its ratio to the first, with a range.
func TestLengthsRepeatsShortPassesAndReportsEachLength(t *testing.T) {
	calls := map[int]int{}
	res := testing.Benchmark(func(b *testing.B) {
		Lengths(b, "x", []int{1000, 10_000, raceWork}, func(n int) { calls[n]++ })
	})
	require.Positive(t, calls[raceWork], "the longest length was never passed over")
	assert.Equal(t, calls[raceWork]*raceWork/1000, calls[1000], "a pass over 1000 events is repeated raceWork/1000 times a sample")
	assert.Equal(t, calls[raceWork]*raceWork/10_000, calls[10_000], "a pass over 10 000 events is repeated raceWork/10 000 times a sample")
	for _, metric := range []string{
		"x-1000-cpu-ns/event", "x-10000-cpu-ns/event", "x-200000-cpu-ns/event",
		"x-10000/1000", "x-10000/1000-min", "x-10000/1000-max",
		"x-200000/1000", "x-200000/1000-min", "x-200000/1000-max",
	} {
		assert.Contains(t, res.Extra, metric, "Lengths reports %s", metric)
	}
	assert.NotContains(t, res.Extra, "x-1000/1000", "the first length is the baseline, not compared with itself")
}
