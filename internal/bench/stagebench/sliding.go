package stagebench

import (
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
)

// SlidingConfig is stage 09's SlidingConfig, field for field.
type SlidingConfig struct {
	Size, Slide, WatermarkDelay, AllowedLateness int64
}

// Sliding measures stage 09's lesson, the cost of an event as Size/Slide
// grows: it times, in turn within every iteration, the package's
// SlidingProcessor, the naive strategy and the sliced one (NewStrategy),
// each taking the sliding stream whole and a Flush, with windows of
// shape.SizeSlide slides. It reports the median turn of each per event:
// cpu-ns/event for the processor, naive-cpu-ns/event and
// sliced-cpu-ns/event for the strategies.
func Sliding(b *testing.B, api API, shape bench.Shape) {
	if api.NewSliding == nil {
		b.Fatal("the sliding-window benchmarks need stage 09's NewSlidingProcessor")
	}
	// Stage 04's checkpoints, if they ran before in this test binary, are a
	// million windows that the garbage collector would mark in every cycle
	// here: let go of them (a later run of stage 04 builds them again).
	checkpointCache = map[int]*checkpoint{}
	runtime.GC()
	events := SlidingStream()
	cfg := slidingConfig(shape)
	pass := func(start func() (Processor, error)) func() time.Duration {
		return func() time.Duration {
			begin := cpuTime()
			p, err := start()
			if err != nil {
				b.Fatalf("NewSlidingProcessor(%+v): %v", cfg, err)
			}
			for _, e := range events {
				sinkResults = p.Process(e)
			}
			sinkResults = p.Flush()
			return cpuTime() - begin
		}
	}
	times := turns(b,
		pass(func() (Processor, error) { return api.NewSliding(cfg) }),
		pass(func() (Processor, error) { return NewStrategy(cfg, false), nil }),
		pass(func() (Processor, error) { return NewStrategy(cfg, true), nil }))
	b.ReportMetric(perItem(times[0], 1, len(events)), "cpu-ns/event")
	b.ReportMetric(perItem(times[1], 1, len(events)), "naive-cpu-ns/event")
	b.ReportMetric(perItem(times[2], 1, len(events)), "sliced-cpu-ns/event")
}

// slidingConfig is the config of a sliding benchmark: windows of
// shape.SizeSlide slides of bench.SlidingSlide, and the stream's disorder
// as the delay, so that no event is late.
func slidingConfig(shape bench.Shape) SlidingConfig {
	return SlidingConfig{Size: shape.SizeSlide * bench.SlidingSlide, Slide: bench.SlidingSlide, WatermarkDelay: kit.BenchmarkDisorder}
}

// slidingCache is the sliding stream, built once per test binary.
var slidingCache []kit.Event

// SlidingStream returns bench.SlidingEvents events over bench.SlidingKeys
// keys, bench.SlidingEventsPerSlide to a slide on average, with disorder
// bounded by kit.BenchmarkDisorder, from a fixed seed, and no
// redeliveries. As in kit.BenchmarkStream, the IDs are allocated in
// delivery order.
func SlidingStream() []kit.Event {
	if slidingCache != nil {
		return slidingCache
	}
	r := kit.NewRand(0x5eed_0009)
	keys := make([]string, bench.SlidingKeys)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	span := int64(bench.SlidingEvents/bench.SlidingEventsPerSlide) * bench.SlidingSlide
	events := kit.BoundedShuffle(r, kit.RandomEvents(r, bench.SlidingEvents, keys, 0, span), kit.BenchmarkDisorder)
	for i := range events {
		events[i].ID = strings.Clone(events[i].ID)
	}
	slidingCache = events
	return events
}

