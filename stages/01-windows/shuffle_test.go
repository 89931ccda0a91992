//go:build lab || solution

package windows

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
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

// deliver processes events in order on a new Processor for cfg, then
// flushes.
func deliver(t *testing.T, cfg Config, events []kit.Event) windowtest.Delivery {
	t.Helper()
	return windowtest.Deliver(t, windowtest.MustNew(t, NewProcessor, cfg), cfg.WindowSize, cfg.AllowedLateness, events)
}

// checkDelivery fails the test unless d emitted exactly want (as a multiset),
// each call's results in (End, Start, Key) order, with nothing late.
func checkDelivery(t *testing.T, what string, cfg Config, bound int64, d windowtest.Delivery, want []kit.Result) bool {
	t.Helper()
	if msg := d.Unordered(); msg != "" {
		t.Errorf("%s: %s", what, msg)
		return false
	}
	if len(d.Late) > 0 {
		first := d.Late[0]
		why := fmt.Sprintf("Disorder here is at most %d and WatermarkDelay is %d, so when an event arrives the watermark\n"+
			"(max timestamp − delay) is never past it: no event is late. Judge lateness against the watermark\n"+
			"as it was before the event arrived.", bound, cfg.WatermarkDelay)
		if d.Redelivered(first.ID) {
			why = fmt.Sprintf("%s was delivered more than once: its redelivery is a no-op, not a late event.\n"+
				"Check whether the ID was seen BEFORE checking lateness.", first.ID)
		}
		start := windowtest.WindowStart(first.TS, cfg.WindowSize)
		t.Error(d.Report(fmt.Sprintf("%s: Late() = %s, want nothing.\n%s", what, windowtest.FmtEvents(d.Late), why), start, start+cfg.WindowSize))
		return false
	}
	got := kit.SortResults(slices.Clone(d.Emitted))
	if slices.Equal(got, want) {
		return true
	}
	msg := fmt.Sprintf("%s (size %d, delay %d, disorder ≤ %d): the results differ from one result per (window, key)\n"+
		"with every event counted once.\n%s", what, cfg.WindowSize, cfg.WatermarkDelay, bound, windowtest.DiffResults(got, want))
	if first, ok := windowtest.FirstDifference(got, want); ok {
		msg = d.Report(msg, first.Start, first.End)
	}
	t.Error(msg)
	return false
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
			want := windowtest.InOrderResults(ordered, cfg.WindowSize)
			if !checkDelivery(t, "in-order delivery", cfg, bound, deliver(t, cfg, ordered), want) {
				return // fix in-order delivery first
			}
			for what, events := range windowtest.Shuffles(rnd, ordered, shuffleRuns, bound, dupRate) {
				if !checkDelivery(t, what, cfg, bound, deliver(t, cfg, events), want) {
					return // one failing order is enough to read
				}
			}
		})
	}
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
