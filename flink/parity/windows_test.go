//go:build flink

package parity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestTumblingWindowsMatchFlink checks stage 01 against Flink's
// TumblingEventTimeWindows, EventTimeTrigger and
// BoundedOutOfOrdernessWatermarks: every call's results, side output and
// watermark, for random sizes, delays and disorder, with duplicates,
// upstream watermarks, Flush, and timestamps around zero (negative
// included) and near both ends of the int64 range.
func TestTumblingWindowsMatchFlink(t *testing.T) {
	checkWindows(t, "stage 01, tumbling windows", func(r *seeded) windowCase { return tumblingCase(r, false) })
}

// TestAllowedLatenessMatchesFlink checks stage 03 against Flink's
// WindowOperator with allowedLateness and sideOutputLateData: late firings
// (updates, each with the window's whole count and sum), when a window's
// state is dropped, and which events go to the side output.
func TestAllowedLatenessMatchesFlink(t *testing.T) {
	checkWindows(t, "stage 03, allowed lateness", func(r *seeded) windowCase { return tumblingCase(r, true) })
}

// TestSlidingWindowsMatchFlink checks stage 09 against Flink's
// SlidingEventTimeWindows: which windows an event is in, their firings and
// late firings, and the side output, for sizes that are and are not a
// multiple of the slide (and slides longer than the size: gaps).
func TestSlidingWindowsMatchFlink(t *testing.T) {
	checkWindows(t, "stage 09, sliding windows", slidingCase)
}

func tumblingCase(r *seeded, lateness bool) windowCase {
	return tumblingCaseFor(r, tumblingConfig(r, lateness))
}

// tumblingConfig returns a random config of stages 01 (no lateness) and 03.
func tumblingConfig(r *seeded, lateness bool) solutions.Config {
	size := r.size()
	delay := r.Int64N(3*size + 1)
	var allowed int64
	if lateness {
		allowed = r.Int64N(4*size + 1)
	}
	return solutions.Config{WindowSize: size, WatermarkDelay: delay, AllowedLateness: allowed}
}

// tumblingCaseFor returns a scenario of random calls on stage 01's
// Processor with cfg.
func tumblingCaseFor(r *seeded, cfg solutions.Config) windowCase {
	size, delay, allowed := cfg.WindowSize, cfg.WatermarkDelay, cfg.AllowedLateness
	return windowCase{
		config: fmt.Sprintf("Config%+v", cfg),
		spec:   flinkrun.WindowSpec{Assigner: "tumbling", Size: size, EventWatermarks: true, Delay: delay, Lateness: allowed},
		newP:   func() windowtest.Processor { return must(solutions.NewProcessor(cfg)) },
		ops:    r.calls(size, delay, allowed),
	}
}

func slidingCase(r *seeded) windowCase {
	slide := r.size()
	size := slide * (1 + r.Int64N(4)) // a multiple: every instant in size/slide windows
	switch r.IntN(4) {
	case 0:
		size = slide + r.Int64N(3*slide+1) // not a multiple
	case 1:
		size = 1 + r.Int64N(slide) // shorter than the slide: instants in no window
	}
	delay := r.Int64N(2*size + 1)
	allowed := r.Int64N(2*size + 1)
	cfg := solutions.SlidingConfig{Size: size, Slide: slide, WatermarkDelay: delay, AllowedLateness: allowed}
	return windowCase{
		config: fmt.Sprintf("SlidingConfig%+v", cfg),
		spec:   flinkrun.WindowSpec{Assigner: "sliding", Size: size, Slide: slide, EventWatermarks: true, Delay: delay, Lateness: allowed},
		newP:   func() windowtest.Processor { return must(solutions.NewSlidingProcessor(cfg)) },
		ops:    r.calls(max(size, slide), delay, allowed),
	}
}

func must[P any](p P, err error) P {
	if err != nil {
		panic(err)
	}
	return p
}

// seeded is a scenario generator's random source.
type seeded struct{ *rand.Rand }