// strategy is one of the two ways of keeping sliding windows that the
// benchmark times beside a learner's processor, both as plain as the
// contract allows on the sliding stream: dedup by ID, a watermark of the
// largest timestamp less the delay, windows fired in (End, Start, Key)
// order. They assume what the stream gives, a Slide that divides Size and
// no event behind the watermark, so neither has lateness, corrections or
// a side output: on any other stream they are wrong.
//
// The naive strategy adds each event to every one of its Size/Slide
// windows, as Flink's WindowOperator does, and emits a window's tallies as
// they are when it fires. The sliced one adds each event to one slice,
// [s, s+Slide) for the s that holds it, and fires a window by merging its
// Size/Slide slices per key: Flink SQL's window slicing.
type strategy struct {
	cfg    SlidingConfig
	sliced bool
	seen   map[string]struct{}
	wm     int64
	// next is the end of the earliest window not fired yet: math.MaxInt64
	// before the first event.
	next int64
	// tallies holds, by window start (naive) or slice start (sliced), each
	// key's count and sum.
	tallies map[int64]map[string]*tally
}

// tally is a key's count and sum in a window or a slice.
type tally struct{ count, sum int64 }

// NewStrategy returns an empty naive strategy for cfg, or the sliced one if
// sliced is set. cfg.Slide must divide cfg.Size.
func NewStrategy(cfg SlidingConfig, sliced bool) Processor {
	return &strategy{cfg: cfg, sliced: sliced, seen: map[string]struct{}{}, wm: math.MinInt64, next: math.MaxInt64,
		tallies: map[int64]map[string]*tally{}}
}

// Process adds e to its windows, or to its slice, and returns the windows
// its watermark fires.
func (s *strategy) Process(e kit.Event) []kit.Result {
	if _, dup := s.seen[e.ID]; dup {
		return nil
	}
	s.seen[e.ID] = struct{}{}
	last := floor(e.TS, s.cfg.Slide) // the start of e's latest window, and of its slice
	if s.sliced {
		s.add(last, e)
	} else {
		for start := last; start > e.TS-s.cfg.Size; start -= s.cfg.Slide {
			s.add(start, e)
		}
	}
	s.next = min(s.next, last+s.cfg.Slide) // e's earliest window ends one slide after its latest starts
	s.wm = max(s.wm, e.TS-s.cfg.WatermarkDelay)
	var out []kit.Result
	for ; s.next <= s.wm && len(s.tallies) > 0; s.next += s.cfg.Slide {
		out = s.fire(out, s.next)
	}
	return out
}

// Flush fires every window that holds an event.
func (s *strategy) Flush() []kit.Result {
	var out []kit.Result
	for ; len(s.tallies) > 0; s.next += s.cfg.Slide {
		out = s.fire(out, s.next)
	}
	s.wm = math.MaxInt64
	return out
}

// add adds e to the tallies at start.
func (s *strategy) add(start int64, e kit.Event) {
	keys := s.tallies[start]
	if keys == nil {
		keys = map[string]*tally{}
		s.tallies[start] = keys
	}
	t := keys[e.Key]
	if t == nil {
		t = &tally{}
		keys[e.Key] = t
	}
	t.count++
	t.sum += e.Value
}

// fire appends the results of the window that ends at end, keys ascending,
// and drops what no later window needs: the window itself (naive), or its
// oldest slice, which every later window has left behind (sliced).
func (s *strategy) fire(out []kit.Result, end int64) []kit.Result {
	start := end - s.cfg.Size
	window := s.tallies[start]
	if s.sliced {
		window = map[string]*tally{}
		for slice := start; slice < end; slice += s.cfg.Slide {
			for k, t := range s.tallies[slice] {
				m := window[k]
				if m == nil {
					m = &tally{}
					window[k] = m
				}
				m.count += t.count
				m.sum += t.sum
			}
		}
	}
	delete(s.tallies, start)
	for _, k := range slices.Sorted(maps.Keys(window)) {
		out = append(out, kit.Result{Key: k, Start: start, End: end, Count: window[k].count, Sum: window[k].sum})
	}
	return out
}

// floor returns ts floored to a multiple of d, for d > 0.
func floor(ts, d int64) int64 {
	r := ts % d
	if r < 0 {
		r += d
	}
	return ts - r
}
