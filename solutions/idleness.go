package solutions

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/flk-byo/course/kit"
)

// WatermarkConfig configures Watermarks: how many source partitions feed one
// watermark, how disordered each is, and when a silent one stops counting.
//
// In a replay where processing time tracks event time, a window closes at
// most IdleTimeout + OutOfOrderness (+ one emit interval, the period at which
// Current is read and handed on) after its end while some partition is
// active, even if others are silent: a partition's last events may arrive up
// to OutOfOrderness late, and it is declared idle IdleTimeout after that.
// Once every partition is idle the watermark jumps to the highest partition
// watermark; a window ending after that waits for data (or Flush).
type WatermarkConfig struct {
	// Partitions is the number of source partitions, numbered 0 … n−1. It
	// must be at least 1.
	Partitions int
	// OutOfOrderness is the bounded disorder of each partition, in
	// milliseconds of event time: a partition's watermark trails the
	// largest timestamp it has delivered by this much. It must not be
	// negative.
	OutOfOrderness int64
	// IdleTimeout is the processing time without events after which a
	// partition is idle and leaves the combined watermark. Zero disables
	// idleness: a silent partition then holds the watermark back for ever.
	// It must not be negative.
	IdleTimeout time.Duration
}

// Watermarks combines the bounded-out-of-orderness watermarks of several
// source partitions into one, as Flink's WatermarkOutputMultiplexer and
// CombinedWatermarkStatus do: the combined watermark is the minimum over the
// partitions that are not idle or, when all are idle, the maximum over all
// of them, and it never goes back. Idleness is measured in processing time,
// read from the Clock given to NewWatermarks. It is not safe for concurrent
// use.
type Watermarks struct {
	cfg   WatermarkConfig
	clock kit.Clock

	parts []partition

	// combined is the last value Current returned, math.MinInt64 at first.
	// Current never returns less: that is what keeps a rejoining partition
	// from pulling the watermark back.
	combined int64
}

// partition is what Watermarks knows about one source partition.
type partition struct {
	// watermark is the largest timestamp the partition has delivered minus
	// OutOfOrderness, or math.MinInt64 before its first event. As in
	// Flink, "no watermark yet" is the lowest watermark there is: it pins
	// a min and never wins a max, so neither needs a special case.
	watermark int64
	// lastActive is the processing time of its last event, or of
	// NewWatermarks if it has none yet: a partition silent from the start
	// becomes idle after the timeout too.
	lastActive time.Time
}

// NewWatermarks returns the Watermarks of cfg.Partitions partitions, none of
// which has spoken yet, reading processing time from clock. It returns an
// error if Partitions < 1, OutOfOrderness < 0, IdleTimeout < 0 or clock is
// nil.
func NewWatermarks(cfg WatermarkConfig, clock kit.Clock) (*Watermarks, error) {
	switch {
	case cfg.Partitions < 1:
		return nil, fmt.Errorf("idleness: Partitions must be at least 1, got %d", cfg.Partitions)
	case cfg.OutOfOrderness < 0:
		return nil, fmt.Errorf("idleness: OutOfOrderness must not be negative, got %d", cfg.OutOfOrderness)
	case cfg.IdleTimeout < 0:
		return nil, fmt.Errorf("idleness: IdleTimeout must not be negative, got %v", cfg.IdleTimeout)
	case clock == nil:
		return nil, errors.New("idleness: a clock is required (processing time measures idleness)")
	}
	parts := make([]partition, cfg.Partitions)
	now := clock.Now()
	for i := range parts {
		parts[i] = partition{watermark: math.MinInt64, lastActive: now}
	}
	return &Watermarks{cfg: cfg, clock: clock, parts: parts, combined: math.MinInt64}, nil
}

// Observe records an event with timestamp ts from partition, at the clock's
// current time: it raises the partition's watermark to ts − OutOfOrderness
// (math.MinInt64 if that would underflow) if that is higher, and makes the
// partition active again if it was idle. A partition outside
// 0 … Partitions−1 panics: an event from a partition that does not exist is
// a wiring bug, not data.
func (w *Watermarks) Observe(partition int, ts int64) {
	p := w.part(partition, "Observe")
	// Every event is activity, even one too old to raise the watermark: the
	// partition is alive. This is what makes an idle partition rejoin.
	p.lastActive = w.clock.Now()
	// Saturate: a plain ts − OutOfOrderness near math.MinInt64 would wrap
	// to the top and close every window.
	p.watermark = max(p.watermark, minusSaturating(ts, w.cfg.OutOfOrderness))
}

