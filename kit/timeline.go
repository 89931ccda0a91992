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
// With Gap set (and WindowSize 0) it draws session windows instead (stage
// 08): under each key's events, a bar [start,end) for each session those
// events form (the events not in Late, each ID once, merged while at most
// Gap apart), with its state: fired (downstream holds exactly it, summing
// Results per (Key, Start, End)), open, due or expired, and, when it is
// not held as it is, what downstream holds within it; and it lists the
// retractions among the Results. The sessions are drawn from the events
// alone: where a session expired before a later event of its key arrived,
// the picture merges what the processor rightly kept apart, and the held
// rows tell the difference.
//
// A Timeline is a plain value: fill in what you know and call String.
type Timeline struct {
	WindowSize int64    // size of the tumbling windows to draw; 0 draws none
	Gap        int64    // session gap: > 0 (with WindowSize 0) draws session windows
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
	if t.sessionMode() {
		fmt.Fprintf(&b, ", session gap %d", t.Gap)
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
		if ts > math.MaxInt64-step {
			break // the next tick would overflow
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
	var sessions map[string][]Result
	if t.sessionMode() {
		sessions = t.sessions()
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-11s %s\n", "key "+ShowString(k), string(rows[k]))
		if t.sessionMode() {
			fmt.Fprintf(&b, "  %-11s %s\n", " sessions", t.sessionBars(sessions[k], cols, col))
		}
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
	if t.sessionMode() {
		held := t.held()
		var ss []string
		for _, k := range keys {
			for _, x := range sessions[k] {
				item := fmt.Sprintf("%s %s", x, t.sessionState(x, held))
				if !held[x] {
					if in := heldWithin(held, x); len(in) > 0 {
						item += "; downstream holds " + strings.Join(stringsOf(in), ", ")
					}
				}
				ss = append(ss, item)
			}
		}
		writeList(&b, "sessions", ss)
		var retracted []Result
		for _, r := range t.Results {
			if r.Count < 0 {
				retracted = append(retracted, r)
			}
		}
		writeList(&b, "retracted", stringsOf(retracted))
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
	if t.sessionMode() {
		for _, e := range t.Events {
			hi = max(hi, plusSaturating(e.TS, t.Gap))
		}
		for _, r := range t.Results {
			lo, hi = min(lo, r.Start), max(hi, r.End)
		}
	}
	if t.Watermark > hi && t.Watermark <= hi+(hi-lo)/2 { // no overflow: hi+(hi-lo)/2 < MaxInt64 here
		hi = t.Watermark
	}
	return lo, hi
}

func (t Timeline) sessionMode() bool { return t.Gap > 0 && t.WindowSize <= 0 }

// sessions returns, by key, the sessions the events form: every event not
// in Late, each ID once, merged while at most Gap apart (windows [ts,
// ts+Gap) that intersect or touch), in start order.
func (t Timeline) sessions() map[string][]Result {
	late := map[string]bool{}
	for _, e := range t.Late {
		late[e.ID] = true
	}
	seen := map[string]bool{}
	byKey := map[string][]Event{}
	for _, e := range t.Events {
		if !seen[e.ID] && !late[e.ID] {
			seen[e.ID] = true
			byKey[e.Key] = append(byKey[e.Key], e)
		}
	}
	out := map[string][]Result{}
	for key, es := range byKey {
		slices.SortStableFunc(es, func(a, b Event) int { return cmp.Compare(a.TS, b.TS) })
		var cur *Result
		for _, e := range es {
			end := plusSaturating(e.TS, t.Gap)
			if cur == nil || e.TS > cur.End {
				out[key] = append(out[key], Result{Key: key, Start: e.TS})
				cur = &out[key][len(out[key])-1]
			}
			cur.End = max(cur.End, end)
			cur.Count++
			cur.Sum += e.Value
		}
	}
	return out
}

// held returns what a downstream that sums Count and Sum per (Key, Start,
// End) holds after the Results, zero rows dropped.
func (t Timeline) held() map[Result]bool {
	type row struct {
		key        string
		start, end int64
	}
	sums := map[row][2]int64{}
	for _, r := range t.Results {
		k := row{r.Key, r.Start, r.End}
		s := sums[k]
		sums[k] = [2]int64{s[0] + r.Count, s[1] + r.Sum}
	}
	out := map[Result]bool{}
	for k, s := range sums {
		if s[0] != 0 {
			out[Result{Key: k.key, Start: k.start, End: k.end, Count: s[0], Sum: s[1]}] = true
		}
	}
	return out
}

func (t Timeline) sessionState(x Result, held map[Result]bool) string {
	has := t.Watermark != math.MinInt64
	expired := has && t.Watermark >= plusSaturating(x.End, max(0, t.Lateness))
	switch {
	case held[x] && expired:
		return "fired, expired"
	case held[x]:
		return "fired"
	case expired:
		return "expired, never fired"
	case has && t.Watermark >= x.End:
		return "due, not fired"
	}
	return "open"
}

// heldWithin returns the rows of held of x's key that overlap x, sorted.
func heldWithin(held map[Result]bool, x Result) []Result {
	var out []Result
	for r := range held {
		if r.Key == x.Key && r.Start < x.End && x.Start < r.End {
			out = append(out, r)
		}
	}
	return SortResults(out)
}

// plusSaturating returns a + b for b ≥ 0, or math.MaxInt64 if that overflows.
func plusSaturating(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// sessionBars draws a key's sessions as bars "[━━━)" on the event-time
// axis: ━ fired, ─ open, ┄ due or expired without a result.
func (t Timeline) sessionBars(xs []Result, cols int, col func(int64) int) string {
	row := []rune(strings.Repeat(" ", cols+1))
	held := t.held()
	for _, x := range xs {
		c0, c1 := col(x.Start), min(col(x.End), cols)
		c1 = max(c1, c0+1)
		fill := '┄'
		switch t.sessionState(x, held) {
		case "fired", "fired, expired":
			fill = '━'
		case "open":
			fill = '─'
		}
		for c := c0 + 1; c < c1; c++ {
			row[c] = fill
		}
		row[c0], row[c1] = '[', ')'
	}
	return strings.TrimRight(string(row), " ")
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
	cleanup := plusSaturating(end, t.Lateness) // a huge lateness must not wrap into "expired"
	switch {
	case t.Watermark != math.MinInt64 && t.Watermark >= cleanup && fired:
		return "fired, expired"
	case t.Watermark != math.MinInt64 && t.Watermark >= cleanup:
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
