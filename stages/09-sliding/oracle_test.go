//go:build lab || solution

package sliding

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// oracleConfigs are the window shapes the seeded runs cover: size a
// multiple of slide, size % slide != 0, slide 1, tumbling, and gaps.
var oracleConfigs = []struct{ size, slide int64 }{
	{10, 5}, {10, 3}, {12, 4}, {7, 1}, {10, 10}, {4, 6},
}

// TestResultsMatchNaiveOracle certifies that over seeded streams, delivered
// in bounded shuffles within the watermark delay and with redeliveries, the
// results are exactly the naive oracle's (every event, once per ID, added
// to every window that holds it), each call's in (End, Start, Key) order,
// with nothing late: delivery order does not matter.
func TestResultsMatchNaiveOracle(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, c := range oracleConfigs {
		t.Run(fmt.Sprintf("size %d slide %d", c.size, c.slide), func(t *testing.T) {
			defer suite.Recover(t)
			const delay = 15
			events := kit.RandomEvents(rnd, 80, oracleKeys, -4*c.size, 10*c.size)
			want := naiveResults(events, c.size, c.slide)
			for what, delivered := range windowtest.Shuffles(rnd, events, 8, delay, 0.2) {
				cfg := SlidingConfig{Size: c.size, Slide: c.slide, WatermarkDelay: delay}
				d := windowtest.Deliver(t, newSliding(t, cfg), 0, 0, delivered)
				if msg := d.Unordered(); msg != "" {
					t.Fatalf("%s: %s", what, msg)
				}
				if missing, extra := windowtest.Unmatched(d.Emitted, want); len(missing)+len(extra) > 0 {
					msg := fmt.Sprintf("%s of %d events (disorder within the delay %d), windows of %d every %d:\n%s\n"+
						"The oracle adds each event, once per ID, to every window [s, s+%d) with s a multiple of %d\n"+
						"and ts − %d < s ≤ ts, and emits each window once.",
						what, len(events), delay, c.size, c.slide, windowtest.DiffResults(d.Emitted, want), c.size, c.slide, c.size)
					t.Fatalf("%s%s", msg, d.Picture(msg, pictureWindows(cfg)))
				}
				if len(d.Late) > 0 {
					msg := fmt.Sprintf("%s: Late() = %s, want nothing: the disorder is within the watermark delay, so no window\n"+
						"expires before its events arrive (a redelivery is a no-op, never late).", what, windowtest.FmtEvents(d.Late))
					t.Fatalf("%s%s", msg, d.Picture(msg, pictureWindows(cfg)))
				}
			}
		})
	}
}
