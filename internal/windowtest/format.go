package windowtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/flk-byo/course/kit"
)

// FmtResults renders results one per line, indented, or "  (nothing)".
func FmtResults(rs []kit.Result) string {
	return FmtResultsUpTo(rs, len(rs))
}

// FmtResultsUpTo renders at most n results one per line, indented, then
// "  … k more" if there are more, or "  (nothing)".
func FmtResultsUpTo(rs []kit.Result, n int) string {
	if len(rs) == 0 {
		return "  (nothing)"
	}
	var lines []string
	for i, r := range rs {
		if i == n {
			lines = append(lines, fmt.Sprintf("  … %d more", len(rs)-i))
			break
		}
		lines = append(lines, "  "+r.String())
	}
	return strings.Join(lines, "\n")
}

// FmtEvents renders events on one line, or "(none)"; past ten it says how
// many more there are.
func FmtEvents(es []kit.Event) string {
	if len(es) == 0 {
		return "(none)"
	}
	var parts []string
	for i, e := range es {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("… %d more", len(es)-i))
			break
		}
		parts = append(parts, e.String())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Unmatched compares got with want as multisets: missing holds the results
// of want that got lacks, in want's order; extra those that got holds
// beyond want (never expected, or more often than expected), in got's
// order. Both are empty when got is want in some order.
func Unmatched(got, want []kit.Result) (missing, extra []kit.Result) {
	count := map[kit.Result]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		if count[r] > 0 {
			count[r]--
			continue
		}
		extra = append(extra, r)
	}
	for _, r := range want {
		if count[r] > 0 {
			count[r]--
			missing = append(missing, r)
		}
	}
	return missing, extra
}

// DiffResults describes how the results a processor emitted (got) differ
// from want: the results missing from got, then the unexpected ones. It is
// empty when they hold the same results, perhaps in another order.
func DiffResults(got, want []kit.Result) string {
	missing, extra := Unmatched(got, want)
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "missing (expected, not emitted):\n%s\n", FmtResults(missing))
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, "unexpected (emitted, but not expected, or more often than expected):\n%s\n", FmtResults(extra))
	}
	return b.String()
}

// FirstDifference returns the window [start, end) of the first result that
// differs between got and want (both sorted), for a focused timeline; ok is
// false if they are equal.
func FirstDifference(got, want []kit.Result) (start, end int64, ok bool) {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return want[i].Start, want[i].End, true
		case i >= len(want), got[i] != want[i]:
			return got[i].Start, got[i].End, true
		}
	}
	return 0, 0, false
}

// OnlyWindow returns the part of tl in window [start, end): the events and
// late events with a timestamp in it and the results of that window, in
// their order, with tl's window size, lateness and watermark.
func OnlyWindow(tl kit.Timeline, start, end int64) kit.Timeline {
	in := func(e kit.Event) bool { return e.TS >= start && e.TS < end }
	out := kit.Timeline{WindowSize: tl.WindowSize, Lateness: tl.Lateness, Watermark: tl.Watermark}
	for _, e := range tl.Events {
		if in(e) {
			out.Events = append(out.Events, e)
		}
	}
	for _, r := range tl.Results {
		if r.Start == start && r.End == end {
			out.Results = append(out.Results, r)
		}
	}
	for _, e := range tl.Late {
		if in(e) {
			out.Late = append(out.Late, e)
		}
	}
	return out
}

// updateHint explains a difference in IsUpdate alone, the easiest one to
// miss when reading two lists of results; it is empty for any other
// difference.
func updateHint(got, want []kit.Result) string {
	if len(got) != len(want) {
		return ""
	}
	for i := range got {
		g, w := got[i], want[i]
		if g == w {
			continue
		}
		g.IsUpdate = w.IsUpdate
		if g != w {
			return ""
		}
	}
	for i := range got {
		if got[i].IsUpdate == want[i].IsUpdate {
			continue
		}
		if want[i].IsUpdate {
			return fmt.Sprintf("\nOnly IsUpdate differs: %v re-emits a (key, window) that was emitted before, so it is an update.", want[i])
		}
		return fmt.Sprintf("\nOnly IsUpdate differs: %v is the FIRST result of its (key, window), and a first result is never an update.", want[i])
	}
	return ""
}

// NearEdge renders v relative to the end of the int64 range it is near,
// "math.MinInt64 + 99" or "math.MaxInt64 − 10", so that a failure at the
// edges reads as the case it is; any other value as it is.
func NearEdge(v int64) string {
	const near = 1 << 20
	switch {
	case v == math.MinInt64:
		return "math.MinInt64"
	case v == math.MaxInt64:
		return "math.MaxInt64"
	case v < math.MinInt64+near:
		return fmt.Sprintf("math.MinInt64 + %d", v-math.MinInt64)
	case v > math.MaxInt64-near:
		return fmt.Sprintf("math.MaxInt64 − %d", math.MaxInt64-v)
	}
	return fmt.Sprint(v)
}
