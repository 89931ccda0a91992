//go:build lab || solution

package windows

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestAssignWindowFloorsTimestamps certifies that AssignWindow returns the window [start, end) holding ts, start floored to a multiple of size, negative timestamps included.
func TestAssignWindowFloorsTimestamps(t *testing.T) {
	defer suite.Recover(t)
	cases := []struct {
		ts, size   int64
		start, end int64
	}{
		{0, 10, 0, 10},
		{9, 10, 0, 10},
		{10, 10, 10, 20}, // ts == end of [0,10): the next window
		{19, 10, 10, 20},
		{-1, 10, -10, 0},
		{-9, 10, -10, 0},
		{-10, 10, -10, 0}, // a negative multiple of size starts its window
		{-11, 10, -20, -10},
		{1500, 1000, 1000, 2000},
		{-1500, 1000, -2000, -1000},
		{-1000, 1000, -1000, 0},
		{7, 1, 7, 8},
		{-7, 1, -7, -6},
		{123_456_789_012, 60_000, 123_456_780_000, 123_456_840_000},
		{-123_456_789_012, 60_000, -123_456_840_000, -123_456_780_000},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("ts=%d/size=%d", c.ts, c.size), func(t *testing.T) {
			defer suite.Recover(t)
			start, end := AssignWindow(c.ts, c.size)
			if start == c.start && end == c.end {
				return
			}
			why := "a window is [start, end): start ≤ ts < end, start a multiple of size, end = start + size"
			switch {
			case c.ts < 0 && start == c.start+c.size:
				why += ".\nThis is what truncating division gives: Go's / and % round towards zero, so for a negative ts " +
					"ts - ts%size rounds UP. Floor instead: if the remainder is negative, add size (Flink's FLINK-26334 was this bug)"
			case c.ts == end:
				why += ".\nts == end here: the end is exclusive, so an event exactly on a boundary opens the next window"
			}
			t.Errorf("AssignWindow(%d, %d) = [%d, %d), want [%d, %d): %s.", c.ts, c.size, start, end, c.start, c.end, why)
		})
	}
}

// TestBoundaryEventGoesToNextWindow certifies that an event at exactly a window's end is counted in the next window, not in the one it closes.
func TestBoundaryEventGoesToNextWindow(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10})
	r.ProcessAll(ev("e1", "a", 0, 1), ev("e2", "a", 9, 2))
	got := r.Process(ev("e3", "a", 10, 4))
	r.Expect("Process(e3 a@10=4)", got, []kit.Result{res("a", 0, 10, 2, 3)},
		"e3 at ts 10 raises the watermark to 10, the end of [0,10), so that window fires — but without e3:\n"+
			"windows are [start, end), end exclusive, so ts 10 belongs to [10,20)")
	r.Process(ev("e4", "a", 19, 8))
	got = r.Process(ev("e5", "a", 20, 16))
	r.Expect("Process(e5 a@20=16)", got, []kit.Result{res("a", 10, 20, 2, 12)},
		"[10,20) holds e3 (ts 10) and e4 (ts 19); e5 at ts 20 closes it and belongs to [20,30)")
	r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 20, 30, 1, 16)},
		"e5 at ts 20 is the only event of [20,30)")
}

// TestNegativeTimestampsAreFloored certifies that events with negative timestamps are counted in the window whose start is their timestamp rounded down.
func TestNegativeTimestampsAreFloored(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, Config{WindowSize: 10, WatermarkDelay: 100})
	r.ProcessAll(
		ev("e1", "a", -15, 1),
		ev("e2", "a", -11, 2),
		ev("e3", "a", -10, 4),
		ev("e4", "a", -1, 8),
		ev("e5", "a", 0, 16),
		ev("e6", "a", 5, 32),
	)
	r.Flush()
	r.Expect("the whole run", r.Emitted(), []kit.Result{
		res("a", -20, -10, 2, 3),
		res("a", -10, 0, 2, 12),
		res("a", 0, 10, 2, 48),
	}, "-15 and -11 floor to -20, -10 and -1 to -10: -1 is in [-10,0), not in [0,10).\n"+
		"Truncating division (Go's / and %) rounds negative timestamps towards zero, into the wrong window")
}
