package lab

import (
	"time"

	"github.com/flk-byo/course/kit"
)

// WatermarkConfig configures Watermarks: how many source partitions feed one
// watermark, how disordered each is, and when a silent one stops counting.
//
// The latency it buys: in a replay where processing time tracks event time,
// a window closes at most IdleTimeout + OutOfOrderness (+ one emit interval,
// the period at which you read Current and hand it on) after its end while
// some partition is active, even if others are silent. Once every partition
// is idle, each window up to the highest partition watermark closes within
// IdleTimeout (+ one emit interval) of the last event; a window ending past
// it waits for data, or Flush.
type WatermarkConfig struct {
	// Partitions is the number of source partitions, numbered 0 … n−1. It
	// must be at least 1.
	Partitions int
	// OutOfOrderness is the bounded disorder of each partition, in
	// milliseconds of event time: a partition's watermark is the largest
	// timestamp it has delivered minus this (math.MinInt64 where that
	// would underflow). It must not be negative.
	OutOfOrderness int64
	// IdleTimeout is the processing time without events after which a
	// partition is idle and leaves the combined watermark. Zero disables
	// idleness. It must not be negative.
	IdleTimeout time.Duration
}

// Watermarks combines the watermarks of several source partitions into one.
// It is used from one goroutine.
type Watermarks struct {
	// TODO: your fields here
}

// NewWatermarks returns the Watermarks of cfg.Partitions partitions, none of
// which has spoken yet, reading processing time from clock (never from
// time.Now: the tests drive a kit.ManualClock). It returns an error if
// Partitions < 1, OutOfOrderness < 0, IdleTimeout < 0 or clock is nil.
//
// The time of this call counts as every partition's last activity until
// its first event: a partition silent from the start becomes idle too.
func NewWatermarks(cfg WatermarkConfig, clock kit.Clock) (*Watermarks, error) {
	panic("TODO: validate cfg and clock; record clock.Now() as every partition's last activity")
}

// Observe records an event with timestamp ts from partition, at
// clock.Now(). The partition's watermark becomes max(its watermark,
// ts − OutOfOrderness) (it has none before its first event), where
// ts − OutOfOrderness saturates at math.MinInt64 instead of wrapping round
// for a ts within OutOfOrderness of math.MinInt64. Its last activity
// becomes now: an idle partition rejoins with its next event, even one too
// old to raise its watermark.
//
// A partition outside 0 … Partitions−1 panics with a message naming the
// partition and the valid range.
func (w *Watermarks) Observe(partition int, ts int64) {
	panic("TODO: check the partition, raise its max timestamp, record clock.Now() as its last activity")
}

// Current returns the combined watermark at clock.Now():
//
//	max(previous Current(), min over the non-idle partitions' watermarks)
//
// where a non-idle partition that has not spoken yet has no watermark and
// pins the min at math.MinInt64. If every partition is idle, it is
//
//	max(previous Current(), highest watermark of any partition)
//
// whatever the order in which they went idle; while no partition has
// spoken that is math.MinInt64. The previous value is math.MinInt64 the
// first time. So it never decreases: a partition rejoining behind the
// combined watermark does not pull it back, and the watermark waits there
// until the partition catches up.
func (w *Watermarks) Current() int64 {
	panic("TODO: min over the partitions that are not idle, or the highest watermark if all are idle; never below the previous value")
}

// Idle reports whether partition is idle at clock.Now(): IdleTimeout > 0
// and now − its last activity > IdleTimeout (strictly). Its last activity
// is its last Observe, or the NewWatermarks call if it has none. Idleness
// is measured in processing time only, never in event time.
//
// A partition outside 0 … Partitions−1 panics, as in Observe: with a message
// naming the partition and the valid range.
func (w *Watermarks) Idle(partition int) bool {
	panic("TODO: IdleTimeout > 0 and clock.Now() − last activity > IdleTimeout")
}

// NewUpstreamProcessor returns a Processor like NewProcessor's, except
// that its watermark moves only by AdvanceWatermark (and Flush): Process
// never raises it. Everything else stays: dedup, lateness judged against
// the current watermark, the side output, AllowedLateness, and Snapshot /
// RestoreProcessor (a restored one still follows upstream only).
//
// cfg.WatermarkDelay must be 0: the disorder bound now lives in the
// sources (WatermarkConfig.OutOfOrderness). A non-zero delay, or a config
// NewProcessor rejects, is an error.
//
// Your Processor must know that it follows upstream only: Process then
// skips its own watermark step, and since RestoreProcessor gets only
// bytes, your snapshot must carry that too.
func NewUpstreamProcessor(cfg Config) (*Processor, error) {
	panic("TODO: reject WatermarkDelay ≠ 0, build a Processor with NewProcessor and mark it to follow upstream watermarks only")
}
