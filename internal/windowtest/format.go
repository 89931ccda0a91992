package windowtest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/picture"
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

// DiffResults describes how the results a processor returned (got) differ
// from want as multisets: the results missing from got, then the
// unexpected ones, at most 12 of each. It is empty when they hold the same
// results, perhaps in another order (SideBySide shows where the order
// breaks).
func DiffResults(got, want []kit.Result) string {
	return DiffResultsAs(got, want, kit.Result.String)
}

// DiffResultsAs is DiffResults with each result rendered by show, for a
// suite whose results read better another way (stage 08's sessions, with
// times of day).
func DiffResultsAs(got, want []kit.Result, show func(kit.Result) string) string {
	const most = 12
	missing, extra := Unmatched(got, want)
	var b strings.Builder
	list := func(title string, rs []kit.Result) {
		if len(rs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(rs))
		for i, r := range rs {
			if i == most {
				fmt.Fprintf(&b, "  … %d more\n", len(rs)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", show(r))
		}
	}
	list("missing (expected, not returned)", missing)
	list("unexpected (returned, but not expected, or more often than expected)", extra)
	return b.String()
}

// FirstDifference returns the first result where got and want differ,
// position by position: got's, or want's where got has run out. A suite
// focuses its timeline on that result's key and window. ok is false when
// got equals want.
func FirstDifference(got, want []kit.Result) (r kit.Result, ok bool) {
	i := commonPrefix(got, want)
	switch {
	case i < len(got):
		return got[i], true
	case i < len(want):
		return want[i], true
	}
	return kit.Result{}, false
}

// SideBySide shows where got and want first differ, position by position,
// with a few results of context around it, or nothing when they are equal
// or one is empty (DiffResults says it all then). It is what shows an
// order broken when both hold the same results.
func SideBySide(got, want []kit.Result) string {
	if len(got) == 0 || len(want) == 0 || slices.Equal(got, want) {
		return ""
	}
	i := commonPrefix(got, want)
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at position %d:\n", i)
	for j := max(0, i-2); j < i+4 && (j < len(got) || j < len(want)); j++ {
		g, w := "(end)", "(end)"
		if j < len(got) {
			g = got[j].String()
		}
		if j < len(want) {
			w = want[j].String()
		}
		mark := "  "
		if g != w {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "  %s%4d  got %-40s want %s\n", mark, j, g, w)
	}
	return b.String()
}

// commonPrefix returns the length of the longest prefix that a and b share.
func commonPrefix(a, b []kit.Result) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
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
	end, dist, near := picture.Edge(v)
	switch {
	case !near:
		return fmt.Sprint(v)
	case dist == 0:
		return "math." + end
	case end == "MinInt64":
		return fmt.Sprintf("math.MinInt64 + %d", dist)
	}
	return fmt.Sprintf("math.MaxInt64 − %d", dist)
}

// TimeOfDay renders ms, milliseconds since midnight, as the clock reads
// it, "14:03:20", with milliseconds when there are any ("14:03:19.999"):
// the replays of stage 08 and the drills stamp their events that way.
// math.MinInt64 (no time yet, a watermark before any event) is "none".
func TimeOfDay(ms int64) string {
	if ms == math.MinInt64 {
		return "none"
	}
	const second, minute, hour = 1000, 60 * 1000, 60 * 60 * 1000
	s := fmt.Sprintf("%02d:%02d:%02d", ms/hour, ms%hour/minute, ms%minute/second)
	if ms%second != 0 {
		s += fmt.Sprintf(".%03d", ms%second)
	}
	return s
}
