package solutions

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/flk-byo/course/kit"
)

// AssignSlidingWindows returns the start of every sliding window of length
// size, one starting at every multiple of slide, that contains ts, latest
// first: the order of Flink's SlidingEventTimeWindows.assignWindows. Window
// start s holds [s, s+size), so ts belongs to every s with
// ts − size < s ≤ ts. When size is a multiple of slide that is size/slide
// windows; otherwise ts belongs to ⌈size/slide⌉ or ⌊size/slide⌋ of them,
// depending on where it falls, and to none at all when slide > size and it
// falls in a gap between windows.
//
// size and slide must be positive. Near math.MinInt64 the windows that
// would start below it do not exist and are left out; nothing wraps around.
// Near math.MaxInt64, ts must be far enough from the end for its windows'
// ends to fit in an int64.
func AssignSlidingWindows(ts, size, slide int64) []int64 {
	// The latest window starts at ts floored to a multiple of slide:
	// Flink's TimeWindow.getWindowStartWithOffset(ts, 0, slide). Go's %
	// truncates towards zero, so a negative remainder is made non-negative
	// first (-1 % 5 == -1, and -1 floors to -5, not 0).
	r := ts % slide
	if r < 0 {
		r += slide
	}
	if ts < math.MinInt64+r {
		return nil // even the latest window would start below math.MinInt64
	}
	last := ts - r

	var starts []int64
	// Walk down one slide at a time while the window still reaches ts:
	// start > ts − size, that is ts − start < size. Flink's ts − size
	// wraps near the bottom of the range; ts − start cannot go wrong: start
	// ≤ ts, so the true difference is in [0, 2^64), and the int64
	// subtraction read as a uint64 is exactly it, even where it wraps.
	for start := last; uint64(ts-start) < uint64(size); start -= slide {
		starts = append(starts, start)
		if start < math.MinInt64+slide {
			break // the next start would be below math.MinInt64
		}
	}
	return starts
}

// SlidingConfig configures a SlidingProcessor. Times are milliseconds of
// event time.
type SlidingConfig struct {
	// Size is the length of each window; it must be positive.
	Size int64
	// Slide is the distance between the starts of consecutive windows: a
	// window [s, s+Size) starts at every multiple s of Slide. It must be
	// positive. Slide == Size gives tumbling windows; Slide > Size leaves
	// gaps that belong to no window.
	Slide int64
	// WatermarkDelay and AllowedLateness mean what they mean in Config.
	WatermarkDelay  int64
	AllowedLateness int64
}

// SlidingProcessor counts and sums events per key in event-time sliding
// windows, as Flink's SlidingEventTimeWindows with a WindowOperator: the
// tumbling Processor of stages 01–04 with each event in every window that
// contains it, and per (key, window) the same results, lateness, side
// output, dedup and snapshots. It is not safe for concurrent use.
//
// It is built on a Processor: the windows, seen IDs, watermark and side
// output are the tumbling processor's state and code, which never assume
// that windows do not overlap; only which windows an event joins, and when
// it is late, are new. This is the naive strategy, one update per window an
// event belongs to: Size/Slide updates per event.
type SlidingProcessor struct {
	slide int64
	p     *Processor // WindowSize is the sliding window's Size
}

// NewSlidingProcessor returns an empty SlidingProcessor for cfg, or an error
// naming the first invalid field: Size ≤ 0, Slide ≤ 0, WatermarkDelay < 0
// or AllowedLateness < 0. (Flink's SlidingEventTimeWindows.of refuses
// size ≤ 0 and |offset| ≥ slide, which with offset 0 is slide ≤ 0.)
func NewSlidingProcessor(cfg SlidingConfig) (*SlidingProcessor, error) {
	switch {
	case cfg.Size <= 0:
		return nil, fmt.Errorf("sliding: Size must be positive, got %d", cfg.Size)
	case cfg.Slide <= 0:
		return nil, fmt.Errorf("sliding: Slide must be positive, got %d", cfg.Slide)
	}
	p, err := NewProcessor(Config{WindowSize: cfg.Size, WatermarkDelay: cfg.WatermarkDelay, AllowedLateness: cfg.AllowedLateness})
	if err != nil {
		return nil, fmt.Errorf("sliding: %w", err)
	}
	return &SlidingProcessor{slide: cfg.Slide, p: p}, nil
}

