package kit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Timeline is a small text picture of an event-time run: events by key on
// an event-time axis (labelled with their arrival order), the watermark,
// each tumbling window with its state, what was emitted and what went to the
// side output. Failing event-time tests print one, so that a learner sees
// what happened instead of only two unequal slices.
//
// A Timeline is a plain value: fill in what you know and call String.
type Timeline struct {
	WindowSize int64    // size of the tumbling windows to draw; 0 draws none
	Lateness   int64    // allowed lateness, to tell fired windows from expired ones
	Events     []Event  // the input in arrival order
	Watermark  int64    // the watermark at the end; math.MinInt64 means none yet
	Results    []Result // what was emitted, in emission order
	Late       []Event  // the side output
}

const (
	timelineWidth   = 60 // columns of the event-time axis
	timelineMaxList = 24 // events, windows or results listed before "… N more"
)

// String renders the timeline. The first row is the axis; each key row marks
// an event at its timestamp with its arrival number (1–9, then a–z, then
// '•'), so "a  3 1" reads "the third arrival was earlier than the first".
func (t Timeline) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timeline: %d events", len(t.Events))
	if t.WindowSize > 0 {
		fmt.Fprintf(&b, ", window size %d", t.WindowSize)
	}
	if t.Lateness > 0 {
		fmt.Fprintf(&b, ", allowed lateness %d", t.Lateness)
	}
	fmt.Fprintf(&b, ", watermark %s\n", FormatWatermark(t.Watermark))
	if len(t.Events) == 0 {
		b.WriteString("  (no events)\n")
		return b.String()
	}

	lo, hi := t.span()
	scale := max(1, (hi-lo+timelineWidth-1)/timelineWidth) // ms per column
	col := func(ts int64) int { return int((ts - lo) / scale) }
	cols := col(hi) + 1

	// Axis: a tick label at each window boundary (or every 15 columns) that fits.
	axis := []byte(strings.Repeat(" ", cols+12))
	step := t.WindowSize
	if step <= 0 || step/scale < 6 {
		step = 15 * scale
	}
	for ts := lo; ts <= hi; ts += step {
		label := fmt.Sprint(ts)
		c := col(ts)
		if c+len(label) <= len(axis) && strings.TrimSpace(string(axis[max(0, c-1):c+len(label)])) == "" {
			copy(axis[c:], label)
		}
	}
	fmt.Fprintf(&b, "  %-11s %s\n", "event time", strings.TrimRight(string(axis), " "))

	// One row per key, events marked by arrival number.
	var keys []string
	rows := map[string][]rune{}
	for i, e := range t.Events {
		row, ok := rows[e.Key]
		if !ok {
			keys = append(keys, e.Key)
			row = []rune(strings.Repeat("·", cols))
		}
		c := col(e.TS)
		if row[c] == '·' {
			row[c] = arrivalMark(i)
		} else {
			row[c] = '•' // two events share a column
		}
		rows[e.Key] = row
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-11s %s\n", "key "+k, string(rows[k]))
	}

	if t.Watermark != math.MinInt64 {
		switch {
		case t.Watermark < lo:
			fmt.Fprintf(&b, "  %-11s ▲ %s (before the first event)\n", "watermark", FormatWatermark(t.Watermark))
		default:
			c := min(col(min(t.Watermark, hi)), cols-1)
			fmt.Fprintf(&b, "  %-11s %s▲ %s\n", "watermark", strings.Repeat("═", c), FormatWatermark(t.Watermark))
		}
	} else {
		fmt.Fprintf(&b, "  %-11s none yet\n", "watermark")
	}

	if t.WindowSize > 0 {
		var ws []string
		for _, w := range t.windows() {
			ws = append(ws, fmt.Sprintf("[%d,%d) %s", w[0], w[1], t.windowState(w[0], w[1])))
		}
		writeList(&b, "windows", ws)
	}

	arrivals := make([]string, len(t.Events))
	for i, e := range t.Events {
		arrivals[i] = fmt.Sprintf("%c:%s", arrivalMark(i), e)
	}
	writeList(&b, "arrivals", arrivals)
	writeList(&b, "emitted", stringsOf(t.Results))
	writeList(&b, "late", stringsOf(t.Late))
	return b.String()
}

// span returns the event-time range to draw: from the first window start
// (or smallest timestamp) to the last window end, widened to include the
// watermark when it falls just past the events.
func (t Timeline) span() (lo, hi int64) {
	lo, hi = t.Events[0].TS, t.Events[0].TS
	for _, e := range t.Events {
		lo, hi = min(lo, e.TS), max(hi, e.TS)
	}
	if t.WindowSize > 0 {
		lo = windowStart(lo, t.WindowSize)
		hi = windowStart(hi, t.WindowSize) + t.WindowSize
	}
	if t.Watermark > hi && t.Watermark <= hi+(hi-lo)/2 { // no overflow: hi+(hi-lo)/2 < MaxInt64 here
		hi = t.Watermark
	}
	return lo, hi
}

// windows returns the distinct tumbling windows of the events, in order.
func (t Timeline) windows() [][2]int64 {
	var ws [][2]int64
	for _, e := range t.Events {
		s := windowStart(e.TS, t.WindowSize)
		w := [2]int64{s, s + t.WindowSize}
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return ws
}

func (t Timeline) windowState(start, end int64) string {
	fired := slices.ContainsFunc(t.Results, func(r Result) bool { return r.Start == start && r.End == end })
	switch {
	case t.Watermark != math.MinInt64 && t.Watermark >= end+t.Lateness && fired:
		return "fired, expired"
	case t.Watermark != math.MinInt64 && t.Watermark >= end+t.Lateness:
		return "expired, never fired"
	case fired:
		return "fired"
	case t.Watermark != math.MinInt64 && t.Watermark >= end:
		return "due, not fired" // the watermark passed its end, yet no result: a bug, or a window still to fire
	}
	return "open"
}

// windowStart floors ts to a multiple of size, negative timestamps included.
func windowStart(ts, size int64) int64 {
	r := ts % size
	if r < 0 {
		r += size
	}
	return ts - r
}

func arrivalMark(i int) rune {
	const marks = "123456789abcdefghijklmnopqrstuvwxyz"
	if i < len(marks) {
		return rune(marks[i])
	}
	return '•'
}

// FormatWatermark renders a watermark for people: its value, or what the
// two extremes mean (MinInt64: none yet; MaxInt64: end of input).
func FormatWatermark(wm int64) string {
	switch wm {
	case math.MinInt64:
		return "none (MinInt64)"
	case math.MaxInt64:
		return "MaxInt64 (end of input)"
	}
	return fmt.Sprint(wm)
}

func stringsOf[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// writeList writes a labelled, wrapped list, at most timelineMaxList items.
func writeList(b *strings.Builder, label string, items []string) {
	if len(items) == 0 {
		fmt.Fprintf(b, "  %-11s (none)\n", label)
		return
	}
	more := len(items) - timelineMaxList
	if more > 0 {
		items = append(items[:timelineMaxList:timelineMaxList], fmt.Sprintf("… %d more", more))
	}
	line := ""
	for _, it := range items {
		if line != "" && len(line)+len(it) > 90 {
			fmt.Fprintf(b, "  %-11s %s\n", label, line)
			label, line = "", ""
		}
		if line != "" {
			line += " │ "
		}
		line += it
	}
	fmt.Fprintf(b, "  %-11s %s\n", label, line)
}
