//go:build lab || solution

package sliding

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestAssignMatchesFlink certifies that AssignSlidingWindows lists the
// windows Flink's SlidingEventTimeWindows.assignWindows gives, latest start
// first: negative timestamps floored, size % slide != 0, Slide == Size and
// the gaps of Slide > Size.
func TestAssignMatchesFlink(t *testing.T) {
	defer suite.Recover(t)
	cases := []struct {
		name            string
		ts, size, slide int64
		want            []int64
		why             string
	}{
		{"start of a slide", 0, 10, 5, []int64{0, -5}, "ts 0 is in [0,10) and [-5,5)"},
		{"inside a slide", 4, 10, 5, []int64{0, -5}, "ts 4 is in [0,10) and [-5,5)"},
		{"ts on a window start", 5, 10, 5, []int64{5, 0}, "ts 5 opens [5,15); [-5,5) ends at 5, exclusive"},
		{"last ms of a slide", 9, 10, 5, []int64{5, 0}, "ts 9 is in [5,15) and [0,10)"},
		{"negative ts", -1, 10, 5, []int64{-5, -10}, "-1 floors to -5, not to 0: Go's % truncates (-1 % 5 == -1)"},
		{"negative ts on a start", -5, 10, 5, []int64{-5, -10}, "ts -5 opens [-5,5)"},
		{"negative ts past a start", -6, 10, 5, []int64{-10, -15}, "-6 floors to -10"},
		{"size % slide != 0, four windows", 0, 10, 3, []int64{0, -3, -6, -9}, "ts 0 is in every window starting in (-10, 0]: 0, -3, -6, -9"},
		{"size % slide != 0, three windows", 1, 10, 3, []int64{0, -3, -6}, "[-9,1) ends at 1, exclusive: only three windows hold ts 1"},
		{"size % slide != 0, four again", 3, 10, 3, []int64{3, 0, -3, -6}, "ts 3 opens [3,13), and [-6,4) still holds it"},
		{"size % slide != 0, negative", -1, 10, 3, []int64{-3, -6, -9}, "-1 floors to -3; [-12,-2) ends before -1"},
		{"size % slide != 0, negative on a start", -3, 10, 3, []int64{-3, -6, -9, -12}, "ts -3 opens [-3,7) and [-12,-2) still holds it"},
		{"slide == size is tumbling", 7, 10, 10, []int64{0}, "one window, AssignWindow's"},
		{"slide == size, negative", -1, 10, 10, []int64{-10}, "tumbling [-10,0)"},
		{"slide 1", 0, 3, 1, []int64{0, -1, -2}, "one window per ms of size"},
		{"slide > size, in a window", 3, 5, 10, []int64{0}, "windows [0,5), [10,15), …: ts 3 is in [0,5)"},
		{"slide > size, in a gap", 7, 5, 10, nil, "ts 7 falls between [0,5) and [10,15): no window holds it"},
		{"slide > size, negative gap", -3, 5, 10, nil, "ts -3 falls between [-10,-5) and [0,5)"},
		{"far from zero", 1 << 62, 10, 5, []int64{1<<62 - 4, 1<<62 - 9}, "2^62 % 5 == 4: the multiples of 5 in (2^62 − 10, 2^62]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			want := c.want
			got := AssignSlidingWindows(c.ts, c.size, c.slide)
			if !slices.Equal(got, want) {
				t.Errorf("AssignSlidingWindows(%d, %d, %d) = %v, want %v (window starts, latest first)\n%s\n"+
					"Flink: lastStart = ts − ((ts − offset) %% slide), the remainder made non-negative; then every\n"+
					"start from lastStart down, one slide at a time, while start > ts − size.",
					c.ts, c.size, c.slide, got, want, c.why)
			}
		})
	}
}

// TestAssignListsEveryWindowOnce certifies that for seeded timestamps,
// sizes and slides, AssignSlidingWindows lists exactly the multiples s of
// slide with ts − size < s ≤ ts, latest first, each once: ⌈size/slide⌉ or
// ⌊size/slide⌋ of them when size % slide != 0, depending on where ts falls.
func TestAssignListsEveryWindowOnce(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	for range 3000 {
		slide := 1 + r.Int64N(20)
		size := 1 + r.Int64N(60)
		ts := r.Int64N(2000) - 1000
		if r.IntN(10) == 0 {
			ts = r.Int64N(1<<62) - 1<<61
		}
		want := windowsOf(ts, size, slide)
		got := AssignSlidingWindows(ts, size, slide)
		if !slices.Equal(got, want) {
			t.Fatalf("AssignSlidingWindows(%d, %d, %d) = %v, want %v\n"+
				"Each window [s, s+size) with s a multiple of %d that holds %d, latest first: %d windows here\n"+
				"(size/slide = %d/%d: an event is in the floor or the ceiling of that, depending on where it falls).",
				ts, size, slide, got, want, slide, ts, len(want), size, slide)
		}
	}
}

// TestAssignNeverWraps certifies that near math.MinInt64 AssignSlidingWindows
// lists the windows whose start fits in an int64 and stops there: neither
// ts − size nor start − slide may wrap around to the top of the range.
func TestAssignNeverWraps(t *testing.T) {
	defer suite.Recover(t)
	cases := []struct{ ts, size, slide int64 }{
		{math.MinInt64 + 3, 10, 5},
		{math.MinInt64, 10, 5},
		{math.MinInt64 + 12, 10, 3},
		{math.MinInt64 + 1, math.MaxInt64, 1 << 61},
		{-1, math.MaxInt64, 1 << 62},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("ts=%d size=%d slide=%d", c.ts, c.size, c.slide), func(t *testing.T) {
			defer suite.Recover(t)
			want := windowsOf(c.ts, c.size, c.slide)
			got := AssignSlidingWindows(c.ts, c.size, c.slide)
			if !slices.Equal(got, want) {
				t.Errorf("AssignSlidingWindows(%d, %d, %d) = %v, want %v\n"+
					"Near math.MinInt64, ts − size underflows and start − slide wraps to the top of the range: a\n"+
					"window that would start below math.MinInt64 does not exist, and the ones that do must all be listed.",
					c.ts, c.size, c.slide, got, want)
			}
		})
	}
}
