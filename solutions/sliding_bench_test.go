//go:build solution

package solutions

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// BenchmarkSliding measures the lesson of stage 09: the reference updates
// every window an event belongs to, so its cost per event grows with
// Size/Slide. The slide stays at kit.BenchmarkWindow and the size grows:
// ratio 1 is the tumbling case, the baseline of the others in the same run.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkSliding$' ./solutions
func BenchmarkSliding(b *testing.B) {
	events := stagebench.BenchmarkStream()[:20_000] // 200 s of event time, 10 000 keys
	for _, ratio := range []int64{1, 4, 16} {
		cfg := SlidingConfig{Size: ratio * benchWindow, Slide: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}
		b.Run(fmt.Sprintf("size/slide=%d", ratio), func(b *testing.B) {
			b.ReportAllocs()
			cost := stagebench.Loop(b, func() {
				s, err := NewSlidingProcessor(cfg)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range events {
					s.Process(e)
				}
				s.Flush()
			})
			perEvent(b, cost, len(events))
		})
	}
}
