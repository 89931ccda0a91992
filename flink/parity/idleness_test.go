//go:build flink

package parity

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestIdlenessMatchesFlink checks stage 07's Watermarks against the
// event-time logic of Flink's FLIP-27 source (ProgressiveTimestampsAndWatermarks:
// per split a BoundedOutOfOrdernessWatermarks in WatermarksWithIdleness,
// combined by WatermarkOutputMultiplexer and CombinedWatermarkStatus), on a
// manual processing-time clock: after every event and every clock step,
// the combined watermark and whether each partition is idle. The random
// histories have partitions that never speak, go quiet, go idle (all of
// them at once too: the flush to the highest watermark) and come back,
// behind the watermark too; idleness off, timeouts from 1 ns to
// math.MaxInt64 ns, clock steps of exactly the timeout and one more, and
// timestamps near both ends of the int64 range.
//
// Flink checks idleness only on its periodic emit; the runner emits at
// every instant the course is asked, and a second time at each event's, so
// that Flink's countdown starts at the event as the course's does
// (docs/PARITY.md, the conventions).
func TestIdlenessMatchesFlink(t *testing.T) {
	var seen idlenessCoverage
	check(t, "stage 07, idleness", func(r *seeded) differential[flinkrun.IdlenessOp] {
		c := idlenessScenario(r)
		c.seen = &seen
		return c
	})
	t.Logf("covered: %v", seen)
	if *scenarios >= 100 {
		seen.atLeast(t, *scenarios/20)
	}
}

// An idlenessCase is one random history of a stage 07 Watermarks: its
// config and the calls, said in flinkrun's terms (the course's Observe and
// ManualClock.Advance).
type idlenessCase struct {
	cfg solutions.WatermarkConfig
	ops []flinkrun.IdlenessOp
	// seen, when set, counts what the histories Flink agreed on covered.
	seen *idlenessCoverage
}

func (c idlenessCase) describe() string             { return fmt.Sprintf("WatermarkConfig%+v", c.cfg) }
func (c idlenessCase) calls() []flinkrun.IdlenessOp { return c.ops }

func (c idlenessCase) with(ops []flinkrun.IdlenessOp) differential[flinkrun.IdlenessOp] {
	c.ops = ops
	return c
}

func (c idlenessCase) compare(t *testing.T) (int, func() string, error) {
	course := c.replay()
	fl, err := flink.RunIdleness(c.spec(), c.ops)
	if err != nil {
		return 0, nil, err
	}
	at := idlenessDiffers(course, fl)
	if at < 0 && c.seen != nil {
		c.seen.add(c, course)
	}
	return at, func() string { return idlenessSideBySide(c.ops, course, fl) }, nil
}

// spec is c's config in Flink's terms.
func (c idlenessCase) spec() flinkrun.IdlenessSpec {
	return flinkrun.IdlenessSpec{Partitions: c.cfg.Partitions, OutOfOrderness: c.cfg.OutOfOrderness, IdleTimeout: c.cfg.IdleTimeout}
}

// A watermarksStep is what the reference's Watermarks say after one call.
type watermarksStep struct {
	wm   int64  // Current()
	idle []bool // Idle(i) of every partition
}

// replay makes the calls on a new reference Watermarks, with a
// kit.ManualClock, asking it after every call.
func (c idlenessCase) replay() []watermarksStep {
	clock := kit.NewManualClock(time.Unix(0, 0))
	w := must(solutions.NewWatermarks(c.cfg, clock))
	steps := make([]watermarksStep, len(c.ops))
	for i, o := range c.ops {
		switch o.Op {
		case "observe":
			w.Observe(o.Partition, o.TS)
		case "advance":
			clock.Advance(o.D)
		}
		steps[i].wm = w.Current()
		steps[i].idle = make([]bool, c.cfg.Partitions)
		for p := range steps[i].idle {
			steps[i].idle[p] = w.Idle(p)
		}
	}
	return steps
}

// idlenessDiffers returns the first call after which the course and Flink
// differ, or −1: the combined watermark after flinkSourceWM, and each
// partition's idleness.
func idlenessDiffers(course []watermarksStep, fl []flinkrun.IdlenessStep) int {
	for i := range course {
		if flinkSourceWM(course[i].wm) != fl[i].Watermark || !slices.Equal(course[i].idle, fl[i].Idle) {
			return i
		}
	}
	return -1
}

