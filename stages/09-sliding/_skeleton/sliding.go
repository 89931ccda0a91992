package lab

import "github.com/flk-byo/course/kit"

// AssignSlidingWindows returns the start of every sliding window that holds
// ts, latest start first (the order of Flink's
// SlidingEventTimeWindows.assignWindows). A window starts at every multiple
// s of slide (floored towards minus infinity, negative timestamps too) and
// is [s, s+size), so ts belongs to every s with ts − size < s ≤ ts: end is
// exclusive. When size % slide != 0 that is the floor or the ceiling of
// size/slide windows, depending on where ts falls; when slide > size, a ts
// in a gap between windows belongs to none (return nil or an empty slice).
//
// size and slide are positive. Near math.MinInt64 a window that would start
// below it does not exist: list the others, and let nothing wrap around.
// Near math.MaxInt64, timestamps whose windows' ends do not fit in an int64
// are not tested.
func AssignSlidingWindows(ts, size, slide int64) []int64 {
	panic("TODO: floor ts to a multiple of slide, then walk down one slide at a time while the window still holds ts")
}

// SlidingConfig configures a SlidingProcessor. Times are milliseconds of
// event time.
type SlidingConfig struct {
	// Size is the length of each window; it must be positive.
	Size int64
	// Slide is the distance between the starts of consecutive windows; it
	// must be positive. Slide == Size is tumbling; Slide > Size leaves gaps.
	Slide int64
	// WatermarkDelay and AllowedLateness mean what they mean in Config, and
	// must not be negative.
	WatermarkDelay  int64
	AllowedLateness int64
}

// SlidingProcessor counts and sums events per key in event-time sliding
// windows. Everything the tumbling Processor promises holds per
// (key, window): results, lateness, the side output, dedup, snapshots. It
// is used from one goroutine, and every slice it returns is the caller's.
type SlidingProcessor struct {
	// TODO: your fields here
}

// NewSlidingProcessor returns an empty SlidingProcessor for cfg, or an
// error (and nil) if cfg is invalid: Size ≤ 0, Slide ≤ 0,
// WatermarkDelay < 0 or AllowedLateness < 0. Its watermark starts at
// math.MinInt64.
func NewSlidingProcessor(cfg SlidingConfig) (*SlidingProcessor, error) {
	panic("TODO: validate cfg and return an empty SlidingProcessor")
}

// Process takes one event and returns the results it caused, ordered by
// (End, Start, Key).
//
//   - An event whose ID was seen before (counted, late or in a gap) is a
//     no-op in every window, whatever its fields say: it changes nothing,
//     not even the watermark, and is never late.
//   - Each window of the event is judged on its own, against the watermark
//     before this event: one that has expired (watermark ≥ end +
//     AllowedLateness, saturating at math.MaxInt64) is skipped; any other
//     counts the event's Value in its key's Count and Sum.
//   - A window that has fired but not expired (end ≤ watermark) emits the
//     key's corrected result at once, IsUpdate true if the key had a result
//     there and false if this is its first; the open ones wait to fire.
//   - An event with windows, all of them expired, goes to Late. An event in
//     no window (a gap, when Slide > Size) is counted nowhere; it goes to
//     Late only if watermark > e.TS + AllowedLateness (saturating), as
//     Flink's isElementLate.
//   - An event that is not late then raises the watermark to
//     max(watermark, e.TS − WatermarkDelay), saturating at math.MinInt64,
//     and the windows that this makes fire are returned: each window fires
//     once, when the watermark reaches its end.
func (s *SlidingProcessor) Process(e kit.Event) []kit.Result {
	panic("TODO: dedup by ID, then for each window: skip if expired, else count (and correct if fired); then raise the watermark")
}

// AdvanceWatermark raises the watermark to wm and returns the results of
// the windows that fire, ordered by (End, Start, Key). A wm at or below the
// current watermark changes nothing.
func (s *SlidingProcessor) AdvanceWatermark(wm int64) []kit.Result {
	panic("TODO: raise the watermark, fire every window with end ≤ watermark, drop the expired ones")
}

// Watermark returns the current watermark: math.MinInt64 before any event
// or AdvanceWatermark, math.MaxInt64 after Flush. It never decreases.
func (s *SlidingProcessor) Watermark() int64 {
	panic("TODO: return the current watermark")
}

// Flush fires every window that has not fired yet, ordered by
// (End, Start, Key), and leaves the watermark at math.MaxInt64.
func (s *SlidingProcessor) Flush() []kit.Result {
	panic("TODO: fire everything left, as a watermark of math.MaxInt64 would")
}

// Late returns a copy of the side output, in arrival order.
func (s *SlidingProcessor) Late() []kit.Event {
	panic("TODO: return a copy of the side output")
}

// Snapshot returns all of s's state as bytes: the config (the slide too),
// the watermark, every seen ID and every unexpired window, fired or not,
// with its per-key counts and sums; not the side output. A tumbling
// Processor's snapshot must not restore as a sliding one. Equal state gives
// equal bytes; the bytes are the caller's and never change.
func (s *SlidingProcessor) Snapshot() ([]byte, error) {
	panic("TODO: encode the config, watermark, seen IDs and windows in a canonical order, framed and checksummed")
}

// RestoreSlidingProcessor returns a SlidingProcessor with the state saved
// in snapshot, ready to continue exactly where the snapshotted one was,
// with an empty side output. Empty, truncated, corrupted or foreign input
// gives nil and an error, never a panic; the processor shares no memory
// with snapshot.
func RestoreSlidingProcessor(snapshot []byte) (*SlidingProcessor, error) {
	panic("TODO: check the framing and checksum, then decode and validate every field")
}
