package solutions

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/flk-byo/course/kit"
)

// This file holds what both builds of the SlidingProcessor share: which
// windows hold an event, the config and its checks, the watermark and side
// output, and the snapshot format. How the windows' state is kept is the
// build's own: sliding.go updates every window an event belongs to, the
// tuned build (-tags fast, sliding_fast.go) slices them.

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

// Watermark returns the current watermark: math.MinInt64 before anything,
// math.MaxInt64 after Flush.
func (s *SlidingProcessor) Watermark() int64 {
	return s.p.Watermark()
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

// encode returns the snapshot of s's windows, seen IDs and watermark in the
// format above: Snapshot's bytes, once every window s holds is in s.p.
func (s *SlidingProcessor) encode() []byte {
	p := s.p
	buf := make([]byte, headerLen, 256)
	buf = binary.AppendVarint(buf, p.cfg.WindowSize)
	buf = binary.AppendVarint(buf, s.slide)
	buf = binary.AppendVarint(buf, p.cfg.WatermarkDelay)
	buf = binary.AppendVarint(buf, p.cfg.AllowedLateness)
	buf = binary.AppendVarint(buf, p.watermark)
	buf = appendSeenIDs(buf, p.seen)
	buf = p.appendWindows(buf)
	return slidingSnapshot.seal(buf)
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