// idlenessSideBySide renders both sides call by call.
func idlenessSideBySide(ops []flinkrun.IdlenessOp, course []watermarksStep, fl []flinkrun.IdlenessStep) string {
	var b strings.Builder
	for i, o := range ops {
		mark := " "
		if idlenessDiffers(course[i:i+1], fl[i:i+1]) >= 0 {
			mark = "≠"
		}
		what := fmt.Sprintf("Observe(%d, %d)", o.Partition, o.TS)
		if o.Op == "advance" {
			what = fmt.Sprintf("clock.Advance(%v)", o.D)
		}
		fmt.Fprintf(&b, "%s %2d  %s\n", mark, i+1, what)
		fmt.Fprintf(&b, "       course  watermark %-28s idle %s\n", kit.FormatWatermark(course[i].wm), fmtIdle(course[i].idle))
		shown := kit.FormatWatermark(fl[i].Watermark)
		if fl[i].Watermark != math.MinInt64 {
			shown = fmt.Sprintf("%d (course's %d)", fl[i].Watermark, fl[i].Watermark+1)
		}
		status := "ACTIVE"
		if fl[i].SourceIdle {
			status = "IDLE"
		}
		fmt.Fprintf(&b, "       Flink   watermark %-28s idle %s   (split watermarks %v, source %s)\n",
			shown, fmtIdle(fl[i].Idle), fl[i].PartitionWatermarks, status)
	}
	return b.String()
}

// fmtIdle lists the idle partitions.
func fmtIdle(idle []bool) string {
	var ps []string
	for p, ok := range idle {
		if ok {
			ps = append(ps, fmt.Sprint(p))
		}
	}
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ", ")
}

// idlenessScenario makes a random history: one to five partitions, some of
// which never speak; events with disorder around each partition's own
// event time, now and then far behind it (a partition that comes back late);
// and clock steps around the idle timeout (exactly it, one nanosecond more,
// less, none, many times it).
func idlenessScenario(r *seeded) idlenessCase {
	n := 1 + r.IntN(5)
	ooo := []int64{0, r.Int64N(10), r.Int64N(1_000), 60_000}[r.IntN(4)]
	var timeout time.Duration
	switch r.IntN(10) {
	case 0: // idleness off
	case 1:
		timeout = math.MaxInt64 // never idle
	case 2:
		timeout = 1
	case 3:
		timeout = time.Duration(math.MaxInt64/4 + r.Int64N(math.MaxInt64/8)) // a century or so
	default:
		timeout = time.Duration(1 + r.Int64N(int64(time.Second)))
	}
	cfg := solutions.WatermarkConfig{Partitions: n, OutOfOrderness: ooo, IdleTimeout: timeout}

	from, spread := r.Int64N(20_000)-10_000, 3*ooo+100
	switch r.IntN(8) {
	case 0:
		from, spread = math.MinInt64, ooo+2 // where ts − OutOfOrderness saturates
	case 1:
		from, spread = math.MaxInt64-ooo-1, ooo+2
	}
	eventTime := make([]int64, n)
	for p := range eventTime {
		eventTime[p] = addSaturating(from, r.Int64N(spread))
	}
	speakers := r.Perm(n)[:1+r.IntN(n)] // the others never speak
	// The clock never runs past half the int64 range: Flink's clock starts
	// above zero (IdlenessRun.START_NANOS) and must not wrap.
	budget := time.Duration(math.MaxInt64 / 2)

	var ops []flinkrun.IdlenessOp
	for range 1 + r.IntN(60) {
		if r.IntN(5) < 2 {
			d := clockStep(r, timeout)
			d = min(d, budget)
			budget -= d
			ops = append(ops, flinkrun.AdvanceOp(d))
			continue
		}
		p := speakers[r.IntN(len(speakers))]
		if r.IntN(3) == 0 {
			p = speakers[0] // one partition speaks more often than the others
		}
		var ts int64
		switch r.IntN(10) {
		case 0: // far behind: late, or a rejoin behind the watermark
			ts = addSaturating(eventTime[p], -r.Int64N(10*ooo+1_000))
		default: // within the disorder, mostly ahead
			ts = addSaturating(eventTime[p], r.Int64N(2*ooo+100)-ooo)
		}
		eventTime[p] = max(eventTime[p], ts)
		ops = append(ops, flinkrun.ObserveOp(p, ts))
	}
	return idlenessCase{cfg: cfg, ops: ops}
}

