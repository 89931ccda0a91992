//go:build fast

package solutions

import (
	"cmp"
	"math"
	"slices"

	"github.com/flk-byo/course/kit"
)

// SlidingProcessor counts and sums events per key in event-time sliding
// windows, with the contract of the plain build (sliding.go), by slicing:
// an event that is on time for its windows updates one slice, and a window
// is merged from its slices when it fires. Flink SQL's window slicing and
// the Scotty paper (see stage 09's card, Flink parity).
//
// The slices are the pieces of the time axis between consecutive window
// boundaries, starts (multiples of Slide) and ends (those plus Size): every
// instant of a slice is in exactly the same windows, so adding an event to
// its slice adds it to all of them. With Slide dividing Size that is one
// slice a slide; otherwise two (Size mod Slide, and the rest of the slide),
// and with Slide > Size the second is a gap that no window holds, which
// never gets an event.
//
// Only windows that have not fired live as slices. A window is
// materialized into s.p, the tumbling processor's window state, when the
// watermark reaches its end, just before s.p fires it; from then on it is
// s.p's, as in the plain build: a late event within the allowed lateness
// corrects it there, and s.p expires it. So s.p holds the fired windows,
// plus, after Snapshot or a restore, open windows whose events are in s.p
// and not in slices; a window fires with the sum of both. A slice is
// dropped once the last window that holds it has fired.
type SlidingProcessor struct {
	slide int64
	p     *Processor // WindowSize is the sliding window's Size
	// slices are the non-empty slices that an unfired window holds, in
	// ascending order of start.
	slices []*slice
}

// slice is the events of one piece [start, end) of the time axis, per key,
// and the windows that hold it: every start from latest down to oldest, a
// step of Slide apart.
type slice struct {
	start, end, latest, oldest int64
	tallies                    map[string]*sliceTally
}

// sliceTally is the count and sum of one key's events in a slice.
type sliceTally struct{ count, sum int64 }

// Process adds e to every window that contains it and returns the results
// this event caused, ordered by (End, Start, Key), as the plain build's
// Process does: a redelivery is ignored, an expired window skips e, a fired
// one counts it and emits its correction at once, and only an event that
// no window takes goes to Late. e counts in its unfired windows through its
// slice.
func (s *SlidingProcessor) Process(e kit.Event) []kit.Result {
	p := s.p
	if !p.seen.add(e.ID) {
		return nil
	}

	// The common case: e falls in a slice that exists, and not one of its
	// windows has fired. Then it counts in all of them through the slice.
	if sl := s.sliceOf(e.TS); sl != nil && sl.oldest+p.cfg.WindowSize > p.watermark {
		sl.add(e)
		return s.advanceTo(minusSaturating(e.TS, p.cfg.WatermarkDelay))
	}

	var corrections []kit.Result
	counted, unfired := false, false
	starts := AssignSlidingWindows(e.TS, p.cfg.WindowSize, s.slide)
	for _, start := range starts {
		end := start + p.cfg.WindowSize
		switch {
		case p.watermark >= p.cleanupTime(end): // expired: skip it
		case end > p.watermark: // not fired: its slices count e when it does
			counted, unfired = true, true
		default: // fired, not expired: correct it now
			counted = true
			w := p.windowFor(start, end)
			t := w.tally(e.Key)
			t.count++
			t.sum += e.Value
			r := w.result(*t)
			r.IsUpdate = t.count > 1
			corrections = append(corrections, r)
		}
	}
	if unfired {
		s.add(e, starts)
	}

	if !counted {
		// As in the plain build: all windows expired, or none at all and
		// the event late by Flink's isElementLate.
		if len(starts) > 0 || p.watermark > plusSaturating(e.TS, p.cfg.AllowedLateness) {
			p.late = append(p.late, e)
			return nil
		}
	}
	if len(corrections) > 0 {
		return kit.SortResults(corrections)
	}
	return s.advanceTo(minusSaturating(e.TS, p.cfg.WatermarkDelay))
}

// AdvanceWatermark raises the watermark to wm and returns the results of
// the windows that fire, ordered by (End, Start, Key).
func (s *SlidingProcessor) AdvanceWatermark(wm int64) []kit.Result {
	return s.advanceTo(wm)
}

// Flush fires every window that has not fired and leaves the watermark at
// math.MaxInt64.
func (s *SlidingProcessor) Flush() []kit.Result {
	return s.advanceTo(math.MaxInt64)
}

