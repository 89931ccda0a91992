//go:build lab || solution

package lateness

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
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

// check fails the test unless delivery d of events converged to want: each
// call's results in order, nothing late, every (key, window) emitted first
// as a non-update and then only as updates with growing counts, and the
// last result of each equal to want. With disorder within the delay
// (exact), not even an update may appear.
func check(t *testing.T, what string, cfg Config, bound int64, events []kit.Event, d delivery, want []kit.Result, exact bool) bool {
	t.Helper()
	focus := func(start, end int64) string {
		return windowTimeline(cfg, events, d.emitted, d.late, d.wm, start, end)
	}
	setting := fmt.Sprintf("size %d, delay %d, lateness %d, disorder ≤ %d", cfg.WindowSize, cfg.WatermarkDelay, cfg.AllowedLateness, bound)
	for i, c := range d.calls {
		if !slices.IsSortedFunc(c, kit.CompareResults) {
			call := "Flush()"
			if i < len(events) {
				call = fmt.Sprintf("Process(%v) (arrival %d)", events[i], i+1)
			}
			t.Errorf("%s (%s): %s returned results out of order:\n%s\nThe results of one call are ordered by (End, Start, Key): kit.SortResults does it.",
				what, setting, call, fmtResults(c))
			return false
		}
	}
	if len(d.late) > 0 {
		first := d.late[0]
		why := fmt.Sprintf("Disorder here is at most %d ≤ WatermarkDelay %d + AllowedLateness %d. When an event arrives the\n"+
			"watermark is at most its ts + %d − %d, below its window's end + lateness: it is never late. Keep a window's\n"+
			"state until the watermark reaches end + AllowedLateness, and judge lateness by that, before the event\n"+
			"raises the watermark.", bound, cfg.WatermarkDelay, cfg.AllowedLateness, bound, cfg.WatermarkDelay)
		if countID(events, first.ID) > 1 {
			why = fmt.Sprintf("%s was delivered more than once: its redelivery is a no-op, not a late event.\n"+
				"Check whether the ID was seen BEFORE checking lateness.", first.ID)
		}
		start := floorStart(first.TS, cfg.WindowSize)
		t.Errorf("%s (%s): Late() = %s, want nothing.\n%s\n\n%s", what, setting, fmtEvents(d.late), why, focus(start, start+cfg.WindowSize))
		return false
	}
	h, order := histories(d.emitted)
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
				t.Errorf("%s (%s): the results emitted for %v, in order, were\n%s\n%s\n\n%s",
					what, setting, k, fmtResults(rs), bad, focus(k.start, k.end))
				return false
			}
		}
	}
	got := finalResults(d.emitted)
	if !slices.Equal(got, want) {
		msg := fmt.Sprintf("%s (%s): the LAST result of each (key, window), what a consumer that upserts by (key, window)\n"+
			"ends up with, differs from the in-order fold of the input (every event counted once):\n%s",
			what, setting, diffResults(got, want))
		if start, end, ok := firstDifference(got, want); ok {
			msg += "\n" + focus(start, end)
		}
		t.Error(msg)
		return false
	}
	if exact && len(d.emitted) != len(want) {
		updates := slices.DeleteFunc(slices.Clone(d.emitted), func(r kit.Result) bool { return !r.IsUpdate })
		t.Errorf("%s (%s): %d updates were emitted, want none:\n%s\nDisorder here is within WatermarkDelay, so every window is complete when it fires: lateness\n"+
			"only keeps state longer, it must not change what a well-ordered enough stream emits.\n\n%s",
			what, setting, len(updates), fmtResults(updates), focus(updates[0].Start, updates[0].End))
		return false
	}
	return true
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
			want := inOrderFold(ordered, cfg.WindowSize)
			if !check(t, "in-order delivery", cfg, 0, ordered, deliver(t, cfg, ordered), want, true) {
				return // fix in-order delivery first
			}
			for i := range shuffleRuns {
				events := shuffled(rnd, ordered, bound, dupRate)
				what := fmt.Sprintf("shuffle %d of %d", i+1, shuffleRuns)
				if dupRate > 0 {
					what += " (with duplicates)"
				}
				if !check(t, what, cfg, bound, events, deliver(t, cfg, events), want, bound <= cfg.WatermarkDelay) {
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
