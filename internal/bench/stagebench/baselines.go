package stagebench

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/kit"
)

// The baselines of issue 16's ratios, which BenchmarkRatios holds the
// reference against and de bench holds a learner's processor against, at
// each length of kit.BenchmarkStreamOf: the fold, the practical limit of a
// tumbling sum; the fold that drops redelivered IDs, the limit of any
// processor that keeps the contract; and the naive learner's processor,
// the first one a Go developer writes for stage 01. They are benchmark
// code, for the benchmark streams (timestamps far from the int64 edges),
// not a second reference.

// FoldKey is the fold's key: an event's key and its window's start.
type FoldKey struct {
	Key   string
	Start int64
}

// FoldTally is the fold's running tally of one key and window.
type FoldTally struct{ Count, Sum int64 }

// Fold folds events into one map keyed by (key, window start) with windows
// of size: no watermark, no dedup, no emission.
func Fold(events []kit.Event, size int64) map[FoldKey]FoldTally {
	m := make(map[FoldKey]FoldTally)
	for _, e := range events {
		foldInto(m, e, size)
	}
	return m
}

// FoldDedup is Fold that also ignores an event whose ID was seen before, as
// a processor must: add records an ID and reports whether it was new. The
// caller picks the set, so that the reference's benchmarks can use the
// reference's own (BenchmarkRatios) and de bench a Go map (MapSet).
func FoldDedup(events []kit.Event, size int64, add func(id string) bool) map[FoldKey]FoldTally {
	m := make(map[FoldKey]FoldTally)
	for _, e := range events {
		if add(e.ID) {
			foldInto(m, e, size)
		}
	}
	return m
}

// MapSet returns the add of a new set of IDs in a Go map, for FoldDedup.
func MapSet() func(id string) bool {
	seen := make(map[string]struct{})
	return func(id string) bool {
		if _, ok := seen[id]; ok {
			return false
		}
		seen[id] = struct{}{}
		return true
	}
}

// foldInto adds e to the tally of its key and window in m.
func foldInto(m map[FoldKey]FoldTally, e kit.Event, size int64) {
	k := FoldKey{e.Key, floor(e.TS, size)}
	t := m[k]
	t.Count++
	t.Sum += e.Value
	m[k] = t
}

// naive is the first tumbling processor a Go developer writes for stage
// 01: one map of running tallies keyed by (key, window start), one map of
// the IDs seen, and, when the watermark passes the earliest open window's
// end, a scan of the tallies for those due, sorted into the order of
// results. It keeps the contract of stage 01 (no allowed lateness) on
// timestamps away from the int64 edges, as the benchmark stream's are
// (its watermark, TS - delay, and a window's end are not saturated, as a
// first try's are not), and TestNaiveMatchesReference checks that it
// returns the reference's results call by call on that stream.
type naive struct {
	size, delay int64
	watermark   int64
	nextEnd     int64 // the earliest end of an open window: nothing is due before
	seen        map[string]struct{}
	open        map[FoldKey]FoldTally
}

// NewNaive returns the naive learner's processor, with windows of size and
// a watermark delay behind the largest timestamp seen.
func NewNaive(size, delay int64) Processor {
	return &naive{
		size: size, delay: delay,
		watermark: math.MinInt64, nextEnd: math.MaxInt64,
		seen: make(map[string]struct{}), open: make(map[FoldKey]FoldTally),
	}
}

// Process adds e to its window's tally, unless its ID was seen or its
// window has fired, and returns the results of the windows the watermark
// it implies passes.
func (p *naive) Process(e kit.Event) []kit.Result {
	if _, ok := p.seen[e.ID]; ok {
		return nil
	}
	p.seen[e.ID] = struct{}{}
	end := floor(e.TS, p.size) + p.size
	if end <= p.watermark {
		return nil // late
	}
	foldInto(p.open, e, p.size)
	p.nextEnd = min(p.nextEnd, end)
	return p.advance(e.TS - p.delay)
}

// Flush fires every open window.
func (p *naive) Flush() []kit.Result {
	return p.advance(math.MaxInt64)
}

// advance moves the watermark to wm, if that is ahead, and returns the
// results of every window it passes, by window and then by key.
func (p *naive) advance(wm int64) []kit.Result {
	if wm <= p.watermark {
		return nil
	}
	p.watermark = wm
	if wm < p.nextEnd {
		return nil
	}
	var out []kit.Result
	p.nextEnd = math.MaxInt64
	for k, t := range p.open {
		end := k.Start + p.size
		if end > wm {
			p.nextEnd = min(p.nextEnd, end)
			continue
		}
		out = append(out, kit.Result{Key: k.Key, Start: k.Start, End: end, Count: t.Count, Sum: t.Sum})
		delete(p.open, k)
	}
	slices.SortFunc(out, func(a, b kit.Result) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Key, b.Key))
	})
	return out
}

// Drive gives p every event and a Flush, as Throughput does, and keeps the
// last results where the compiler cannot discard them.
func Drive(p Processor, events []kit.Event) {
	var out []kit.Result
	for _, e := range events {
		out = append(out[:0], p.Process(e)...)
	}
	sinkResults = append(out[:0], p.Flush()...)
}

// sinkFold keeps the compiler from discarding a fold.
var sinkFold map[FoldKey]FoldTally

// Baselines times, in turns within every round (Race), a new processor of
// the package (1 s windows, the stream's disorder as its delay) and the
// three baselines, each taking the benchmark stream at n events whole
// (streamOf): the fold, the fold with a Go map of IDs (MapSet), and the
// naive learner's processor. It reports processor-cpu-ns/event, fold-cpu-ns/event,
// fold+dedup-cpu-ns/event and naive-cpu-ns/event, and the processor's
// speed over each (Race).
func Baselines(b *testing.B, api API, n int) {
	events := streamOf(n)
	size, delay := kit.BenchmarkWindow, kit.BenchmarkDisorder
	cfg := Config{WindowSize: size, WatermarkDelay: delay}
	Race(b, n,
		Contender{Name: "processor", Pass: func() { Drive(newProcessor(b, api, cfg), events) }},
		Contender{Name: "fold", Pass: func() { sinkFold = Fold(events, size) }},
		Contender{Name: "fold+dedup", Pass: func() { sinkFold = FoldDedup(events, size, MapSet()) }},
		Contender{Name: "naive", Pass: func() { Drive(NewNaive(size, delay), events) }},
	)
}
