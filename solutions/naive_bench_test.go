//go:build solution

package solutions

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// naiveProcessor is the first tumbling processor a Go developer writes
// for stage 01, the baseline that BenchmarkRatios and BenchmarkHeap hold
// the reference against: one map of running tallies keyed by (key, window
// start), one map of the IDs seen, and, when the watermark passes the
// earliest open window's end, a scan of the tallies for those due, sorted
// into the order of results. It keeps the contract of stage 01 (no
// allowed lateness): TestNaiveMatchesReference checks that it returns the
// reference's results, call by call.
type naiveProcessor struct {
	size, delay int64
	watermark   int64
	nextEnd     int64 // the earliest end of an open window: nothing is due before
	seen        map[string]struct{}
	open        map[foldKey]foldTally
}

// newNaive returns a naiveProcessor with windows of size and a watermark
// delay behind the largest timestamp seen.
func newNaive(size, delay int64) *naiveProcessor {
	return &naiveProcessor{
		size: size, delay: delay,
		watermark: math.MinInt64, nextEnd: math.MaxInt64,
		seen: make(map[string]struct{}), open: make(map[foldKey]foldTally),
	}
}

// Process adds e to its window's tally, unless its ID was seen or its
// window has fired, and returns the results of the windows the watermark
// it implies passes.
func (p *naiveProcessor) Process(e kit.Event) []kit.Result {
	if _, ok := p.seen[e.ID]; ok {
		return nil
	}
	p.seen[e.ID] = struct{}{}
	_, end := AssignWindow(e.TS, p.size)
	if end <= p.watermark {
		return nil // late
	}
	foldInto(p.open, e, p.size)
	p.nextEnd = min(p.nextEnd, end)
	return p.advance(minusSaturating(e.TS, p.delay))
}

// Flush fires every open window.
func (p *naiveProcessor) Flush() []kit.Result {
	return p.advance(math.MaxInt64)
}

// advance moves the watermark to wm, if that is ahead, and returns the
// results of every window it passes, by window and then by key.
func (p *naiveProcessor) advance(wm int64) []kit.Result {
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
		end := k.start + p.size
		if end > wm {
			p.nextEnd = min(p.nextEnd, end)
			continue
		}
		out = append(out, kit.Result{Key: k.key, Start: k.start, End: end, Count: t.count, Sum: t.sum})
		delete(p.open, k)
	}
	slices.SortFunc(out, func(a, b kit.Result) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Key, b.Key))
	})
	return out
}

// TestNaiveMatchesReference certifies that the naive baseline of the
// benchmarks returns, call by call, the results of the reference's
// Processor on the benchmark stream, at the shortest length BenchmarkRatios
// runs and at a longer one, with redeliveries: a baseline that did less
// work would flatter the reference.
func TestNaiveMatchesReference(t *testing.T) {
	defer suite.Recover(t)
	for _, n := range []int{10_000, 100_000} {
		t.Run(fmt.Sprintf("events=%d", n), func(t *testing.T) {
			defer suite.Recover(t)
			stream := kit.BenchmarkStreamOf(n)
			events := append(kit.WithDuplicates(suite.Rand(t), stream[:n/10], 0.01), stream[n/10:]...)
			ref, err := NewProcessor(Config{WindowSize: benchWindow, WatermarkDelay: kit.BenchmarkDisorder})
			if err != nil {
				t.Fatal(err)
			}
			naive := newNaive(benchWindow, kit.BenchmarkDisorder)
			results := 0
			check := func(call string, want, got []kit.Result) {
				t.Helper()
				if !slices.Equal(want, got) {
					t.Fatalf("%s: the reference returned %d results, the naive baseline %d:\nreference: %v\nnaive:     %v\nthe benchmarks compare the two as doing the same work, so they must agree",
						call, len(want), len(got), head(want), head(got))
				}
				results += len(want)
			}
			for i, e := range events {
				check(fmt.Sprintf("Process(%v), event %d", e, i), ref.Process(e), naive.Process(e))
			}
			check("Flush()", ref.Flush(), naive.Flush())
			if results == 0 {
				t.Fatal("no results at all: the stream must fire windows")
			}
		})
	}
}

// head returns at most the first 5 of rs, for a failure message.
func head(rs []kit.Result) []kit.Result {
	return rs[:min(len(rs), 5)]
}
