//go:build lab || solution

package idleness

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestTooLowIdleTimeoutMakesSlowPartitionLate certifies that an idle timeout shorter than a live partition's normal silence sends some of its events to the side output (never loses them), and a timeout above that silence sends none.
//
// The "batch" partition is alive but quiet between deliveries: its producer
// buffers events and flushes them every 90 s.
func TestTooLowIdleTimeoutMakesSlowPartitionLate(t *testing.T) {
	defer suite.Recover(t)
	const (
		size       = 10_000
		thirtyMins = 30 * 60 * 1000
	)
	rnd := suite.Rand(t)
	arrivals := mergeArrivals(
		genPartition(rnd, feedSpec{partition: 0, key: "web", to: thirtyMins, maxGap: 2_000, maxLag: 2_000}),
		genPartition(rnd, feedSpec{partition: 1, key: "batch", to: thirtyMins, maxGap: 6_000, batchEvery: 90_000}),
	)
	names := []string{"web", "batch"}
	until := thirtyMins*time.Millisecond + 3*time.Minute
	config := func(idle time.Duration) WatermarkConfig {
		return WatermarkConfig{Partitions: 2, OutOfOrderness: 5_000, IdleTimeout: idle}
	}

	t.Run("20 s, below the 90 s between batches", func(t *testing.T) {
		defer suite.Recover(t)
		o := replay(t, config(20*time.Second), names, size, arrivals, until)
		if len(o.late) == 0 {
			t.Fatalf("%s", o.shown(t, "no event went to the side output; want some of the batch partition's: 20 s after each delivery it is\n"+
				"idle, the watermark follows web alone for the next 70 s, and the windows of the batch's older events\n"+
				"close before it arrives. (Is the silence measured on the clock? Does an idle partition leave the min?)",
				0, 10*time.Minute))
		}
		counted := map[string]bool{}
		for _, e := range o.events {
			counted[e.ID] = true
		}
		for _, e := range o.late {
			if e.Key != "batch" {
				msg := fmt.Sprintf("%v went to the side output; want only batch events late: web's disorder (2 s) is within the 5 s\n"+
					"out-of-orderness and web is never idle, so it never falls behind the watermark", e)
				t.Fatalf("%s%s", msg, o.eventPicture(t, msg, e))
			}
			if !counted[e.ID] {
				t.Fatalf("%v is in Late() twice, or was never delivered: the side output holds each late event once", e)
			}
			counted[e.ID] = false
		}
		var kept []kit.Event
		for _, e := range o.events {
			if counted[e.ID] {
				kept = append(kept, e)
			}
		}
		o.expectResults(t, windowtest.InOrderResults(kept, size), fmt.Sprintf(
			"the results differ from those of the %d events that were not late (%d went to the side output); a late event\n"+
				"is never counted and never lost: it is in Late(), and every other event is in its window's result.", len(kept), len(o.late)))
		t.Logf("IdleTimeout 20 s: %d of %d events late, all from the batch partition", len(o.late), len(o.events))
	})

	t.Run("2 min, above the 90 s between batches", func(t *testing.T) {
		defer suite.Recover(t)
		o := replay(t, config(2*time.Minute), names, size, arrivals, until)
		o.expectInOrderResults(t, "IdleTimeout 2 min, longer than any silence of the batch partition")
		var worst time.Duration
		for _, f := range o.firings {
			if !f.flushed {
				worst = max(worst, f.delay())
			}
		}
		t.Logf("IdleTimeout 2 min: no late events; the slowest window closed %v after its end (it waits for the batch)", worst)
	})
}

// TestAnyInterleavingOfPartitionsGivesInOrderResults certifies that any interleaving of partitions, each disordered within OutOfOrderness and none idle, gives the results of in-order delivery and closes every window the sources' watermarks pass before the input ends.
func TestAnyInterleavingOfPartitionsGivesInOrderResults(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	const (
		partitions = 4
		size       = 1_000
		disorder   = 300
	)
	keys := []string{"a", "b", "c", "d", "e"}
	for round := range 6 {
		idle := []time.Duration{0, time.Hour}[round%2] // an hour is never reached: nothing goes idle
		cfg := WatermarkConfig{Partitions: partitions, OutOfOrderness: disorder, IdleTimeout: idle}

		// Each partition: its own events, shuffled within the bound, some redelivered.
		feeds := make([][]kit.Event, partitions)
		var all []kit.Event
		maxTS := make([]int64, partitions)
		for part := range feeds {
			evs := kit.RandomEvents(rnd, 80+rnd.IntN(60), keys, rnd.Int64N(2_000), 15_000)
			for i := range evs {
				evs[i].ID = fmt.Sprintf("p%d-%s", part, evs[i].ID)
				maxTS[part] = max(maxTS[part], evs[i].TS)
			}
			all = append(all, evs...)
			feeds[part] = kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, evs, disorder), 0.1)
		}

		clock := kit.NewManualClock(t0)
		w := newWatermarks(t, cfg, clock)
		r := windowtest.NewRun(t, newUpstream(t, Config{WindowSize: size}), size, 0)
		next := make([]int, partitions)
		for remaining := len(slices.Concat(feeds...)); remaining > 0; remaining-- {
			part := rnd.IntN(partitions)
			for next[part] == len(feeds[part]) {
				part = (part + 1) % partitions
			}
			e := feeds[part][next[part]]
			next[part]++
			clock.Advance(time.Duration(rnd.Int64N(20)) * time.Millisecond)
			w.Observe(part, e.TS)
			r.Process(e)
			if rnd.IntN(5) == 0 {
				r.Advance(w.Current())
			}
		}
		final := w.Current()
		r.Advance(final)
		wantFinal := slices.Min(maxTS) - disorder
		if final != wantFinal {
			msg := fmt.Sprintf("round %d: Current() after all events = %s, want %d: the min over the partitions of (largest\n"+
				"timestamp − %d), largest timestamps %v (IdleTimeout %v: no partition is idle)", round, kit.FormatWatermark(final), wantFinal, disorder, maxTS, idle)
			t.Fatalf("%s%s", msg, r.Picture(msg, nil, nil))
		}
		beforeFlush := len(r.Emitted())
		r.Flush()
		got, want := kit.SortResults(slices.Clone(r.Emitted())), windowtest.InOrderResults(all, size)
		if diff := windowtest.DiffResults(got, want); diff != "" || len(r.Late()) > 0 {
			msg := fmt.Sprintf("round %d: %d partitions, each shuffled within %d ms and interleaved at random, gave results that\n"+
				"differ from in-order delivery:\n%slate: %s\nEach partition's watermark trails its own largest timestamp by the\n"+
				"out-of-orderness, and the combined one is their min: no event is ever behind it, so any interleaving must\n"+
				"give the same results as in-order delivery.", round, partitions, disorder, diff, windowtest.FmtEvents(r.Late()))
			t.Fatalf("%s%s", msg, r.Picture(msg, nil, nil))
		}
		for _, res := range r.Emitted()[beforeFlush:] {
			if res.End <= final {
				msg := fmt.Sprintf("round %d: %v came out only at Flush; the sources' combined watermark %d had passed its end, so\n"+
					"AdvanceWatermark(%d) should have fired it", round, res, final, final)
				t.Fatalf("%s%s", msg, r.Picture(msg, nil, nil))
			}
		}
	}
}
