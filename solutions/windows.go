package solutions

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/flk-byo/course/kit"
)

// AssignWindow returns the tumbling window [start, end) of the given size
// that contains ts: start is ts rounded down (towards minus infinity) to a
// multiple of size, and end = start + size. So ts == end belongs to the next
// window, and AssignWindow(-1, 10) is [-10, 0), not [0, 10).
//
// size must be positive, and the window must lie within the int64 range.
func AssignWindow(ts, size int64) (start, end int64) {
	// Go's % truncates towards zero, so for a negative ts the remainder is
	// negative (-1 % 10 == -1) and ts - r would round up, into the window
	// after the right one. Adding size turns it into the distance down to
	// the floor multiple. This is Flink's TimeWindow.getWindowStartWithOffset
	// with offset 0 (FLINK-26334 fixed the same bug there).
	r := ts % size
	if r < 0 {
		r += size
	}
	start = ts - r
	return start, start + size
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
	// fired, to correct its result when a late event arrives (stage 03).
	// Zero, the stage-01 behaviour, drops a window as soon as it fires.
	// It must not be negative.
	AllowedLateness int64
}

// Processor counts and sums events per key in event-time tumbling windows
// and emits each window's results when the watermark reaches the window's
// end. It is not safe for concurrent use.
//
// Every slice it returns is the caller's: each call builds its results in
// a new slice and Late returns a copy, so that what was handed out never
// changes, and the caller's edits never reach the processor's state.
type Processor struct {
	cfg Config

	// watermark is max(largest timestamp seen − WatermarkDelay, highest
	// AdvanceWatermark); math.MinInt64 until either happens. It never goes
	// back.
	watermark int64

	// seen holds every event ID ever processed, counted or late, so that a
	// redelivered event is a no-op. It grows with the input: a real job
	// bounds it with state TTL; the course keeps the contract simple.
	seen idSet

	//course:stage 10 forgetting seen IDs behind the watermark
	// seenTTL, set by NewSeenTTLProcessor, bounds seen: an ID is forgotten
	// when the watermark reaches its event's TS + seenTTL. Zero remembers
	// every ID forever.
	seenTTL int64
	// expiries holds every ID of seen with the watermark that forgets it,
	// soonest first; empty without a seen TTL.
	expiries expiryQueue
	//course:end

	// windows holds the state of every window that has not expired, in
	// ascending order of end. Windows fire and expire in end order, so the
	// ones due are always a run at (or near) the front, found without
	// scanning all state. Few windows are open at once, about
	// (WatermarkDelay + AllowedLateness) / WindowSize + 1, so a binary
	// search over this slice finds an event's window as fast as a map.
	windows []*window

	// late is the side output: events whose window had expired when they
	// arrived, in arrival order.
	late []kit.Event

	//course:stage 07 following upstream watermarks only
	// upstreamOnly is set by NewUpstreamProcessor: the watermark then moves
	// only by AdvanceWatermark and Flush, never by events.
	upstreamOnly bool
	//course:end

	// reuse is empty in the plain build: what expires is left to the
	// garbage collector. The tuned build (-tags fast, windowstate_fast.go)
	// keeps expired windows and scratch space there for new state to reuse.
	reuse windowReuse
}

// NewProcessor returns an empty Processor for cfg, or an error naming the
// first invalid field: WindowSize ≤ 0, WatermarkDelay < 0 or
// AllowedLateness < 0.
func NewProcessor(cfg Config) (*Processor, error) {
	switch {
	case cfg.WindowSize <= 0:
		return nil, fmt.Errorf("windows: WindowSize must be positive, got %d", cfg.WindowSize)
	case cfg.WatermarkDelay < 0:
		return nil, fmt.Errorf("windows: WatermarkDelay must not be negative, got %d", cfg.WatermarkDelay)
	case cfg.AllowedLateness < 0:
		return nil, fmt.Errorf("windows: AllowedLateness must not be negative, got %d", cfg.AllowedLateness)
	}
	return &Processor{
		cfg:       cfg,
		watermark: math.MinInt64,
		seen:      newIDSet(0),
	}, nil
}

// Process adds e to its window and returns the results this event caused,
// ordered by (End, Start, Key): those of the windows that fire because e
// raised the watermark to e.TS − WatermarkDelay (math.MinInt64 if that
// underflows). An event whose ID was seen before is ignored; an event whose
// window has expired goes to Late. With allowed lateness (stage 03), an
// event for a window that has fired but not expired returns that window's
// corrected result for e's key instead.
func (p *Processor) Process(e kit.Event) []kit.Result {
	// 1. Dedup first: a redelivered event must have no effect at all, not
	// even on the watermark or the side output, whatever its fields say.
	if !p.seen.add(e.ID) {
		return nil
	}
	//course:stage 10 forgetting seen IDs behind the watermark
	p.forgetLater(e)
	//course:end

	// 2. Lateness is judged against the watermark this event arrived to,
	// before its own timestamp raises it. In Flink the watermark an event
	// gives rise to travels behind the event, so the window operator always
	// sees the element first; and the promise "nothing at or below the
	// watermark is still to come" was made before this event existed.
	start, end := AssignWindow(e.TS, p.cfg.WindowSize)
	if p.watermark >= p.cleanupTime(end) {
		p.late = append(p.late, e)
		return nil
	}

	// 3. Update the state. The window may be new or open or, with allowed
	// lateness, fired but not yet expired.
	w := p.windowFor(start, end)
	t := w.tally(e.Key)
	t.count++
	t.sum += e.Value

	//course:stage 03 correcting a fired window
	if end <= p.watermark {
		// The watermark has passed this window's end, so the window has
		// fired (every window with end ≤ watermark has). Its results are out
		// already: emit this key's corrected result at once. It is an update
		// if the key had a result there, that is if this is not its first
		// event in the window; a key new to the window gets its first
		// result. Nothing else can fire: e.TS < end ≤ watermark, so e cannot
		// raise the watermark. (Unreachable with AllowedLateness 0, where
		// end ≤ watermark means expired.)
		r := w.result(*t)
		r.IsUpdate = t.count > 1
		return []kit.Result{r}
	}
	//course:end

	// 4. Only now let the event raise the watermark and fire what is due.
	// An event can never close its own window this way (ts − delay < end),
	// so counting it first is what makes every fired result include it.
	//course:stage 07 following upstream watermarks only
	// A processor that follows upstream watermarks skips this step.
	if p.upstreamOnly {
		return nil
	}
	//course:end
	return p.advanceTo(minusSaturating(e.TS, p.cfg.WatermarkDelay))
}

