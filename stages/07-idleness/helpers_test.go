//go:build lab || solution

package idleness

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/kit"
)

// t0 is processing time zero of every test: the moment NewWatermarks is
// called. In the replays, event time 0 (00:00) is this moment too.
var t0 = time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)

// newWatermarks returns NewWatermarks(cfg, clock); it stops the test if
// that rejects this valid config.
func newWatermarks(t testing.TB, cfg WatermarkConfig, clock kit.Clock) *Watermarks {
	t.Helper()
	w, err := NewWatermarks(cfg, clock)
	if err != nil || w == nil {
		t.Fatalf("NewWatermarks(%+v, a clock) = %v, %v; want Watermarks and no error: the config is valid", cfg, w, err)
	}
	return w
}

// newUpstream returns NewUpstreamProcessor(cfg); it stops the test if that
// rejects this valid config.
func newUpstream(t testing.TB, cfg Config) *Processor {
	t.Helper()
	p, err := NewUpstreamProcessor(cfg)
	if err != nil || p == nil {
		t.Fatalf("NewUpstreamProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, p, err)
	}
	return p
}

// watermarkOf is the watermark of a partition whose largest timestamp is
// maxTS: maxTS − outOfOrderness, or math.MinInt64 where that subtraction
// would wrap round (a timestamp within outOfOrderness of math.MinInt64).
func watermarkOf(maxTS, outOfOrderness int64) int64 {
	if maxTS < math.MinInt64+outOfOrderness {
		return math.MinInt64
	}
	return maxTS - outOfOrderness
}

// since renders processing time as the offset from t0, e.g. "t0+1m30s".
func since(now time.Time) string {
	return "t0+" + now.Sub(t0).String()
}

// wmRun drives one Watermarks on a ManualClock and logs every call, so that
// a failing test can show the history and what each partition delivered.
type wmRun struct {
	t     *testing.T
	cfg   WatermarkConfig
	clock *kit.ManualClock
	w     *Watermarks
	log   []string

	// What the test fed each partition: the largest timestamp, whether it
	// spoke, and the processing time of its last event. Computed here, from
	// the inputs, not read from the code under test.
	maxTS  []int64
	spoke  []bool
	lastAt []time.Time

	// For the picture (picture.Enabled): every call, with the last
	// Current() the test read (the code is asked nothing more).
	steps       []picture.Step
	lastCurrent int64
}

// newWMRun returns a run of new Watermarks for cfg with a clock at t0.
func newWMRun(t *testing.T, cfg WatermarkConfig) *wmRun {
	t.Helper()
	clock := kit.NewManualClock(t0)
	r := &wmRun{t: t, cfg: cfg, clock: clock, w: newWatermarks(t, cfg, clock), lastCurrent: math.MinInt64}
	r.log = append(r.log, fmt.Sprintf("t0          NewWatermarks(%+v)", cfg))
	for range cfg.Partitions {
		r.maxTS = append(r.maxTS, math.MinInt64)
		r.spoke = append(r.spoke, false)
		r.lastAt = append(r.lastAt, t0)
	}
	return r
}

// advance moves the clock forward by d.
func (r *wmRun) advance(d time.Duration) {
	r.clock.Advance(d)
	r.log = append(r.log, fmt.Sprintf("%-11s clock +%v", since(r.clock.Now()), d))
	r.record(picture.Step{Op: picture.OpCall, Label: fmt.Sprintf("clock +%v (%s)", d, since(r.clock.Now()))})
}

// record notes a call for the picture, with each partition's watermark
// and idleness as the test's inputs and the card's rule make them.
func (r *wmRun) record(s picture.Step) {
	if !picture.Enabled() {
		return
	}
	if s.Op != picture.OpEvent {
		s.Partition = -1
	}
	s.Watermark = r.lastCurrent
	now := r.clock.Now()
	for i := range r.maxTS {
		m := picture.PartitionMark{Watermark: math.MinInt64}
		if r.spoke[i] {
			m.Watermark = watermarkOf(r.maxTS[i], r.cfg.OutOfOrderness)
		}
		m.Idle = r.cfg.IdleTimeout > 0 && now.Sub(r.lastAt[i]) > r.cfg.IdleTimeout
		s.Partitions = append(s.Partitions, m)
	}
	r.steps = append(r.steps, s)
}

// link draws the run as a page when pictures are on (picture.Save) and
// returns the line that links it; want, if given, is the Current() the
// test wanted.
func (r *wmRun) link(note string, want ...int64) string {
	if !picture.Enabled() {
		return ""
	}
	p := picture.Run{Title: r.t.Name(), Note: note, Steps: r.steps}
	if len(want) == 1 {
		p.WantWatermark, p.HasWantWatermark = want[0], true
	}
	return "\n" + picture.Save(r.t, p)
}

// observe calls Observe(partition, ts).
func (r *wmRun) observe(partition int, ts int64) {
	r.log = append(r.log, fmt.Sprintf("%-11s Observe(%d, %d)", since(r.clock.Now()), partition, ts))
	r.w.Observe(partition, ts)
	r.maxTS[partition] = max(r.maxTS[partition], ts)
	r.spoke[partition] = true
	r.lastAt[partition] = r.clock.Now()
	r.record(picture.Step{Op: picture.OpEvent, Partition: partition, Label: fmt.Sprintf("Observe(%d, %s)", partition, picture.TimeText(ts)),
		Event: kit.Event{ID: fmt.Sprintf("p%d.%d", partition, len(r.steps)+1), Key: fmt.Sprintf("p%d", partition), TS: ts}})
}

// current calls Current() and returns what it returned.
func (r *wmRun) current() int64 {
	wm := r.w.Current()
	r.log = append(r.log, fmt.Sprintf("%-11s Current() = %s", since(r.clock.Now()), kit.FormatWatermark(wm)))
	r.lastCurrent = wm
	r.record(picture.Step{Op: picture.OpCall, Label: "Current() = " + kit.FormatWatermark(wm)})
	return wm
}

// expectCurrent fails the test unless Current() returns want.
func (r *wmRun) expectCurrent(want int64, why string) {
	r.t.Helper()
	if got := r.current(); got != want {
		msg := fmt.Sprintf("Current() at %s = %s, want %s: %s", since(r.clock.Now()), kit.FormatWatermark(got), kit.FormatWatermark(want), why)
		r.t.Errorf("%s\n\n%s%s", msg, r.history(), r.link(msg, want))
	}
}

// expectIdle fails the test unless Idle(partition) returns want.
func (r *wmRun) expectIdle(partition int, want bool, why string) {
	r.t.Helper()
	got := r.w.Idle(partition)
	r.log = append(r.log, fmt.Sprintf("%-11s Idle(%d) = %v", since(r.clock.Now()), partition, got))
	r.record(picture.Step{Op: picture.OpCall, Label: fmt.Sprintf("Idle(%d) = %v", partition, got)})
	if got != want {
		msg := fmt.Sprintf("Idle(%d) at %s = %v, want %v: %s", partition, since(r.clock.Now()), got, want, why)
		r.t.Errorf("%s\n\n%s%s", msg, r.history(), r.link(msg))
	}
}

// history renders what each partition was fed and the calls so far (the
// last 40), oldest first.
func (r *wmRun) history() string {
	var b strings.Builder
	now := r.clock.Now()
	fmt.Fprintf(&b, "OutOfOrderness %d ms, IdleTimeout %v; now %s\n", r.cfg.OutOfOrderness, r.cfg.IdleTimeout, since(now))
	fmt.Fprintf(&b, "  %-9s  %-22s  %-22s  %s\n", "partition", "max timestamp fed", "its watermark", "last activity")
	for i := range r.maxTS {
		maxTS, wm := "none (never spoke)", "none"
		if r.spoke[i] {
			maxTS, wm = fmt.Sprint(r.maxTS[i]), fmt.Sprint(watermarkOf(r.maxTS[i], r.cfg.OutOfOrderness))
		}
		last := fmt.Sprintf("%s (NewWatermarks), silent %v", since(r.lastAt[i]), now.Sub(r.lastAt[i]))
		if r.spoke[i] {
			last = fmt.Sprintf("%s, silent %v", since(r.lastAt[i]), now.Sub(r.lastAt[i]))
		}
		fmt.Fprintf(&b, "  %-9d  %-22s  %-22s  %s\n", i, maxTS, wm, last)
	}
	b.WriteString("calls:\n")
	log := r.log
	if len(log) > 40 {
		fmt.Fprintf(&b, "  … %d earlier calls\n", len(log)-40)
		log = log[len(log)-40:]
	}
	for _, l := range log {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}
