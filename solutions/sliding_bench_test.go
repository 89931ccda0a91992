//go:build solution

package solutions

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// BenchmarkSliding measures the lesson of stage 09. The reference updates
// every window an event belongs to, so its cost per event grows with
// Size/Slide; slicing (Flink SQL's window slicing, the Scotty paper)
// updates one slice per event and merges Size/Slide slices per key when a
// window fires. The slide stays at kit.BenchmarkWindow and the size grows;
// each ratio runs the reference and a sliced fold (no dedup, no lateness:
// a lower bound on what slicing costs) side by side, over few keys, where
// slicing pays, and over many, where every slice holds a key once or twice
// and the merge costs what the naive updates did.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkSliding$' ./solutions
func BenchmarkSliding(b *testing.B) {
	many := stagebench.BenchmarkStream()[:20_000] // 200 s of event time over 10 000 keys
	few := slices.Clone(many)
	for i := range few {
		few[i].Key = few[i].Key[:min(2, len(few[i].Key))] // k0…k9: ten keys
	}
	for _, stream := range []struct {
		name   string
		events []kit.Event
	}{{"10-keys", few}, {"10000-keys", many}} {
		for _, ratio := range []int64{1, 4, 16} {
			cfg := SlidingConfig{Size: ratio * benchWindow, Slide: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}
			b.Run(fmt.Sprintf("%s/size-slide-%d/reference", stream.name, ratio), func(b *testing.B) {
				b.ReportAllocs()
				cost := stagebench.Loop(b, func() {
					s, err := NewSlidingProcessor(cfg)
					if err != nil {
						b.Fatal(err)
					}
					for _, e := range stream.events {
						sinkResults = s.Process(e)
					}
					sinkResults = s.Flush()
				})
				perEvent(b, cost, len(stream.events))
			})
			b.Run(fmt.Sprintf("%s/size-slide-%d/sliced-fold", stream.name, ratio), func(b *testing.B) {
				b.ReportAllocs()
				cost := stagebench.Loop(b, func() { sinkResults = slicedFold(stream.events, cfg) })
				perEvent(b, cost, len(stream.events))
			})
		}
	}
}

// slicedFold returns the results of events in windows of cfg.Size every
// cfg.Slide, a multiple of it, by slicing: each event adds to the tally of
// its key in its slice [s, s+Slide), and a window fires, when the
// watermark reaches its end, by merging its Size/Slide slices per key. A
// slice is dropped once the last window holding it has fired. It assumes
// what the benchmark stream gives: no redeliveries and no event later than
// the watermark delay.
func slicedFold(events []kit.Event, cfg SlidingConfig) []kit.Result {
	type tally struct{ count, sum int64 }
	slideOf := func(ts int64) int64 { s, _ := AssignWindow(ts, cfg.Slide); return s }
	bySlice := map[int64]map[string]*tally{}
	var out []kit.Result
	next := int64(math.MaxInt64) // the end of the first window not fired yet
	fire := func(end int64) {
		merged := map[string]*tally{}
		for s := end - cfg.Size; s < end; s += cfg.Slide {
			for k, t := range bySlice[s] {
				m := merged[k]
				if m == nil {
					m = &tally{}
					merged[k] = m
				}
				m.count += t.count
				m.sum += t.sum
			}
		}
		for _, k := range slices.Sorted(maps.Keys(merged)) {
			out = append(out, kit.Result{Key: k, Start: end - cfg.Size, End: end, Count: merged[k].count, Sum: merged[k].sum})
		}
		delete(bySlice, end-cfg.Size) // no later window holds the oldest slice
	}
	wm := int64(math.MinInt64)
	for _, e := range events {
		s := slideOf(e.TS)
		if bySlice[s] == nil {
			bySlice[s] = map[string]*tally{}
		}
		t := bySlice[s][e.Key]
		if t == nil {
			t = &tally{}
			bySlice[s][e.Key] = t
		}
		t.count++
		t.sum += e.Value
		next = min(next, s+cfg.Slide) // the earliest window of e ends one slide after its slice starts
		wm = max(wm, e.TS-cfg.WatermarkDelay)
		for ; next <= wm && len(bySlice) > 0; next += cfg.Slide {
			fire(next)
		}
	}
	for ; len(bySlice) > 0; next += cfg.Slide {
		fire(next)
	}
	return out
}

// TestSlicedFoldMatchesReference checks BenchmarkSliding's baseline: over
// the benchmark stream, the sliced fold gives the reference's results.
func TestSlicedFoldMatchesReference(t *testing.T) {
	events := stagebench.BenchmarkStream()[:5_000]
	for _, ratio := range []int64{1, 3, 8} {
		cfg := SlidingConfig{Size: ratio * benchWindow, Slide: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}
		s, err := NewSlidingProcessor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want []kit.Result
		for _, e := range events {
			want = append(want, s.Process(e)...)
		}
		want = append(want, s.Flush()...)
		if got := slicedFold(events, cfg); !slices.Equal(got, want) {
			t.Fatalf("size/slide %d: the sliced fold gave %d results, the reference %d", ratio, len(got), len(want))
		}
	}
}
