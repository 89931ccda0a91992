package lab

import "github.com/flk-byo/course/kit"

// AssignWindow returns the tumbling window [start, end) of the given size
// that contains ts: start is ts rounded DOWN (towards minus infinity) to a
// multiple of size, and end = start + size.
//
// Start is inclusive and end exclusive, so an event at ts == end belongs to
// the next window. Negative timestamps are floored too:
// AssignWindow(-1, 10) is [-10, 0), not [0, 10).
//
// size is positive (NewProcessor rejects anything else), and ts is far
// enough from the ends of the int64 range for its window to fit in an
// int64 (nearer timestamps are not tested).
func AssignWindow(ts, size int64) (start, end int64) {
	panic("TODO: floor ts to a multiple of size (careful: Go's % truncates for negative ts)")
}

// Config configures a Processor. Times are milliseconds of event time.
type Config struct {
	// WindowSize is the length of each tumbling window; it must be positive.
	WindowSize int64
	// WatermarkDelay is the disorder tolerated before a window's first
	// result: the watermark trails the largest timestamp seen by this much.
	// It must not be negative.
	WatermarkDelay int64
	// AllowedLateness is how long a window keeps its state after it has
	// fired, to correct its result when a late event arrives. It must not be
	// negative. AllowedLateness: leave 0 until stage 03; with 0, a window is
	// done for good as soon as it fires.
	AllowedLateness int64
}

// Processor counts and sums events per key in event-time tumbling windows
// and emits each window's results when the watermark reaches the window's
// end. It is used from one goroutine.
//
// Every slice a Processor returns belongs to the caller: later calls must
// not change it, and the caller may edit it or append to it without
// changing anything inside the Processor.
type Processor struct {
	// TODO: your fields here
}

// NewProcessor returns an empty Processor for cfg, or an error if cfg is
// invalid: WindowSize ≤ 0, WatermarkDelay < 0 or AllowedLateness < 0.
// A new Processor's watermark is math.MinInt64.
func NewProcessor(cfg Config) (*Processor, error) {
	panic("TODO: validate cfg and return an empty Processor")
}

// Process takes one event and returns the results it caused, ordered by
// (End, Start, Key) (kit.SortResults does that).
//
//   - An event whose ID was seen before (counted or sent to Late) is a
//     no-op: it changes nothing, not even the watermark, and returns nothing.
//   - An event whose window has expired (watermark ≥ end + AllowedLateness,
//     judged by the watermark before this event) goes to Late and is not
//     counted. end + AllowedLateness saturates at math.MaxInt64: it never
//     wraps around.
//   - Otherwise its Value is added to its window's Count and Sum for its Key,
//     and then the watermark becomes max(watermark, e.TS − WatermarkDelay),
//     where e.TS − WatermarkDelay saturates at math.MinInt64: it never wraps
//     around. The results are those of the windows that this raise makes
//     fire: a window [start, end) fires, once, when the watermark reaches end.
//   - From stage 03 on, an event for a window that has fired but not expired
//     (end ≤ watermark < end + AllowedLateness) is counted, and its key's
//     corrected Count and Sum for that window go out at once: IsUpdate is
//     true if the key had a result there, false if this is its first.
//
// Arrival alone never emits a result: an open window may still get events.
func (p *Processor) Process(e kit.Event) []kit.Result {
	panic("TODO: dedup by ID, side-output expired events, count the event, then raise the watermark and fire")
}

// AdvanceWatermark raises the watermark to wm, as a watermark from upstream
// would, and returns the results of the windows that fire, ordered by
// (End, Start, Key). A wm at or below the current watermark changes
// nothing and returns nothing: the watermark never goes back.
func (p *Processor) AdvanceWatermark(wm int64) []kit.Result {
	panic("TODO: raise the watermark to max(current, wm) and fire every window with end ≤ watermark")
}

// Watermark returns the current watermark: math.MinInt64 before any event
// or AdvanceWatermark, math.MaxInt64 after Flush. It never decreases.
func (p *Processor) Watermark() int64 {
	panic("TODO: return the current watermark (math.MinInt64 before anything happened)")
}

// Flush ends a bounded input: it fires every window that has not fired yet
// and returns their results, ordered by (End, Start, Key), and leaves the
// watermark at math.MaxInt64 (Flink's final watermark), so every later
// event goes to Late. A second Flush returns nothing.
func (p *Processor) Flush() []kit.Result {
	panic("TODO: fire every remaining window, as a watermark of math.MaxInt64 would")
}

// Late returns every event sent to the side output so far, in arrival
// order: the events whose window had expired when they arrived. Calling it
// does not clear the side output, and the slice is the caller's copy: later
// late events do not change it, nor do the caller's edits the side output.
func (p *Processor) Late() []kit.Event {
	panic("TODO: return the side output, in arrival order")
}
