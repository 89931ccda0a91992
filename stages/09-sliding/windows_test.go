//go:build lab || solution

package sliding

import (
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestNewSlidingProcessorValidatesConfig certifies that NewSlidingProcessor
// returns an error and no processor for Size ≤ 0, Slide ≤ 0,
// WatermarkDelay < 0 or AllowedLateness < 0, and accepts Slide == Size and
// Slide > Size, as Flink's SlidingEventTimeWindows.of does.
func TestNewSlidingProcessorValidatesConfig(t *testing.T) {
	defer suite.Recover(t)
	bad := []SlidingConfig{
		{Size: 0, Slide: 5},
		{Size: -10, Slide: 5},
		{Size: 10, Slide: 0},
		{Size: 10, Slide: -5},
		{Size: 10, Slide: 5, WatermarkDelay: -1},
		{Size: 10, Slide: 5, AllowedLateness: -1},
	}
	for _, cfg := range bad {
		p, err := NewSlidingProcessor(cfg)
		if err == nil || p != nil {
			t.Errorf("NewSlidingProcessor(%+v) = %v, %v; want nil and an error: a window needs a positive size and slide, "+
				"and the delay and lateness must not be negative", cfg, p, err)
		}
	}
	good := []SlidingConfig{
		{Size: 10, Slide: 5},
		{Size: 10, Slide: 10, WatermarkDelay: 3, AllowedLateness: 7},
		{Size: 10, Slide: 3},
		{Size: 5, Slide: 10},
		{Size: 1, Slide: 1},
	}
	for _, cfg := range good {
		p, err := NewSlidingProcessor(cfg)
		if err != nil || p == nil {
			t.Errorf("NewSlidingProcessor(%+v) = %v, %v; want a processor and no error: Flink accepts any positive size "+
				"and slide (Slide == Size is tumbling; Slide > Size leaves gaps)", cfg, p, err)
			continue
		}
		if wm := p.Watermark(); wm != math.MinInt64 {
			t.Errorf("a new processor's Watermark() = %s, want math.MinInt64: nothing has arrived yet", kit.FormatWatermark(wm))
		}
	}
}

// TestEventCountsInEveryWindow certifies that an event is counted, with its
// value summed, in every window that holds it, each window's result per key.
func TestEventCountsInEveryWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5, WatermarkDelay: 100})
	r.ProcessAll(ev("e1", "a", 3, 1), ev("e2", "a", 7, 10), ev("e3", "b", 12, 100))
	r.Expect("Flush()", r.Flush(), []kit.Result{
		res("a", -5, 5, 1, 1),
		res("a", 0, 10, 2, 11),
		res("a", 5, 15, 1, 10),
		res("b", 5, 15, 1, 100),
		res("b", 10, 20, 1, 100),
	}, "Windows of 10 every 5 overlap: ts 3 is in [-5,5) and [0,10), ts 7 in [0,10) and [5,15), ts 12 in\n"+
		"[5,15) and [10,20). Each event counts in each of its windows: size/slide = 2 updates per event.")
}