// AdvanceWatermark raises the watermark to wm, as a watermark from an
// upstream operator would, and returns the results of the windows that fire,
// ordered by (End, Start, Key). A wm at or below the current watermark
// changes nothing: watermarks never go back.
func (p *Processor) AdvanceWatermark(wm int64) []kit.Result {
	return p.advanceTo(wm)
}

// Watermark returns the current watermark: math.MinInt64 before any event
// or AdvanceWatermark, math.MaxInt64 after Flush.
func (p *Processor) Watermark() int64 {
	return p.watermark
}

// Flush ends a bounded input: it fires every window that has not fired yet
// and returns their results, ordered by (End, Start, Key). Like Flink's final
// Long.MAX_VALUE watermark, it leaves the watermark at math.MaxInt64, so
// every later event goes to Late.
func (p *Processor) Flush() []kit.Result {
	return p.advanceTo(math.MaxInt64)
}

// Late returns every event sent to the side output so far (events whose
// window had expired when they arrived), in arrival order. The slice is the
// caller's: later processing does not change it.
func (p *Processor) Late() []kit.Event {
	return slices.Clone(p.late)
}

// advanceTo raises the watermark to wm if that is higher, returns the
// results of every window that fires, ordered by (End, Start, Key), and
// drops the state of every window that expires.
func (p *Processor) advanceTo(wm int64) []kit.Result {
	if wm <= p.watermark {
		return nil
	}
	old := p.watermark
	p.watermark = wm
	//course:stage 10 forgetting seen IDs behind the watermark
	p.forgetExpired()
	//course:end

	// A window fires when the watermark first reaches its end, so the
	// windows to fire now are exactly those with old < end ≤ wm: a
	// contiguous run of p.windows. Those with end ≤ old fired earlier and
	// may only be waiting to expire. (old < wm, so old+1 cannot overflow.)
	// Visiting them in end order, each window's keys sorted, gives results
	// ordered by (End, Start, Key) without sorting them all: tumbling
	// windows with the same end have the same start.
	var out []kit.Result
	for _, w := range p.windows[p.search(old+1):] {
		if w.end > wm {
			break
		}
		out = p.appendResults(out, w)
	}

	// Expire after firing: a window that fires and expires in the same
	// step (always, with AllowedLateness 0) still emits first. Cleanup
	// times grow with end, so the expired windows are a prefix.
	n := 0
	for n < len(p.windows) && p.cleanupTime(p.windows[n].end) <= wm {
		n++
	}
	p.dropWindows(n)
	return out
}

// search returns the index of the first window in p.windows whose end is
// at least end: where a window ending at end is, or would be inserted.
func (p *Processor) search(end int64) int {
	i, _ := slices.BinarySearchFunc(p.windows, end, func(w *window, end int64) int {
		return cmp.Compare(w.end, end)
	})
	return i
}

// windowFor returns the state of window [start, end), opening the window
// if it has none yet.
func (p *Processor) windowFor(start, end int64) *window {
	i := p.search(end)
	if i < len(p.windows) && p.windows[i].end == end {
		return p.windows[i]
	}
	w := p.newWindow(start, end)
	p.windows = slices.Insert(p.windows, i, w)
	return w
}

// cleanupTime returns the watermark at which window state ending at end
// expires: end + AllowedLateness, or math.MaxInt64 if that overflows (as in
// Flink's WindowOperator.cleanupTime).
func (p *Processor) cleanupTime(end int64) int64 {
	if end > math.MaxInt64-p.cfg.AllowedLateness {
		return math.MaxInt64
	}
	return end + p.cfg.AllowedLateness
}

// result is the result of the key whose tally in w is t, as the window
// fires it: not an update.
func (w *window) result(t keyTally) kit.Result {
	return kit.Result{Key: t.key, Start: w.start, End: w.end, Count: t.count, Sum: t.sum}
}

// appendResults appends the result of every key of w to out, in key order.
func (p *Processor) appendResults(out []kit.Result, w *window) []kit.Result {
	sorted := p.sortedTallies(w)
	out = slices.Grow(out, len(sorted)) // one allocation, not one per doubling
	for _, t := range sorted {
		out = append(out, w.result(t))
	}
	return out
}

// minusSaturating returns a − b for b ≥ 0, or math.MinInt64 if that would
// underflow: the watermark of a timestamp near math.MinInt64.
func minusSaturating(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}
