//go:build lab || solution

package windows

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// shuffleConfigs are the configurations the order-independence tests run,
// each with the disorder bound its shuffles use (never above the delay).
var shuffleConfigs = []struct {
	cfg   Config
	bound int64
}{
	{Config{WindowSize: 100}, 0},
	{Config{WindowSize: 100, WatermarkDelay: 40}, 40},
	{Config{WindowSize: 100, WatermarkDelay: 250}, 250},
	{Config{WindowSize: 37, WatermarkDelay: 20}, 13},
	{Config{WindowSize: 1000, WatermarkDelay: 500}, 500},
}

const (
	shuffleRuns   = 20  // delivery orders tried per configuration
	shuffleEvents = 300 // events per run
)

// delivery is one run of a Processor over a whole bounded input.
type delivery struct {
	calls   [][]kit.Result // what each call returned: one per event, then Flush
	emitted []kit.Result   // all of it, in emission order
	late    []kit.Event
	wm      int64 // the watermark after Flush
}

// deliver processes events in order, then flushes.
func deliver(t *testing.T, cfg Config, events []kit.Event) delivery {
	t.Helper()
	p, err := NewProcessor(cfg)
	if err != nil || p == nil {
		t.Fatalf("NewProcessor(%+v) = %v, %v; want a processor and no error", cfg, p, err)
	}
	var d delivery
	for _, e := range events {
		d.calls = append(d.calls, p.Process(e))
	}
	d.calls = append(d.calls, p.Flush())
	for _, c := range d.calls {
		d.emitted = append(d.emitted, c...)
	}
	d.late, d.wm = p.Late(), p.Watermark()
	return d
}

// checkDelivery fails the test unless d emitted exactly want (as a multiset),
// each call's results in (End, Start, Key) order, with nothing late.
func checkDelivery(t *testing.T, what string, cfg Config, bound int64, events []kit.Event, d delivery, want []kit.Result) bool {
	t.Helper()
	for i, c := range d.calls {
		if !slices.IsSortedFunc(c, kit.CompareResults) {
			call := "Flush()"
			if i < len(events) {
				call = fmt.Sprintf("Process(%v) (arrival %d)", events[i], i+1)
			}
			t.Errorf("%s: %s returned results out of order:\n%s\nThe results of one call are ordered by (End, Start, Key): kit.SortResults does it.",
				what, call, fmtResults(c))
			return false
		}
	}
	if len(d.late) > 0 {
		first := d.late[0]
		why := fmt.Sprintf("Disorder here is at most %d and WatermarkDelay is %d, so when an event arrives the watermark\n"+
			"(max timestamp − delay) is never past it: no event is late. Judge lateness against the watermark\n"+
			"as it was before the event arrived.", bound, cfg.WatermarkDelay)
		if countID(events, first.ID) > 1 {
			why = fmt.Sprintf("%s was delivered more than once: its redelivery is a no-op, not a late event.\n"+
				"Check whether the ID was seen BEFORE checking lateness.", first.ID)
		}
		t.Errorf("%s: Late() = %s, want nothing.\n%s\n\n%s", what, fmtEvents(d.late), why, windowTimelineOfEvent(cfg, events, d, first))
		return false
	}
	got := kit.SortResults(slices.Clone(d.emitted))
	if slices.Equal(got, want) {
		return true
	}
	msg := fmt.Sprintf("%s (size %d, delay %d, disorder ≤ %d): the results differ from one result per (window, key)\n"+
		"with every event counted once.\n%s", what, cfg.WindowSize, cfg.WatermarkDelay, bound, diffResults(got, want))
	if start, end, ok := firstDifference(got, want); ok {
		msg += "\n" + windowTimeline(cfg, events, d.emitted, d.late, d.wm, start, end)
	}
	t.Error(msg)
	return false
}

// countID returns how many of events have the given ID.
func countID(events []kit.Event, id string) int {
	n := 0
	for _, e := range events {
		if e.ID == id {
			n++
		}
	}
	return n
}

// windowTimelineOfEvent draws the window of e.
func windowTimelineOfEvent(cfg Config, events []kit.Event, d delivery, e kit.Event) string {
	start := floorStart(e.TS, cfg.WindowSize)
	return windowTimeline(cfg, events, d.emitted, d.late, d.wm, start, start+cfg.WindowSize)
}

// orderIndependence runs shuffleRuns bounded shuffles of a random input per
// configuration (each also with duplicates when dupRate > 0) and checks
// that every one gives the results of ordered delivery.
func orderIndependence(t *testing.T, dupRate float64) {
	for _, sc := range shuffleConfigs {
		cfg, bound := sc.cfg, sc.bound
		t.Run(fmt.Sprintf("size=%d/delay=%d/disorder=%d", cfg.WindowSize, cfg.WatermarkDelay, bound), func(t *testing.T) {
			defer suite.Recover(t)
			rnd := suite.Rand(t)
			// Timestamps from −10 windows to +20 windows: negative ones too.
			ordered := kit.RandomEvents(rnd, shuffleEvents, []string{"a", "b", "c", "d", "e"}, -10*cfg.WindowSize, 30*cfg.WindowSize)
			want := expectedResults(ordered, cfg.WindowSize)
			if !checkDelivery(t, "in-order delivery", cfg, bound, ordered, deliver(t, cfg, ordered), want) {
				return // fix in-order delivery first
			}
			for i := range shuffleRuns {
				events := shuffled(rnd, ordered, bound, dupRate)
				what := fmt.Sprintf("shuffle %d of %d", i+1, shuffleRuns)
				if dupRate > 0 {
					what += " (with duplicates)"
				}
				if !checkDelivery(t, what, cfg, bound, events, deliver(t, cfg, events), want) {
					return // one failing order is enough to read
				}
			}
		})
	}
}

// shuffled is a bounded shuffle of events, with duplicates if rate > 0.
func shuffled(rnd *rand.Rand, events []kit.Event, bound int64, rate float64) []kit.Event {
	out := kit.BoundedShuffle(rnd, events, bound)
	if rate > 0 {
		out = kit.WithDuplicates(rnd, out, rate)
	}
	return out
}

// TestShuffledDeliveryGivesSameResults certifies that any delivery order with disorder bounded by WatermarkDelay gives the results of in-order delivery, each call's results in order.
//
// It runs 20 bounded shuffles of 300 seeded random events per configuration;
// FLK_SEED replays a failure.
func TestShuffledDeliveryGivesSameResults(t *testing.T) {
	defer suite.Recover(t)
	orderIndependence(t, 0)
}

// TestShuffledDeliveryWithDuplicatesGivesSameResults certifies that bounded disorder plus redelivered events still gives the results of in-order delivery, each event counted once.
//
// Duplicates may arrive long after their window fired; they are no-ops,
// not late events.
func TestShuffledDeliveryWithDuplicatesGivesSameResults(t *testing.T) {
	defer suite.Recover(t)
	orderIndependence(t, 0.25)
}
