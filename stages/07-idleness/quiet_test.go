//go:build lab || solution

package idleness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
)

// The quiet-EU incident. Three regions feed one job, one source partition
// each. Every night the EU partition goes silent from 02:00 to 04:00 (its
// producers are down for maintenance); the job counts events per region in
// 5-minute windows and has a 300 s latency budget.
const (
	eu          = 0 // the partition that goes quiet
	fiveMinutes = 5 * 60 * 1000
	quietFrom   = 2 * 3600 * 1000 // 02:00, event time
	quietTo     = 4 * 3600 * 1000 // 04:00
	replayTo    = 6 * 3600 * 1000 // the replay covers 00:00 to 06:00
)

// regions names the partitions: regions[p] is partition p's key.
var regions = []string{"eu", "us", "ap"}

// replayUntil is when each replay stops and flushes: after the last arrival.
const replayUntil = replayTo*time.Millisecond + 2*time.Minute

// quietEU returns the arrivals of the incident: 00:00 to 06:00 of event
// time, an event every 1–6 s per region, each arriving 0–10 s after its
// timestamp (so each partition's disorder is at most 10 s, within the
// 30 s out-of-orderness); nothing from EU stamped 02:00–04:00, and so,
// processing time tracking event time, nothing arrives from it then.
func quietEU(rnd *rand.Rand) []arrival {
	var parts [][]arrival
	for part, key := range regions {
		f := feedSpec{partition: part, key: key, from: 0, to: replayTo, maxGap: 6_000, maxLag: 10_000}
		if part == eu {
			f.silent = [][2]int64{{quietFrom, quietTo}}
		}
		parts = append(parts, genPartition(rnd, f))
	}
	return mergeArrivals(parts...)
}

// quietConfig is the incident's watermark config with the given timeout.
func quietConfig(idleTimeout time.Duration) WatermarkConfig {
	return WatermarkConfig{Partitions: len(regions), OutOfOrderness: 30_000, IdleTimeout: idleTimeout}
}

// closingBound is the worst-case closing delay of a window, in processing
// time after its end, when processing time tracks event time: a partition's
// last events may arrive up to OutOfOrderness after their timestamps, it
// becomes idle IdleTimeout after that, and the next emission hands the
// watermark on at most one emit interval later.
func closingBound(cfg WatermarkConfig) time.Duration {
	return cfg.IdleTimeout + time.Duration(cfg.OutOfOrderness)*time.Millisecond + emitInterval
}

// TestQuietPartitionFreezesWindowsWithoutIdleness certifies that without an idle timeout the quiet EU partition holds every window ending at 02:00 or later open until EU speaks again at 04:00, and that nothing is lost.
func TestQuietPartitionFreezesWindowsWithoutIdleness(t *testing.T) {
	defer suite.Recover(t)
	arrivals := quietEU(suite.Rand(t))
	cfg := quietConfig(0)
	o := replay(t, cfg, regions, fiveMinutes, arrivals, replayUntil)
	o.expectInOrderResults(t, "without idleness")

	// EU speaks again with its first event stamped 04:00 or later.
	var back time.Duration
	for _, a := range arrivals {
		if a.partition == eu && a.e.TS >= quietTo {
			back = a.at
			break
		}
	}
	var worst firing
	for _, f := range o.firings {
		if f.r.End < quietFrom {
			continue
		}
		if f.at < back {
			t.Errorf("%s", o.shown(t, fmt.Sprintf("%s, before EU spoke again at %s.\nWithout an idle timeout EU is never idle: its watermark, at most 01:59:30 (its last timestamp\n"+
				"before 02:00 minus the 30 s out-of-orderness), stays in the min, so no window ending at 02:00 or later\n"+
				"may close until EU delivers again. Closing it earlier means your combined watermark left a silent,\n"+
				"non-idle partition out of the min.",
				f.describe(), hms(back.Milliseconds())),
				quietFrom*time.Millisecond-2*time.Minute, f.at+time.Minute, f.r))
			return
		}
		if f.delay() > worst.delay() {
			worst = f
		}
	}
	if worst.delay() <= latencyBudget {
		t.Errorf("%s", o.shown(t, fmt.Sprintf("the slowest window, %s, is within the %v budget; want the silence to blow it: without\n"+
			"idleness, windows of the live regions wait for EU", worst.describe(), latencyBudget),
			quietFrom*time.Millisecond, quietTo*time.Millisecond, worst.r))
	}
	t.Logf("without idleness the slowest window: %s", worst.describe())
}