// Process adds e to every window that contains it and returns the results
// this event caused, ordered by (End, Start, Key). A redelivered ID is
// ignored. Each of e's windows is judged on its own: an expired one is
// skipped, an open one counts e, and one that has fired but not expired
// counts e and emits e's key's corrected result at once. Only an event none
// of whose windows takes it goes to Late.
func (s *SlidingProcessor) Process(e kit.Event) []kit.Result {
	p := s.p
	// Dedup once per event, before anything else: a redelivery has no
	// effect in any window, nor on the watermark or the side output.
	if !p.seen.add(e.ID) {
		return nil
	}

	var corrections []kit.Result
	counted := false
	starts := AssignSlidingWindows(e.TS, p.cfg.WindowSize, s.slide)
	for _, start := range starts {
		end := start + p.cfg.WindowSize
		// Lateness is per window, against the watermark e arrived to: the
		// oldest of e's windows may have expired while the newer ones are
		// still open (Flink's WindowOperator skips each isWindowLate window).
		if p.watermark >= p.cleanupTime(end) {
			continue
		}
		counted = true
		w := p.windowFor(start, end)
		t := w.tally(e.Key)
		t.count++
		t.sum += e.Value
		if end <= p.watermark { // fired, not expired: correct it now (stage 03)
			r := w.result(*t)
			r.IsUpdate = t.count > 1
			corrections = append(corrections, r)
		}
	}

	if !counted {
		// Flink side-outputs a skipped element only if it is late itself
		// (WindowOperator.isElementLate: ts + allowedLateness ≤ watermark in
		// Flink's terms, one below the course's). With windows, all of them
		// expired implies that; an event in a gap (Slide > Size) has none, so
		// it is late by that test alone, and otherwise merely dropped.
		if len(starts) > 0 || p.watermark > plusSaturating(e.TS, p.cfg.AllowedLateness) {
			p.late = append(p.late, e)
			return nil
		}
	}

	if len(corrections) > 0 {
		// e is in a window that has fired, so e.TS < end ≤ watermark: it
		// cannot raise the watermark, and nothing else fires. starts run
		// latest first, so the corrections need sorting.
		return kit.SortResults(corrections)
	}
	return p.advanceTo(minusSaturating(e.TS, p.cfg.WatermarkDelay))
}

// AdvanceWatermark raises the watermark to wm, as Processor.AdvanceWatermark
// does, and returns the results of the windows that fire, ordered by
// (End, Start, Key).
func (s *SlidingProcessor) AdvanceWatermark(wm int64) []kit.Result {
	return s.p.AdvanceWatermark(wm)
}

// Watermark returns the current watermark: math.MinInt64 before anything,
// math.MaxInt64 after Flush.
func (s *SlidingProcessor) Watermark() int64 {
	return s.p.Watermark()
}

// Flush fires every window that has not fired and leaves the watermark at
// math.MaxInt64, as Processor.Flush does.
func (s *SlidingProcessor) Flush() []kit.Result {
	return s.p.Flush()
}

// Late returns a copy of the side output, in arrival order.
func (s *SlidingProcessor) Late() []kit.Event {
	return s.p.Late()
}

// A sliding snapshot has stage 04's header with its own magic, "FLSL"
// (FLink SLiding windows), so that no other kind restores as one. The body,
// with stage 04's encodings:
//
//	config      varint Size, varint Slide, varint WatermarkDelay, varint AllowedLateness
//	watermark   varint
//	seen IDs    uvarint n, then n strings in ascending byte order
//	windows     as in a Processor snapshot: ascending end, keys ascending
//
// Windows overlap here, but each still has its own end, so the order by end
// is still strict and canonical.
const slidingSnapshotMagic = "FLSL"

// slidingSnapshot is a SlidingProcessor's kind of snapshot.
var slidingSnapshot = snapshotKind{magic: slidingSnapshotMagic, pkg: "sliding", what: "sliding snapshot"}

// Snapshot returns all of s's state in the format above. The side output is
// not state. Equal state gives equal bytes; the bytes are the caller's. The
// error is always nil here.
func (s *SlidingProcessor) Snapshot() ([]byte, error) {
	p := s.p
	buf := make([]byte, headerLen, 256)
	buf = binary.AppendVarint(buf, p.cfg.WindowSize)
	buf = binary.AppendVarint(buf, s.slide)
	buf = binary.AppendVarint(buf, p.cfg.WatermarkDelay)
	buf = binary.AppendVarint(buf, p.cfg.AllowedLateness)
	buf = binary.AppendVarint(buf, p.watermark)
	buf = appendSeenIDs(buf, p.seen)
	buf = p.appendWindows(buf)
	return slidingSnapshot.seal(buf), nil
}

// RestoreSlidingProcessor returns a SlidingProcessor with the state saved in
// snapshot by Snapshot, ready to continue where that one was, with an empty
// side output. Like RestoreProcessor it checks the magic, the version, the
// length and the checksum before decoding, validates every field, and gives
// a nil processor and an error, never a panic, for any invalid input. The
// processor shares no memory with snapshot.
func RestoreSlidingProcessor(snapshot []byte) (*SlidingProcessor, error) {
	v, err := slidingSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	switch v {
	case 1:
		body, err := slidingSnapshot.verifiedBody(snapshot)
		if err != nil {
			return nil, err
		}
		s, err := decodeSlidingV1(body)
		if err != nil {
			return nil, slidingSnapshot.corrupt(err)
		}
		return s, nil
	default:
		return nil, slidingSnapshot.unsupported(v)
	}
}

// decodeSlidingV1 decodes a verified version-1 body, accepting only what
// Snapshot writes: windows of the config's size starting at multiples of
// its slide, unexpired, in ascending end order, each with keys.
func decodeSlidingV1(body []byte) (*SlidingProcessor, error) {
	r := &reader{buf: body}
	cfg := SlidingConfig{Size: r.varint(), Slide: r.varint(), WatermarkDelay: r.varint(), AllowedLateness: r.varint()}
	watermark := r.varint()
	if r.err != nil {
		return nil, r.err
	}
	s, err := NewSlidingProcessor(cfg)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	s.p.watermark = watermark
	if s.p.seen, err = r.seenIDs(); err != nil {
		return nil, err
	}
	if err := s.p.readWindows(r, cfg.Slide); err != nil {
		return nil, err
	}
	return s, nil
}
