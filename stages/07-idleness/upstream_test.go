//go:build lab || solution

package idleness

import (
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

var (
	ev  = windowtest.Ev
	res = windowtest.Res
	upd = windowtest.Upd
)

// TestUpstreamProcessorRejectsWatermarkDelay certifies that NewUpstreamProcessor returns an error for a non-zero WatermarkDelay and for any config NewProcessor rejects.
func TestUpstreamProcessorRejectsWatermarkDelay(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		cfg Config
		why string
	}{
		{Config{WindowSize: 10, WatermarkDelay: 5}, "an upstream processor generates no watermark, so it has no delay to apply: the disorder\n" +
			"bound lives in the sources (WatermarkConfig.OutOfOrderness). Accepting it would silently ignore it"},
		{Config{WindowSize: 0}, "WindowSize must be positive, as for NewProcessor"},
		{Config{WindowSize: 10, AllowedLateness: -1}, "AllowedLateness must not be negative, as for NewProcessor"},
	} {
		if p, err := NewUpstreamProcessor(c.cfg); err == nil || p != nil {
			t.Errorf("NewUpstreamProcessor(%+v) = %v, %v; want nil and an error: %s", c.cfg, p, err, c.why)
		}
	}
	p := newUpstream(t, Config{WindowSize: 10, AllowedLateness: 20})
	if wm := p.Watermark(); wm != math.MinInt64 {
		t.Errorf("Watermark() of a new upstream processor = %s, want math.MinInt64: nothing has come from upstream yet", kit.FormatWatermark(wm))
	}
}

// TestUpstreamProcessorMovesOnlyByAdvanceWatermark certifies that an upstream processor's events never raise its watermark, while AdvanceWatermark fires, judges lateness and re-fires as for any processor.
func TestUpstreamProcessorMovesOnlyByAdvanceWatermark(t *testing.T) {
	defer suite.Recover(t)

	t.Run("events never fire a window", func(t *testing.T) {
		defer suite.Recover(t)
		cfg := Config{WindowSize: 10}
		r := windowtest.NewRun(t, newUpstream(t, cfg), cfg.WindowSize, cfg.AllowedLateness)
		r.Expect("Process(e1, e2, e3)", r.ProcessAll(ev("e1", "a", 5, 1), ev("e2", "a", 25, 2), ev("e3", "b", 1_000, 4)), nil,
			"an upstream processor's watermark comes only from AdvanceWatermark: an event at 1000 says nothing about\n"+
				"the other partitions, which may still deliver events at 5. Raising the watermark here is what a\n"+
				"window operator with several inputs must never do")
		if wm := r.Watermark(); wm != math.MinInt64 {
			r.Errorf("Watermark() after three events and no AdvanceWatermark = %s, want math.MinInt64", kit.FormatWatermark(wm))
		}
		r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "the watermark from upstream reaches the end of [0,10)")
		r.Expect("Process(e4 a@7=8)", r.Process(ev("e4", "a", 7, 8)), nil, "[0,10) has fired and expired (AllowedLateness 0): e4 goes to Late")
		r.ExpectLate([]kit.Event{ev("e4", "a", 7, 8)}, "lateness is judged against the upstream watermark, 10, as for any processor")
		r.Expect("Process(e2 a@25=2) again", r.Process(ev("e2", "a", 25, 2)), nil, "a redelivered ID is a no-op, as for any processor")
		r.Expect("AdvanceWatermark(30)", r.Advance(30), []kit.Result{res("a", 20, 30, 1, 2)}, "[20,30) holds e2 once")
		if wm := r.Watermark(); wm != 30 {
			r.Errorf("Watermark() after AdvanceWatermark(30) = %s, want 30", kit.FormatWatermark(wm))
		}
		r.Expect("Flush()", r.Flush(), []kit.Result{res("b", 1_000, 1_010, 1, 4)}, "Flush fires what is left")
	})

	t.Run("with allowed lateness", func(t *testing.T) {
		defer suite.Recover(t)
		cfg := Config{WindowSize: 10, AllowedLateness: 20}
		r := windowtest.NewRun(t, newUpstream(t, cfg), cfg.WindowSize, cfg.AllowedLateness)
		r.ProcessAll(ev("e1", "a", 5, 1), ev("e2", "a", 15, 2))
		r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "the watermark reaches the end of [0,10)")
		r.Expect("Process(e3 a@3=4)", r.Process(ev("e3", "a", 3, 4)), []kit.Result{upd("a", 0, 10, 2, 5)},
			"[0,10) has fired but is not expired (10 < 10 + 20): the late-but-allowed event re-fires it at once,\n"+
				"as an update, returned by Process. Skipping the watermark step must not skip this")
		r.Expect("Process(e4 a@40=8)", r.Process(ev("e4", "a", 40, 8)), nil, "an event never raises an upstream processor's watermark, so nothing fires")
		r.Expect("AdvanceWatermark(30)", r.Advance(30), []kit.Result{res("a", 10, 20, 1, 2)}, "the watermark 30 passes the end of [10,20)")
		r.Expect("Process(e5 a@8=16)", r.Process(ev("e5", "a", 8, 16)), nil, "[0,10) expired at 10 + 20 = 30: e5 is late")
		r.ExpectLate([]kit.Event{ev("e5", "a", 8, 16)}, "an expired window's event goes to the side output")
	})
}

// TestRestoredUpstreamProcessorStillFollowsUpstream certifies that a processor restored from an upstream processor's snapshot still moves its watermark only by AdvanceWatermark.
//
// RestoreProcessor takes only the bytes, so the snapshot has to say that
// this processor follows upstream watermarks: it is part of its config.
func TestRestoredUpstreamProcessorStillFollowsUpstream(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 10}
	p := newUpstream(t, cfg)
	r := windowtest.NewRun(t, p, cfg.WindowSize, cfg.AllowedLateness)
	r.ProcessAll(ev("e1", "a", 5, 1), ev("e2", "a", 15, 2))
	r.Expect("AdvanceWatermark(10)", r.Advance(10), []kit.Result{res("a", 0, 10, 1, 1)}, "the watermark reaches the end of [0,10)")

	snap, err := p.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot() of an upstream processor returned the error %v; want its state", err)
	}
	restored, err := RestoreProcessor(snap)
	if err != nil || restored == nil {
		t.Fatalf("RestoreProcessor(a snapshot of an upstream processor) = %v, %v; want a processor and no error", restored, err)
	}
	r.Restored(restored)
	r.Expect("Process(e3 a@100=4) after the restore", r.Process(ev("e3", "a", 100, 4)), nil,
		"the restored processor must still follow upstream watermarks only. If the snapshot forgot that, the\n"+
			"restored processor raises its watermark to 100 with this event and fires [10,20) early: after a crash,\n"+
			"a job would start closing windows that the other partitions still feed. Keep the flag in the snapshot")
	if wm := r.Watermark(); wm != 10 {
		r.Errorf("Watermark() of the restored processor after an event at 100 = %s, want 10 (restored, then unchanged: events\n"+
			"never raise an upstream processor's watermark)", kit.FormatWatermark(wm))
	}
	r.Expect("AdvanceWatermark(20)", r.Advance(20), []kit.Result{res("a", 10, 20, 1, 2)}, "the upstream watermark closes [10,20)")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 100, 110, 1, 4)}, "Flush fires what is left")
}