// Current returns the combined watermark at the clock's current time, which
// never decreases: the previous value, raised to the minimum of the
// watermarks of the partitions that are not idle (a non-idle partition that
// has not spoken holds that minimum at math.MinInt64) or, if every partition
// is idle, to the highest watermark of any partition.
func (w *Watermarks) Current() int64 {
	now := w.clock.Now()
	lowActive, high, anyActive := int64(math.MaxInt64), int64(math.MinInt64), false
	for i := range w.parts {
		p := &w.parts[i]
		high = max(high, p.watermark)
		if !w.idle(p, now) {
			lowActive, anyActive = min(lowActive, p.watermark), true
		}
	}
	// All idle: flush to the highest watermark, as Flink does (the valve
	// since FLINK-7728, CombinedWatermarkStatus since FLINK-38454). Every
	// partition has stopped, each at its own watermark: holding the min
	// would wait for partitions that are not coming, and make the answer
	// depend on the order in which they went quiet. Not the min of nothing,
	// math.MaxInt64, which would fire every window and make everything
	// after it late.
	next := high
	if anyActive {
		next = lowActive
	}
	// A rejoined partition behind the combined watermark lowers next; max
	// keeps the output where it was until the partition catches up, as in
	// CombinedWatermarkStatus. (Flink's StatusWatermarkValve instead leaves
	// such a channel out of the min until it has caught up, and lets the
	// others move on without it.)
	w.combined = max(w.combined, next)
	return w.combined
}

// Idle reports whether partition is idle at the clock's current time: the
// idle timeout is on and more than IdleTimeout of processing time has passed
// since its last event (or since NewWatermarks, if it has none). A
// partition outside 0 … Partitions−1 panics.
func (w *Watermarks) Idle(partition int) bool {
	return w.idle(w.part(partition, "Idle"), w.clock.Now())
}

// idle is Idle for a partition already looked up, at now. The comparison
// is strict, as in Flink's IdlenessTimer: after exactly IdleTimeout the
// partition still counts.
func (w *Watermarks) idle(p *partition, now time.Time) bool {
	return w.cfg.IdleTimeout > 0 && now.Sub(p.lastActive) > w.cfg.IdleTimeout
}

// part returns partition i, or panics naming the method and the valid range.
func (w *Watermarks) part(i int, method string) *partition {
	if i < 0 || i >= len(w.parts) {
		panic(fmt.Sprintf("idleness: Watermarks.%s: partition %d out of range [0, %d)", method, i, len(w.parts)))
	}
	return &w.parts[i]
}

// upstreamDelay is the WatermarkDelay a snapshot (checkpoint.go) holds for
// a processor made by NewUpstreamProcessor: its delay is 0, and only
// AdvanceWatermark moves its watermark. The −1 kept the layout, and so
// version 1: every snapshot written before stage 07 reads as before, and a
// build older than stage 07 refuses an upstream processor's snapshot (a
// negative delay is an invalid config) instead of restoring one that would
// raise its own watermark.
const upstreamDelay = -1

// NewUpstreamProcessor returns a Processor for cfg whose watermark moves
// only by AdvanceWatermark (and Flush): events never raise it. That is
// Flink's WindowOperator, which follows the watermarks of its inputs and
// generates none; here the watermark comes from a Watermarks combining the
// source partitions. So cfg.WatermarkDelay must be 0 (the disorder bound
// lives in the sources, WatermarkConfig.OutOfOrderness); anything else, or
// a config NewProcessor rejects, is an error. Everything else is
// NewProcessor's: dedup, lateness against the current watermark, the side
// output, AllowedLateness, Snapshot and RestoreProcessor (which keep the
// processor following upstream only).
func NewUpstreamProcessor(cfg Config) (*Processor, error) {
	if cfg.WatermarkDelay != 0 {
		return nil, fmt.Errorf("idleness: an upstream processor takes its watermark from its sources; WatermarkDelay must be 0, got %d (set WatermarkConfig.OutOfOrderness instead)", cfg.WatermarkDelay)
	}
	p, err := NewProcessor(cfg)
	if err != nil {
		return nil, err
	}
	p.upstreamOnly = true
	return p, nil
}
