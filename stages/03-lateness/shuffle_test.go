//go:build lab || solution

package lateness

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// shuffleConfigs are the configurations the convergence tests run, each
// with the disorder bound its shuffles use. Within WatermarkDelay nothing
// is even updated; beyond it, but within WatermarkDelay + AllowedLateness,
// windows are corrected and nothing is late.
var shuffleConfigs = []struct {
	cfg   Config
	bound int64
}{
	{Config{WindowSize: 100, WatermarkDelay: 40, AllowedLateness: 100}, 40},
	{Config{WindowSize: 37, WatermarkDelay: 20, AllowedLateness: 50}, 13},
	{Config{WindowSize: 100, WatermarkDelay: 40, AllowedLateness: 100}, 140},
	{Config{WindowSize: 100, AllowedLateness: 250}, 250},
	{Config{WindowSize: 37, WatermarkDelay: 10, AllowedLateness: 30}, 35},
	{Config{WindowSize: 1000, WatermarkDelay: 100, AllowedLateness: 300}, 400},
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

// check fails the test unless delivery d converged to want: each
// call's results in order, nothing late, every (key, window) emitted first
// as a non-update and then only as updates with growing counts, and the
// last result of each equal to want. With disorder within the delay
// (exact), not even an update may appear.
func check(t *testing.T, what string, cfg Config, bound int64, d windowtest.Delivery, want []kit.Result, exact bool) bool {
	t.Helper()
	setting := fmt.Sprintf("size %d, delay %d, lateness %d, disorder ≤ %d", cfg.WindowSize, cfg.WatermarkDelay, cfg.AllowedLateness, bound)
	if msg := d.Unordered(); msg != "" {
		t.Errorf("%s (%s): %s", what, setting, msg)
		return false
	}
	if len(d.Late) > 0 {
		first := d.Late[0]
		why := fmt.Sprintf("Disorder here is at most %d ≤ WatermarkDelay %d + AllowedLateness %d. When an event arrives the\n"+
			"watermark is at most its ts + %d − %d, below its window's end + lateness: it is never late. Keep a window's\n"+
			"state until the watermark reaches end + AllowedLateness, and judge lateness by that, before the event\n"+
			"raises the watermark.", bound, cfg.WatermarkDelay, cfg.AllowedLateness, bound, cfg.WatermarkDelay)
		if d.Redelivered(first.ID) {
			why = fmt.Sprintf("%s was delivered more than once: its redelivery is a no-op, not a late event.\n"+
				"Check whether the ID was seen BEFORE checking lateness.", first.ID)
		}
		start := windowtest.WindowStart(first.TS, cfg.WindowSize)
		t.Error(d.Report(fmt.Sprintf("%s (%s): Late() = %s, want nothing.\n%s", what, setting, windowtest.FmtEvents(d.Late), why), start, start+cfg.WindowSize))
		return false
	}
	h, order := histories(d.Emitted)
	for _, k := range order {
		rs := h[k]
		for i, r := range rs {
			var bad string
			switch {
			case i == 0 && r.IsUpdate:
				bad = "its first result is marked IsUpdate: the first result of a (key, window) is never an update"
			case i > 0 && !r.IsUpdate:
				bad = fmt.Sprintf("result %d is not marked IsUpdate: every result after the first re-emits the (key, window)\n"+
					"and must say so, or a consumer cannot tell a correction from a new result", i+1)
			case i > 0 && r.Count <= rs[i-1].Count:
				bad = fmt.Sprintf("result %d does not count more events than the one before: an update is emitted only when\n"+
					"an event arrives for a window that has fired, and it carries that event. A fired window must not be\n"+
					"emitted again when the watermark moves or on Flush, and a redelivered event changes nothing", i+1)
			}
			if bad != "" {
				t.Error(d.Report(fmt.Sprintf("%s (%s): the results emitted for %v, in order, were\n%s\n%s",
					what, setting, k, windowtest.FmtResults(rs), bad), k.start, k.end))
				return false
			}
		}
	}
	got := finalResults(d.Emitted)
	if !slices.Equal(got, want) {
		msg := fmt.Sprintf("%s (%s): the LAST result of each (key, window), what a consumer that upserts by (key, window)\n"+
			"ends up with, differs from the in-order fold of the input (every event counted once):\n%s",
			what, setting, windowtest.DiffResults(got, want))
		if first, ok := windowtest.FirstDifference(got, want); ok {
			msg = d.Report(msg, first.Start, first.End)
		}
		t.Error(msg)
		return false
	}
	if exact && len(d.Emitted) != len(want) {
		updates := slices.DeleteFunc(slices.Clone(d.Emitted), func(r kit.Result) bool { return !r.IsUpdate })
		t.Error(d.Report(fmt.Sprintf("%s (%s): %d updates were emitted, want none:\n%s\nDisorder here is within WatermarkDelay, so every window is complete when it fires: lateness\n"+
			"only keeps state longer, it must not change what a well-ordered enough stream emits.",
			what, setting, len(updates), windowtest.FmtResults(updates)), updates[0].Start, updates[0].End))
		return false
	}
	return true
}

// convergence runs shuffleRuns bounded shuffles of a random input per
// configuration (each also with duplicates when dupRate > 0) and checks
// that every one ends with the results of ordered delivery.
func convergence(t *testing.T, dupRate float64) {
	for _, sc := range shuffleConfigs {
		cfg, bound := sc.cfg, sc.bound
		name := fmt.Sprintf("size=%d/delay=%d/lateness=%d/disorder=%d", cfg.WindowSize, cfg.WatermarkDelay, cfg.AllowedLateness, bound)
		t.Run(name, func(t *testing.T) {
			defer suite.Recover(t)
			rnd := suite.Rand(t)
			// Timestamps from −10 windows to +20 windows: negative ones too.
			ordered := kit.RandomEvents(rnd, shuffleEvents, []string{"a", "b", "c", "d", "e"}, -10*cfg.WindowSize, 30*cfg.WindowSize)
			want := windowtest.InOrderResults(ordered, cfg.WindowSize)
			if !check(t, "in-order delivery", cfg, 0, deliver(t, cfg, ordered), want, true) {
				return // fix in-order delivery first
			}
			for what, events := range windowtest.Shuffles(rnd, ordered, shuffleRuns, bound, dupRate) {
				if !check(t, what, cfg, bound, deliver(t, cfg, events), want, bound <= cfg.WatermarkDelay) {
					return // one failing order is enough to read
				}
			}
		})
	}
}

// TestShuffledDeliveryConvergesToInOrderResults certifies that with lateness on, any delivery order whose disorder stays within WatermarkDelay + AllowedLateness sends nothing to Late and ends with the in-order result for every (key, window).
//
// Within WatermarkDelay the results are exactly the in-order ones, with no
// update; beyond it, early results are corrected by updates and the last
// one of each (key, window) is the in-order one. It runs 20 bounded
// shuffles of 300 seeded random events per configuration; FLK_SEED replays
// a failure.
func TestShuffledDeliveryConvergesToInOrderResults(t *testing.T) {
	defer suite.Recover(t)
	convergence(t, 0)
}

// TestShuffledDeliveryWithDuplicatesConvergesToInOrderResults certifies that bounded disorder plus redelivered events, with lateness on, still ends with the in-order result for every (key, window), each event counted once.
//
// A duplicate may arrive while its window lingers, or after it expired; it
// is a no-op either way: no update, no late event.
func TestShuffledDeliveryWithDuplicatesConvergesToInOrderResults(t *testing.T) {
	defer suite.Recover(t)
	convergence(t, 0.25)
}