// size returns a window size or slide: small ones often (many windows,
// many boundaries), and now and then a second or a minute.
func (r *seeded) size() int64 {
	switch r.IntN(8) {
	case 0:
		return 1
	case 1:
		return 1000
	case 2:
		return 60_000
	}
	return 2 + r.Int64N(99)
}

// keyPool is where scenarios draw their keys: plain ones, and the awkward
// ones Flink's Strings can hold (kit.AwkwardStrings' invalid UTF-8 has no
// Java String: a deliberate difference, docs/PARITY.md).
var keyPool = []string{"a", "b", "c", "k1", "k2", "", "\x00", "ключ", "🦀", "a b"}

// keys returns one to four distinct keys.
func (r *seeded) keys() []string {
	n := 1 + r.IntN(4)
	idx := r.Perm(len(keyPool))[:n]
	keys := make([]string, n)
	for i, j := range idx {
		keys[i] = keyPool[j]
	}
	if r.IntN(50) == 0 {
		keys[0] = strings.Repeat("k", 70_000)
	}
	return keys
}

// calls returns a random arrival sequence for windows of about size, a
// watermark delay and an allowed lateness: up to 60 events, disordered
// beyond the delay now and then (late events: corrections within the
// lateness, side output beyond), about a tenth delivered twice, a few
// upstream watermarks among them, and mostly a Flush, with a redelivery and
// a new event after it. Timestamps are around zero (negative included), or
// near either end of the int64 range, far enough in that every window and
// every watermark the events make lies within it.
func (r *seeded) calls(size, delay, allowed int64) []windowtest.Op {
	return r.callsWith(size, delay, allowed, callSpec{spread: 10, disorder: 2, every: 15, keys: r.keys})
}

// A callSpec is what varies between the arrival sequences of different
// stages.
type callSpec struct {
	// spread: the events' timestamps span size × (2 + a draw below spread).
	spread int64
	// disorder: an event may come after others up to a draw below
	// disorder × size + delay later than it (kit.BoundedShuffle).
	disorder int64
	// every: an upstream watermark comes before about one event in every.
	every int
	// keys draws the scenario's keys.
	keys func() []string
}

// callsWith returns a random arrival sequence as calls does, as spec says.
func (r *seeded) callsWith(size, delay, allowed int64, spec callSpec) []windowtest.Op {
	n := 1 + r.IntN(60)
	span := size * (2 + r.Int64N(spec.spread))
	margin := span + 4*size + delay + allowed + 1
	var from int64
	switch r.IntN(10) {
	case 0:
		from = math.MaxInt64 - margin
	case 1:
		from = math.MinInt64 + margin
	default:
		from = r.Int64N(4*size+1) - 2*size
	}
	events := kit.RandomEvents(r.Rand, n, spec.keys(), from, span)
	events = kit.WithAwkwardFields(r.Rand, events, 0.05)
	for i := range events {
		events[i].Key = strings.ToValidUTF8(events[i].Key, "\uFFFD")
		events[i].ID = strings.ToValidUTF8(events[i].ID, "\uFFFD")
	}
	events = kit.BoundedShuffle(r.Rand, events, r.Int64N(spec.disorder*size+delay+1))
	events = kit.WithDuplicates(r.Rand, events, 0.1)

	var ops []windowtest.Op
	maxTS := int64(math.MinInt64)
	for _, e := range events {
		if maxTS != math.MinInt64 && r.IntN(spec.every) == 0 {
			// An upstream watermark: some below the events' own, some above.
			ops = append(ops, windowtest.AdvanceOp(maxTS-delay+r.Int64N(2*size+1)-size))
		}
		ops = append(ops, windowtest.ProcessOp(e))
		maxTS = max(maxTS, e.TS)
	}
	if r.IntN(10) < 7 {
		ops = append(ops, windowtest.FlushOp(),
			windowtest.ProcessOp(events[r.IntN(len(events))]),
			windowtest.ProcessOp(kit.Event{ID: "after-end", Key: events[0].Key, TS: maxTS, Value: 1}))
	}
	return ops
}
