//go:build lab || solution

package idleness

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestCombinedWatermarkMatchesDefinition certifies that over seeded random histories of events, silences, outages and clock steps, Current and Idle agree with their definition at every step, at the bottom of the int64 range too.
//
// A third of the histories start at math.MinInt64, where a partition's
// first watermarks saturate.
func TestCombinedWatermarkMatchesDefinition(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	bases := []int64{0, 0, math.MinInt64} // where event time starts
	outOfOrderness := []int64{0, 200, 5_000}
	timeouts := []time.Duration{0, time.Second, 10 * time.Second}
	chattiness := []float64{0, 0.03, 0.3, 0.8} // chance that a partition delivers an event in a step

	for run := range 100 {
		cfg := WatermarkConfig{
			Partitions:     1 + rnd.IntN(6),
			OutOfOrderness: outOfOrderness[rnd.IntN(len(outOfOrderness))],
			IdleTimeout:    timeouts[rnd.IntN(len(timeouts))],
		}
		r := newWMRun(t, cfg)
		m := definition{cfg: cfg, combined: math.MinInt64}
		for range cfg.Partitions {
			m.maxTS = append(m.maxTS, math.MinInt64)
			m.spoke = append(m.spoke, false)
			m.lastAt = append(m.lastAt, t0)
		}
		// Each partition has its own event-time position, an offset from
		// base (partitions drift apart, so one may rejoin far behind), and
		// its own chattiness, which changes now and then: an outage, a
		// burst, a recovery.
		base := bases[rnd.IntN(len(bases))]
		pos := make([]int64, cfg.Partitions)
		chat := make([]float64, cfg.Partitions)
		for i := range pos {
			pos[i] = rnd.Int64N(20_000)
			chat[i] = chattiness[rnd.IntN(len(chattiness))]
		}
		for step := range 60 {
			switch rnd.IntN(5) {
			case 0: // no time passes
			case 1:
				r.advance(time.Millisecond)
			case 2:
				r.advance(time.Duration(1+rnd.Int64N(2_000)) * time.Millisecond)
			default:
				r.advance(time.Duration(1+rnd.Int64N(25_000)) * time.Millisecond)
			}
			for part := range cfg.Partitions {
				if rnd.IntN(20) == 0 {
					chat[part] = chattiness[rnd.IntN(len(chattiness))]
				}
				if rnd.Float64() >= chat[part] {
					continue
				}
				pos[part] += rnd.Int64N(3_000)
				// Disorder within the bound, never below base.
				ts := base + max(0, pos[part]-rnd.Int64N(cfg.OutOfOrderness+1))
				r.observe(part, ts)
				m.observe(part, ts, r.clock.Now())
			}
			for part := range cfg.Partitions {
				want := m.idle(part, r.clock.Now())
				if got := r.w.Idle(part); got != want {
					msg := fmt.Sprintf("run %d, step %d: Idle(%d) = %v, want %v: IdleTimeout is %v and partition %d has been silent for %v\n"+
						"(since its last event, or since NewWatermarks if it has none). Idle means IdleTimeout > 0 and\n"+
						"silence > IdleTimeout, in processing time.",
						run, step, part, got, want, cfg.IdleTimeout, part, r.clock.Now().Sub(m.lastAt[part]))
					t.Fatalf("%s\n\n%s%s", msg, r.history(), r.link(msg))
				}
			}
			want, why := m.current(r.clock.Now())
			if got := r.current(); got != want {
				msg := fmt.Sprintf("run %d, step %d: Current() = %s, want %s:\n%s", run, step, kit.FormatWatermark(got), kit.FormatWatermark(want), why)
				t.Fatalf("%s\n\n%s%s", msg, r.history(), r.link(msg, want))
			}
		}
	}
}

// definition is the combined watermark exactly as the stage defines it,
// written for this test: what Current and Idle must return.
type definition struct {
	cfg      WatermarkConfig
	maxTS    []int64
	spoke    []bool
	lastAt   []time.Time
	combined int64 // the last value of Current
}

func (d *definition) observe(part int, ts int64, now time.Time) {
	d.maxTS[part] = max(d.maxTS[part], ts)
	d.spoke[part] = true
	d.lastAt[part] = now
}

func (d *definition) idle(part int, now time.Time) bool {
	return d.cfg.IdleTimeout > 0 && now.Sub(d.lastAt[part]) > d.cfg.IdleTimeout
}

// current returns the next Current() and, in words, why.
func (d *definition) current(now time.Time) (int64, string) {
	var lines []string
	low, active := int64(math.MaxInt64), 0
	for part := range d.maxTS {
		switch {
		case d.idle(part, now):
			lines = append(lines, fmt.Sprintf("  partition %d: idle (silent %v > %v), left out", part, now.Sub(d.lastAt[part]), d.cfg.IdleTimeout))
		case !d.spoke[part]:
			active++
			low = math.MinInt64
			lines = append(lines, fmt.Sprintf("  partition %d: active, never spoke: no watermark, pins the min at math.MinInt64", part))
		default:
			active++
			wm := watermarkOf(d.maxTS[part], d.cfg.OutOfOrderness)
			low = min(low, wm)
			wmText := fmt.Sprint(wm)
			if wm == math.MinInt64 {
				wmText = "math.MinInt64 (the floor: the subtraction saturates there, never wraps)"
			}
			lines = append(lines, fmt.Sprintf("  partition %d: active, watermark %d − %d = %s", part, d.maxTS[part], d.cfg.OutOfOrderness, wmText))
		}
	}
	prev := d.combined
	if active == 0 {
		high := int64(math.MinInt64) // no partition has spoken: no watermark to flush to
		for part, spoke := range d.spoke {
			if spoke {
				high = max(high, watermarkOf(d.maxTS[part], d.cfg.OutOfOrderness))
			}
		}
		d.combined = max(prev, high)
		lines = append(lines, fmt.Sprintf("every partition is idle: flush to the highest partition watermark, whatever the order they went\n"+
			"idle in: max(previous Current() %s, highest watermark %s (math.MinInt64 if none spoke)) = %s",
			kit.FormatWatermark(prev), kit.FormatWatermark(high), kit.FormatWatermark(d.combined)))
		return d.combined, strings.Join(lines, "\n")
	}
	d.combined = max(prev, low)
	lines = append(lines, fmt.Sprintf("max(previous Current() %s, min over the active ones %s) = %s", kit.FormatWatermark(prev), kit.FormatWatermark(low), kit.FormatWatermark(d.combined)))
	return d.combined, strings.Join(lines, "\n")
}