// TestWindowFiresWhenWatermarkReachesEnd certifies that each window fires
// once, when the watermark reaches its end, never on an event's arrival, and
// that overlapping windows fire one by one as the watermark passes their ends.
func TestWindowFiresWhenWatermarkReachesEnd(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 10, Slide: 5})
	r.Expect("Process(e1 a@3)", r.Process(ev("e1", "a", 3, 1)), nil,
		"The watermark is 3: no window containing ts 3 ends at or before 3.")
	r.Expect("Process(e2 a@4)", r.Process(ev("e2", "a", 4, 1)), nil,
		"The watermark is 4: [-5,5) ends at 5, still open.")
	r.Expect("Process(e3 b@5)", r.Process(ev("e3", "b", 5, 1)), []kit.Result{res("a", -5, 5, 2, 2)},
		"The watermark reached 5 = the end of [-5,5): it fires, [0,10) stays open.")
	r.Expect("AdvanceWatermark(9)", r.Advance(9), nil, "No window ends in (5, 9].")
	r.Expect("AdvanceWatermark(15)", r.Advance(15), []kit.Result{
		res("a", 0, 10, 2, 2),
		res("b", 0, 10, 1, 1),
		res("b", 5, 15, 1, 1),
	}, "[0,10) and [5,15) both end by 15 and fire in one call, in (End, Start, Key) order.")
	r.Expect("AdvanceWatermark(15) again", r.Advance(15), nil, "Each window fires once: the watermark did not move.")
	r.Expect("AdvanceWatermark(3)", r.Advance(3), nil, "A lower watermark changes nothing: the watermark never goes back.")
	r.ExpectWatermark(15, "AdvanceWatermark(3) after 15 must leave the watermark at 15.")
	r.Expect("Flush()", r.Flush(), nil, "Every window holding an event has fired.")
	r.ExpectWatermark(math.MaxInt64, "Flush leaves the watermark at math.MaxInt64.")
}

// TestResultsOrderedByEndStartKey certifies that one call's results are
// ordered by (End, Start, Key): window first, so an earlier window's key z
// comes before a later window's key a.
func TestResultsOrderedByEndStartKey(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 6, Slide: 2, WatermarkDelay: 100})
	r.ProcessAll(ev("e1", "z", 1, 1), ev("e2", "a", 3, 1), ev("e3", "m", 1, 1))
	r.Expect("Flush()", r.Flush(), []kit.Result{
		res("m", -4, 2, 1, 1),
		res("z", -4, 2, 1, 1),
		res("a", -2, 4, 1, 1),
		res("m", -2, 4, 1, 1),
		res("z", -2, 4, 1, 1),
		res("a", 0, 6, 1, 1),
		res("m", 0, 6, 1, 1),
		res("z", 0, 6, 1, 1),
		res("a", 2, 8, 1, 1),
	}, "By End, then Start, then Key: every result of [-4,2) before any of [-2,4), keys sorted within each.\n"+
		"kit.SortResults sorts a call's results that way.")
}

// TestGapEventsBelongToNoWindow certifies that with Slide > Size an event in
// a gap between windows is counted nowhere and is not late, yet raises the
// watermark like any event; and that it goes to Late only once the
// watermark has passed its timestamp by more than AllowedLateness (Flink's
// isElementLate).
func TestGapEventsBelongToNoWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SlidingConfig{Size: 5, Slide: 10})
	r.Expect("Process(e1 a@2)", r.Process(ev("e1", "a", 2, 1)), nil, "[0,5) is open.")
	r.Expect("Process(e2 b@7)", r.Process(ev("e2", "b", 7, 1)), []kit.Result{res("a", 0, 5, 1, 1)},
		"ts 7 falls between [0,5) and [10,15): no window counts it, but it raises the watermark to 7, past\n"+
			"the end of [0,5), which fires. A source's watermark comes from every event, in a window or not.")
	r.ExpectLate(nil, "An event in a gap is not late: no window of it has expired, it simply has none.")
	r.ProcessAll(ev("e3", "c", 6, 1), ev("e4", "c", 7, 1))
	r.ExpectLate([]kit.Event{ev("e3", "c", 6, 1)},
		"The watermark is 7. c@6 falls in a gap and the watermark has passed it (7 > 6 + AllowedLateness 0): it is\n"+
			"late, as in Flink (isElementLate). c@7 is not: 7 > 7 is false.")
	r.Advance(50)
	r.Expect("Process(e2 b@7) again", r.Process(ev("e2", "b", 7, 1)), nil, "A redelivery: e2 was seen, though no window counted it.")
	r.ExpectLate([]kit.Event{ev("e3", "c", 6, 1)},
		"The watermark is now past b@7, but e2 is a redelivery: its ID was remembered when it first arrived, in a\n"+
			"gap or not, so it is a no-op, never late.")
	r.Expect("Flush()", r.Flush(), nil, "No event was counted in any window after [0,5).")
}