// TestWindowsCloseWithinLatencyBudgetWithIdleness certifies that with a 60 s idle timeout every window of the quiet-EU replay closes within idleness + out-of-orderness + one emit interval of its end (90.2 s, inside the 300 s budget), with every result correct.
func TestWindowsCloseWithinLatencyBudgetWithIdleness(t *testing.T) {
	defer suite.Recover(t)
	cfg := quietConfig(60 * time.Second)
	bound := closingBound(cfg)
	if bound > latencyBudget {
		t.Fatalf("test bug: the closing bound %v exceeds the budget %v", bound, latencyBudget)
	}
	o := replay(t, cfg, regions, fiveMinutes, quietEU(suite.Rand(t)), replayUntil)
	o.expectInOrderResults(t, "with idleness")

	// Windows ending by 05:30 are measured. Once the input ends every
	// partition goes idle and the watermark jumps to the highest partition
	// watermark, which is measured from the last arrival, not from a
	// window's end (TestAllIdleFlushClosesWindowsUpToTheHighestWatermark);
	// the last window ends past every watermark and closes only at the
	// final Flush, the end of a bounded input, not latency.
	var worst firing
	for _, f := range o.firings {
		if f.r.End > replayTo-30*60*1000 {
			continue
		}
		if f.flushed || f.delay() > bound {
			t.Errorf("%s", o.shown(t, fmt.Sprintf("%s; want every window closed within %v of its end:\n"+
				"IdleTimeout %v + OutOfOrderness %v + one %v emit interval. EU's last events before 02:00 arrive\n"+
				"up to its disorder late; %v of silence after that it is idle and leaves the min, and the next\n"+
				"AdvanceWatermark(Current()) closes the window. Is a silent partition still in your min? Is the silence\n"+
				"measured on the clock, from its last event?",
				f.describe(), bound, cfg.IdleTimeout, time.Duration(cfg.OutOfOrderness)*time.Millisecond, emitInterval,
				cfg.IdleTimeout),
				time.Duration(f.r.End)*time.Millisecond-2*time.Minute, f.at+time.Minute, f.r))
			return
		}
		if f.delay() > worst.delay() {
			worst = f
		}
	}
	t.Logf("with idleness the slowest window: %s (bound %v, budget %v)", worst.describe(), bound, latencyBudget)
}

// TestAllIdleFlushClosesWindowsUpToTheHighestWatermark certifies that when the input stops and every partition goes idle, each window ending at or below the highest partition watermark closes within IdleTimeout + one emit interval of the last arrival, whichever partition stopped last, and a window ending past it comes out only at Flush.
//
// The "behind" partition is a consumer that falls behind: its events
// arrive at 1.5 × their timestamps, so it stops last (at about 36 minutes,
// with events up to 24 minutes) and with the lower watermark. Holding the
// watermark when all are idle would keep "ahead"'s last windows open until
// the input is flushed (or for ever, in a job that never ends).
func TestAllIdleFlushClosesWindowsUpToTheHighestWatermark(t *testing.T) {
	defer suite.Recover(t)
	const ahead, behind = 0, 1
	rnd := suite.Rand(t)
	slow := genPartition(rnd, feedSpec{partition: behind, key: "behind", to: 24 * 60 * 1000, maxGap: 6_000, maxLag: 10_000})
	for i := range slow {
		slow[i].at += time.Duration(slow[i].e.TS/2) * time.Millisecond // ts + lag becomes 1.5·ts + lag
	}
	arrivals := mergeArrivals(
		genPartition(rnd, feedSpec{partition: ahead, key: "ahead", to: 30 * 60 * 1000, maxGap: 6_000, maxLag: 10_000}),
		slow,
	)
	cfg := WatermarkConfig{Partitions: 2, OutOfOrderness: 30_000, IdleTimeout: time.Minute}
	last := arrivals[len(arrivals)-1]
	o := replay(t, cfg, []string{"ahead", "behind"}, fiveMinutes, arrivals, last.at+3*time.Minute)
	o.expectInOrderResults(t, "the input stops")

	// What the test fed: the highest partition watermark, and when the
	// last partition to stop goes idle (strictly after IdleTimeout) and the
	// next emission hands the flushed watermark on.
	final := []int64{math.MinInt64, math.MinInt64} // each partition's last watermark
	for _, a := range arrivals {
		final[a.partition] = max(final[a.partition], a.e.TS-cfg.OutOfOrderness)
	}
	highest := slices.Max(final)
	by := last.at + cfg.IdleTimeout + emitInterval
	if last.partition != behind || final[behind] >= final[ahead] {
		t.Fatalf("test bug: the last arrival is on partition %d with watermarks %v; want the behind partition %d last, lower", last.partition, final, behind)
	}
	if !slices.ContainsFunc(o.firings, func(f firing) bool { return f.r.End > final[behind] && f.r.End <= highest }) {
		t.Fatalf("test bug: no window ends between behind's watermark %s and ahead's %s", hms(final[behind]), hms(highest))
	}
	for _, f := range o.firings {
		switch {
		case f.r.End <= highest && (f.flushed || f.at > by):
			t.Errorf("%s", o.shown(t, fmt.Sprintf("%s; want it closed by %s: its end is at or below the highest partition watermark %s\n"+
				"(ahead's). The last arrival, on the behind partition, is at %s; %v later every partition is idle and the\n"+
				"combined watermark flushes to the highest partition watermark, whatever the order they stopped in, and the\n"+
				"next emission (within %v) closes the window. Holding the watermark when all are idle leaves it at behind's.",
				f.describe(), hms(by.Milliseconds()), hms(highest), hms(last.at.Milliseconds()), cfg.IdleTimeout, emitInterval),
				last.at-5*time.Minute, last.at+3*time.Minute, f.r))
			return
		case f.r.End > highest && !f.flushed:
			t.Errorf("%s", o.shown(t, fmt.Sprintf("%s; want it only at the final Flush: its end is past every partition's watermark (the highest\n"+
				"is %s), so nothing has promised that it is complete, even with every partition idle",
				f.describe(), hms(highest)), last.at-5*time.Minute, last.at+3*time.Minute, f.r))
			return
		}
	}
}