// Snapshot returns all of s's state in the plain build's format: the same
// bytes for the same state. It first materializes every unfired window
// into s.p, which then holds all of them, as the plain build's does.
func (s *SlidingProcessor) Snapshot() ([]byte, error) {
	s.materialize(s.p.watermark, math.MaxInt64)
	clear(s.slices)
	s.slices = s.slices[:0]
	return s.encode(), nil
}

// advanceTo raises the watermark to wm if that is higher: it materializes
// the windows that fire into s.p, lets s.p fire and expire its windows, and
// drops the slices that no unfired window holds any more.
func (s *SlidingProcessor) advanceTo(wm int64) []kit.Result {
	if wm <= s.p.watermark {
		return nil
	}
	s.materialize(s.p.watermark, wm)
	out := s.p.advanceTo(wm)
	// A slice's latest window ends last of its windows, and latest grows
	// with the slice's start: the slices whose windows have all fired are
	// a prefix.
	n := 0
	for n < len(s.slices) && s.slices[n].latest+s.p.cfg.WindowSize <= wm {
		n++
	}
	clear(s.slices[:n])
	s.slices = s.slices[n:]
	return out
}

// materialize adds, to s.p's state of every window whose end is in
// (from, to], the tallies of the slices it holds. The oldest window of a
// slice ends first, and oldest grows with the slice's start: the first
// slice whose oldest window ends after to ends the walk.
func (s *SlidingProcessor) materialize(from, to int64) {
	size := s.p.cfg.WindowSize
	for _, sl := range s.slices {
		if sl.oldest+size > to {
			return
		}
		// The first of the slice's windows to end after from: the oldest,
		// or k slides later, where k·Slide > from − (oldest + Size) ≥ 0.
		// The difference is read as a uint64, as in AssignSlidingWindows,
		// so that it cannot overflow; k beyond the latest means none.
		start := sl.oldest
		if end := start + size; end <= from {
			k := uint64(from-end)/uint64(s.slide) + 1
			if k > uint64(sl.latest-sl.oldest)/uint64(s.slide) {
				continue
			}
			start += int64(k) * s.slide
		}
		for ; start+size <= to; start += s.slide {
			sl.addTo(s.p.windowFor(start, start+size))
			if start == sl.latest {
				break
			}
		}
	}
}

// addTo adds the slice's tallies to w's.
func (sl *slice) addTo(w *window) {
	for key, t := range sl.tallies {
		wt := w.tally(key)
		wt.count += t.count
		wt.sum += t.sum
	}
}

// sliceOf returns the slice that holds ts, or nil if there is none.
func (s *SlidingProcessor) sliceOf(ts int64) *slice {
	i, found := slices.BinarySearchFunc(s.slices, ts, func(sl *slice, ts int64) int {
		return cmp.Compare(sl.start, ts)
	})
	if !found {
		if i == 0 {
			return nil
		}
		i-- // the last slice that starts before ts
	}
	if sl := s.slices[i]; ts < sl.end {
		return sl
	}
	return nil
}

// add adds e to its slice, whose windows start at starts (latest first).
func (s *SlidingProcessor) add(e kit.Event, starts []int64) {
	latest := starts[0]
	start := latest
	end := latest + s.slide
	// Within a slide, an end falls Size mod Slide after the window starts
	// (unless Slide divides Size): e's slice starts there if e is past it,
	// and ends there if not. e.TS − latest is in [0, Slide), and every end
	// computed here is at most latest + Size, the latest window's end:
	// nothing overflows.
	if q := s.p.cfg.WindowSize % s.slide; q != 0 {
		if e.TS-latest >= q {
			start = latest + q
		} else {
			end = latest + q
		}
	}
	i, found := slices.BinarySearchFunc(s.slices, start, func(sl *slice, start int64) int {
		return cmp.Compare(sl.start, start)
	})
	if !found {
		sl := &slice{start: start, end: end, latest: latest, oldest: starts[len(starts)-1], tallies: map[string]*sliceTally{}}
		s.slices = slices.Insert(s.slices, i, sl)
	}
	s.slices[i].add(e)
}

// add adds e to the slice's tally of its key.
func (sl *slice) add(e kit.Event) {
	t := sl.tallies[e.Key]
	if t == nil {
		t = &sliceTally{}
		sl.tallies[e.Key] = t
	}
	t.count++
	t.sum += e.Value
}
