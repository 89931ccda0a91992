//go:build !fast

package solutions

import "github.com/flk-byo/course/kit"

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
// event belongs to: Size/Slide updates per event. The tuned build (-tags
// fast, sliding_fast.go) slices instead, one update per event and a merge
// per firing; docs/PERFORMANCE.md measures the two side by side.
type SlidingProcessor struct {
	slide int64
	p     *Processor // WindowSize is the sliding window's Size
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

// Flush fires every window that has not fired and leaves the watermark at
// math.MaxInt64, as Processor.Flush does.
func (s *SlidingProcessor) Flush() []kit.Result {
	return s.p.Flush()
}

// Snapshot returns all of s's state in the format described at
// slidingSnapshotMagic (slidingwindows.go). The side output is not state. Equal state gives equal bytes; the bytes
// are the caller's. The error is always nil here.
func (s *SlidingProcessor) Snapshot() ([]byte, error) {
	return s.encode(), nil
}