// TestOpenWindowStateStaysBoundedWhileQuiet certifies that during EU's silence the windows held open stay at a handful with idleness, and pile up (one per region and 5 minutes) without it.
func TestOpenWindowStateStaysBoundedWhileQuiet(t *testing.T) {
	defer suite.Recover(t)
	arrivals := quietEU(suite.Rand(t))
	quiet := func(s sample) bool {
		return s.at >= quietFrom*time.Millisecond && s.at < quietTo*time.Millisecond
	}

	t.Run("with idleness", func(t *testing.T) {
		defer suite.Recover(t)
		cfg := quietConfig(60 * time.Second)
		o := replay(t, cfg, regions, fiveMinutes, arrivals, replayUntil)
		// Each region holds its current window and, for at most the closing
		// bound after its end, the one before.
		limit := len(regions) * (1 + int((closingBound(cfg).Milliseconds()+fiveMinutes-1)/fiveMinutes))
		for _, s := range o.samples {
			if quiet(s) && s.open > limit {
				t.Errorf("%s", o.shown(t, fmt.Sprintf("at %s, %d windows held events but had not fired; want at most %d (each region's current\n"+
					"window and the previous one, for up to %v after its end). With idleness EU drops out of the min\n"+
					"and the live regions' windows keep closing: state stays bounded however long EU is silent.",
					hms(s.at.Milliseconds()), s.open, limit, closingBound(cfg)),
					quietFrom*time.Millisecond, quietTo*time.Millisecond))
				return
			}
		}
	})

	t.Run("without idleness", func(t *testing.T) {
		defer suite.Recover(t)
		o := replay(t, quietConfig(0), regions, fiveMinutes, arrivals, replayUntil)
		// Just before 04:00, every 5-minute window of us and ap since 02:00
		// is still open: 2 regions × 24 windows, at least.
		const want = 2 * (quietTo - quietFrom) / fiveMinutes
		var last sample
		for _, s := range o.samples {
			if quiet(s) {
				last = s
			}
		}
		if last.open < want {
			t.Errorf("%s", o.shown(t, fmt.Sprintf("at %s, %d windows held events but had not fired; want at least %d: without idleness EU pins\n"+
				"the watermark below 02:00, so every 5-minute window of us and ap since then is still open. This\n"+
				"state grows with the silence, 2 hours here, a weekend in production.",
				hms(last.at.Milliseconds()), last.open, want),
				quietFrom*time.Millisecond, quietTo*time.Millisecond))
		}
	})
}