// clockStep returns how far the clock moves: the timeout exactly, one
// nanosecond more or less, nothing, a fraction, or a few times it.
func clockStep(r *seeded, timeout time.Duration) time.Duration {
	if timeout == 0 || timeout == math.MaxInt64 {
		return time.Duration(r.Int64N(int64(time.Hour)))
	}
	switch r.IntN(7) {
	case 0:
		return timeout
	case 1:
		return timeout + 1
	case 2:
		return timeout - 1
	case 3:
		return 0
	case 4:
		return time.Duration(r.Int64N(int64(timeout)) + 1)
	default:
		return time.Duration(r.Int64N(int64(min(timeout, math.MaxInt64/4)))) * time.Duration(1+r.IntN(3))
	}
}

// addSaturating returns a + b, held at the ends of the int64 range.
func addSaturating(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// idlenessCoverage counts the scenarios (that agreed) in which something
// worth comparing happened, so that a generator that stops making it
// fails the test rather than passing it emptily.
type idlenessCoverage struct {
	allIdle       int // every partition idle at some step: the flush to the highest
	rejoin        int // an idle partition spoke again
	rejoinBehind  int // … below the combined watermark, which then held
	neverSpoke    int // a partition that never spoke pinned the watermark at MinInt64 with idleness off
	saturatedLow  int // a watermark held at MinInt64 by saturation
	rejoinAllIdle int // a partition spoke again after all were idle
}

// String says what the scenarios covered, for the test's log.
func (c idlenessCoverage) String() string {
	return fmt.Sprintf("%d scenarios with all partitions idle, %d with a partition back from idleness (%d behind the watermark, %d after all were idle), "+
		"%d where a silent partition pinned the watermark with idleness off, %d with an event within OutOfOrderness of math.MinInt64",
		c.allIdle, c.rejoin, c.rejoinBehind, c.rejoinAllIdle, c.neverSpoke, c.saturatedLow)
}

// add counts what scenario c, whose reference steps are course, covered.
func (cov *idlenessCoverage) add(c idlenessCase, course []watermarksStep) {
	var allIdle, rejoin, behind, afterAll, pinned, low bool
	prevIdle := make([]bool, c.cfg.Partitions)
	prevWM := int64(math.MinInt64)
	everAll := false
	for i, o := range c.ops {
		s := course[i]
		all := !slices.Contains(s.idle, false)
		allIdle = allIdle || all
		if o.Op == "observe" {
			if prevIdle[o.Partition] {
				rejoin = true
				behind = behind || minusSaturating(o.TS, c.cfg.OutOfOrderness) < prevWM
				afterAll = afterAll || everAll
			}
			low = low || o.TS != math.MinInt64 && minusSaturating(o.TS, c.cfg.OutOfOrderness) == math.MinInt64
		}
		everAll = everAll || all
		prevIdle, prevWM = s.idle, s.wm
	}
	if c.cfg.IdleTimeout == 0 {
		spoke := make([]bool, c.cfg.Partitions)
		raised := false // an event raised its partition's watermark above MinInt64
		for _, o := range c.ops {
			if o.Op == "observe" {
				spoke[o.Partition] = true
				raised = raised || minusSaturating(o.TS, c.cfg.OutOfOrderness) > math.MinInt64
			}
		}
		pinned = raised && slices.Contains(spoke, false)
	}
	for _, f := range []struct {
		hit bool
		n   *int
	}{{allIdle, &cov.allIdle}, {rejoin, &cov.rejoin}, {behind, &cov.rejoinBehind}, {afterAll, &cov.rejoinAllIdle}, {pinned, &cov.neverSpoke}, {low, &cov.saturatedLow}} {
		if f.hit {
			*f.n++
		}
	}
}

// atLeast fails t if some kind of scenario was made fewer than n times.
func (cov idlenessCoverage) atLeast(t *testing.T, n int) {
	t.Helper()
	if min(cov.allIdle, cov.rejoin, cov.rejoinBehind, cov.rejoinAllIdle) < n || min(cov.neverSpoke, cov.saturatedLow) < n/4 {
		t.Errorf("test bug: the generator covers too little (want at least %d of the first kinds, %d of the last two): %v", n, n/4, cov)
	}
}

// minusSaturating returns a − b for b ≥ 0, held at math.MinInt64.
func minusSaturating(a, b int64) int64 { return addSaturating(a, -b) }
