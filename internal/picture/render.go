package picture

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/flk-byo/course/kit"
)

// The page's geometry, in SVG user units (the drawing scales to the page's
// width): a column of step labels, the event-time axis, and a column that
// says what each call returned.
const (
	viewWidth  = 1000.0
	labelRight = 190.0 // right edge of the step labels
	axisLeft   = 210.0
	axisRight  = 690.0
	outLeft    = 705.0 // left edge of the "returned" column
	rowHeight  = 22.0
	laneHeight = 16.0
	axisHeight = 36.0 // the column heads, and the axis's tick labels
	maxSteps   = 400  // steps drawn; a longer run says how many it left out
	maxLines   = 8    // results listed for one call; more are counted
	labelChars = 26   // characters of a step label that fit its column (11.5 px monospace: 6.9 units each)
	outChars   = 41   // characters of a result that fit the "returned" column, in bold
)

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Parse(pageTemplate))

// HTML renders r as a self-contained page: no script, no network.
func HTML(r Run) ([]byte, error) { return Page(r.Title, "", r) }

// Page renders several runs on one self-contained page, each a figure with
// its own title (a demo's runs: before and after a restore, without and
// with idleness); intro is a line under the page's title.
func Page(title, intro string, runs ...Run) ([]byte, error) {
	p := pageView{Title: title, Intro: intro, Many: len(runs) > 1}
	for i, r := range runs {
		v := layout(r)
		v.ID = i + 1
		p.Figures = append(p.Figures, v)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("picture: rendering %q: %w", title, err)
	}
	return b.Bytes(), nil
}

// pageView is what the template draws: one figure per run.
type pageView struct {
	Title, Intro string
	Many         bool
	Figures      []view
}

// view is what the template draws: every coordinate computed here, so
// that the template only places things.
type view struct {
	ID                    int // the figure's number on its page
	Title, Note, Assigner string
	Height                float64
	Lo, Hi                int64 // the time axis's ends, for the browser test
	Ticks                 []tick
	Bands                 []band
	Rows                  []row
	Watermark             line
	PartitionLines        []line
	Table                 []tableRow
	HasWant               bool
	Late                  []string
	HasWantLate           bool
	WantLate              []string
	LateDiffers           bool // the side output is not the wanted one
	Omitted               int
	Summary               string
	WantWM                *wantMark
	Legend                map[string]bool // the marks the page uses, for its legend
}

// wantMark is the watermark a test wanted after the last step.
type wantMark struct {
	X, Y  float64
	Label string
}

type tick struct {
	X      float64
	TS     int64
	Text   string
	Anchor string // text-anchor: labels at the axis's ends stay inside it
}

type band struct {
	X, W, Y, H float64
	LabelX     float64
	LabelY     float64
	// The window's extent in its label's lane: a bracket from X to X+W,
	// so that overlapping windows (sliding, or sessions of several keys)
	// each read in full above the rows.
	BracketY float64
	// LX and LW, when LW > 0, are the allowed lateness after the window's
	// end: it takes late events until the watermark reaches End+Lateness.
	LX, LW      float64
	LateLabel   string
	Start, End  int64
	Label       string
	Open        bool // never fired in the run
	Differs     bool
	Alternating int
}

type row struct {
	Y, MidY   float64
	TextY     float64
	TS        int64
	MarkClass string
	N         int
	Label     string
	Short     string // the arrival number and Label, clipped to the column
	Kind      string // "event", "watermark", …: a CSS class
	Mark      string // an event's Mark, or ""
	X         float64
	HasX      bool
	IDLeft    bool // the ID goes left of the mark
	ID        string
	Title     string
	Fires     []fire
	Outs      []out
	Restore   bool
	// LateDiffers: the event's fate is not the one the test wanted (in
	// the side output or not); LateWhy says which way.
	LateDiffers bool
	LateWhy     string
}

type out struct {
	Text    string
	Short   string // Text clipped to the column
	Y       float64
	Differs bool
}

type fire struct {
	X, Y    float64
	End     int64
	Retract bool // a retraction (Count < 0): drawn hollow
	Differs bool
	Title   string
}

type line struct {
	Path   string
	Label  string
	LabelX float64
	LabelY float64
	Anchor string // the label's text-anchor
	// Idle are the places where a partition's line breaks because it went
	// idle, each labelled.
	Idle []point
}

// point is a labelled place in the drawing.
type point struct {
	X, Y  float64
	Label string
}

type tableRow struct {
	Window    string
	Start     int64
	End       int64
	Want, Got []string
	Status    string
	First     bool
}

// axis maps event time to x between axisLeft and axisRight, in float64:
// the int64 range is wider than any drawing needs to be exact about.
type axis struct{ lo, hi int64 }

func (a axis) x(ts int64) float64 {
	f := (float64(ts) - float64(a.lo)) / (float64(a.hi) - float64(a.lo))
	return round1(axisLeft + math.Max(0, math.Min(1, f))*(axisRight-axisLeft))
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// finite reports whether wm is a watermark the axis can place: neither
// "none" (MinInt64) nor "end of input" (MaxInt64).
func finite(wm int64) bool { return wm != math.MinInt64 && wm != math.MaxInt64 }

func layout(r Run) view {
	tt := texts(TimeText)
	if r.Time != nil {
		tt = r.Time
	}
	v := view{Title: r.Title, Note: r.Note, Assigner: r.Windows.describe(r.Span), HasWant: r.Want != nil}
	steps := r.Steps
	if len(steps) > maxSteps {
		v.Omitted = len(steps) - maxSteps
		steps = steps[:maxSteps]
	}
	marks := r.Marks()
	lateDiffers := r.LateDiffers()
	windows := r.windows()
	ax := span(r, steps, windows)
	v.Lo, v.Hi = ax.lo, ax.hi

	got := r.Got()
	first, differs := r.FirstDifference()
	table, bad := r.table(windows, got, first, differs, tt)
	v.Table = table

	lanes := labelLanes(ax, windows, tt)
	nLanes := 0
	for _, l := range lanes {
		nLanes = max(nLanes, l+1)
	}
	// Each row is a line of text tall, or as many as its call returned
	// results (up to maxLines), so that every result reads in full.
	top := axisHeight + float64(nLanes)*laneHeight + 6
	ys := make([]float64, len(steps)+1)
	ys[0] = top
	for i, s := range steps {
		ys[i+1] = ys[i] + rowHeight*float64(max(1, min(len(s.Emitted), maxLines)))
	}
	rowY := func(i int) float64 { return ys[i] }
	v.Height = ys[len(steps)] + 28

	v.Ticks = ticks(ax, windows, latestFinite(steps), tt)
	v.Bands = bands(ax, r, steps, marks, windows, lanes, bad, rowY, tt)

	emitted := 0 // index in emission order of the next result
	combined := staircase{ax: ax}
	var parts []*staircase
	for i, s := range steps {
		y, mid := ys[i], ys[i]+rowHeight/2
		rw := row{Y: y, MidY: mid, TextY: mid + 4, N: i + 1, Kind: string(s.Op), Label: tt.step(s)}
		rw.Short = clip(fmt.Sprintf("%d  %s", i+1, rw.Label), labelChars)
		if s.Op == OpEvent {
			rw.Mark = string(marks[i])
			rw.MarkClass = "ev-" + strings.ReplaceAll(rw.Mark, " ", "-")
			rw.TS = s.Event.TS
			rw.X, rw.HasX = ax.x(s.Event.TS), true
			rw.IDLeft = rw.X > axisRight-50 // keep the ID off the "returned" column
			rw.ID = kit.ShowString(s.Event.ID)
			rw.Title = fmt.Sprintf("arrival %d: %s, %s", i+1, tt.event(s.Event), marks[i])
			if lateDiffers[i] {
				rw.LateDiffers, rw.LateWhy = true, "wanted in the side output"
				if marks[i] == SideOutput {
					rw.LateWhy = "not wanted in the side output"
				}
				rw.Title += ": " + rw.LateWhy
			}
		}
		rw.Restore = s.Op == OpRestore
		for k, x := range s.Emitted {
			d := differs && emitted == first
			if k < maxLines {
				o := out{Text: tt.result(x), Y: mid + 4 + float64(k)*rowHeight, Differs: d}
				o.Short = clip(o.Text, outChars)
				if d {
					o.Short = "≠ " + clip(o.Text, outChars-2)
				}
				if k == maxLines-1 && len(s.Emitted) > maxLines {
					o.Text = fmt.Sprintf("… and %d more", len(s.Emitted)-k)
					o.Short = o.Text
				}
				rw.Outs = append(rw.Outs, o)
			}
			rw.Fires = append(rw.Fires, fire{X: ax.x(x.End), Y: mid, End: x.End, Differs: d, Retract: x.Count < 0, Title: fmt.Sprintf("arrival %d returned %s", i+1, tt.result(x))})
			emitted++
		}
		if differs && first >= len(got) && i == len(steps)-1 {
			// The run ended short of what was wanted.
			rw.Outs = append(rw.Outs, out{Text: "(nothing more)", Short: "≠ (nothing more)", Y: mid + 4 + float64(len(rw.Outs))*rowHeight, Differs: true})
		}
		if rw.HasX && !rw.IDLeft && slices.ContainsFunc(rw.Fires, func(f fire) bool { return f.X > rw.X && f.X-rw.X < 12+float64(len(rw.ID))*6.9 }) {
			rw.IDLeft = true // a firing on the same row, just right of the event, would cover its ID
		}
		v.Rows = append(v.Rows, rw)

		combined.step(s.Watermark, false, y, ys[i+1])
		for p, m := range s.Partitions {
			for len(parts) <= p {
				parts = append(parts, &staircase{ax: ax, name: fmt.Sprintf("p%d", p)})
			}
			parts[p].step(m.Watermark, m.Idle, y, ys[i+1])
		}
	}
	if d := combined.path(); d != "" {
		// The label sits under the line's last place, where a reader's
		// eye ends: the watermark the run finished at.
		last := steps[len(steps)-1].Watermark
		v.Watermark = line{Path: d, Label: "watermark " + tt.watermark(last), LabelX: combined.lastX, LabelY: v.Height - 8, Anchor: anchorAt(combined.lastX)}
	}
	for p, sc := range parts {
		if d := sc.path(); d != "" {
			v.PartitionLines = append(v.PartitionLines, line{Path: d, Label: fmt.Sprintf("p%d", p), LabelX: sc.firstX - 3, LabelY: sc.firstY + 10, Idle: sc.idle})
		}
	}
	if r.HasWantWatermark && len(steps) > 0 && v.Omitted == 0 {
		x := float64(axisRight)
		if finite(r.WantWatermark) {
			x = ax.x(r.WantWatermark)
		}
		v.WantWM = &wantMark{X: x, Y: ys[len(steps)-1] + rowHeight/2, Label: "wanted " + tt.watermark(r.WantWatermark)}
	}
	for _, e := range r.Late {
		v.Late = append(v.Late, tt.event(e))
	}
	if r.HasWantLate {
		v.HasWantLate = true
		for _, e := range r.WantLate {
			v.WantLate = append(v.WantLate, tt.event(e))
		}
		v.LateDiffers = !slices.Equal(r.Late, r.WantLate)
	}
	v.Summary = summary(r, marks, got, differs, tt)
	v.Legend = map[string]bool{"fires": slices.ContainsFunc(got, func(x kit.Result) bool { return x.Count >= 0 }),
		"retracts": slices.ContainsFunc(got, func(x kit.Result) bool { return x.Count < 0 }), "partitions": len(v.PartitionLines) > 0,
		"differs":  differs || slices.Contains(lateDiffers, true),
		"lateness": slices.ContainsFunc(v.Bands, func(b band) bool { return b.LW > 0 })}
	for _, m := range marks {
		v.Legend[string(m)] = true
	}
	return v
}

// latestFinite is the largest finite watermark of steps, or MinInt64.
func latestFinite(steps []Step) int64 {
	wm := int64(math.MinInt64)
	for _, s := range steps {
		if finite(s.Watermark) {
			wm = max(wm, s.Watermark)
		}
	}
	return wm
}

// staircase draws a watermark after each call: a vertical stroke at its
// value across the call's row, a horizontal one where it moves between
// rows, and a break where there is none (MinInt64) or the partition is
// idle. MaxInt64 is drawn at the axis's right end.
type staircase struct {
	ax             axis
	name           string // a partition's, for its idle marks
	b              strings.Builder
	on             bool
	drawn          bool
	firstX, firstY float64 // where the line begins, for its label
	lastX          float64 // where it is now
	idle           []point // where it broke because the partition went idle
}

func (s *staircase) step(wm int64, idle bool, y0, y1 float64) {
	if idle || wm == math.MinInt64 {
		if idle && s.on {
			s.idle = append(s.idle, point{X: s.lastX, Y: y0, Label: s.name + " idle"})
		}
		s.on = false
		return
	}
	x := float64(axisRight)
	if finite(wm) {
		x = s.ax.x(wm)
	}
	if s.on {
		fmt.Fprintf(&s.b, " H%s V%s", num(x), num(y1))
	} else {
		fmt.Fprintf(&s.b, " M%s %s V%s", num(x), num(y0), num(y1))
	}
	if !s.drawn {
		s.firstX, s.firstY = x, y0
	}
	s.on, s.drawn, s.lastX = true, true, x
}

// anchorAt is the text-anchor that keeps a label placed at x inside the
// time axis.
func anchorAt(x float64) string {
	switch {
	case x < axisLeft+60:
		return "start"
	case x > axisRight-60:
		return "end"
	}
	return "middle"
}

func (s *staircase) path() string { return strings.TrimSpace(s.b.String()) }

func num(f float64) string { return strconv.FormatFloat(round1(f), 'f', -1, 64) }

// span returns the axis: from the earliest to the latest time the picture
// places (event timestamps, window edges, finite watermarks), with a
// little room on either side when the int64 range allows it.
func span(r Run, steps []Step, windows []Window) axis {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	see := func(ts int64) { lo, hi = min(lo, ts), max(hi, ts) }
	for _, s := range steps {
		if s.Op == OpEvent {
			see(s.Event.TS)
		}
		if finite(s.Watermark) {
			see(s.Watermark)
		}
	}
	for _, w := range windows {
		see(w.Start)
		see(w.End)
	}
	if lo > hi {
		return axis{0, 1}
	}
	// The allowed lateness after the last window's end, when it does not
	// squeeze the rest of the picture: up to half again as wide.
	if l := r.Windows.Lateness; l > 0 && len(windows) > 0 {
		end := windows[0].End
		for _, w := range windows {
			end = max(end, w.End)
		}
		if end <= math.MaxInt64-l && float64(l) <= (float64(hi)-float64(lo))/2 {
			see(end + l)
		}
	}
	pad := int64(float64(hi)/40 - float64(lo)/40) // a 40th of the span, without overflow
	if lo >= math.MinInt64+pad {
		lo -= pad
	}
	if hi <= math.MaxInt64-pad {
		hi += pad
	}
	if lo == hi {
		if hi < math.MaxInt64 {
			hi++
		} else {
			lo--
		}
	}
	return axis{lo, hi}
}

// labelLanes gives each window's label, and the bracket under it that
// spans the window, a lane above the axis such that nothing in a lane
// overlaps.
func labelLanes(ax axis, windows []Window, tt texts) []int {
	var ends []float64 // per lane, the x where its last label ends
	lanes := make([]int, len(windows))
	for i, w := range windows {
		x := ax.x(w.Start)
		width := max(float64(len(tt.window(w)))*6.2+6, ax.x(w.End)-x+2)
		lane := 0
		for lane < len(ends) && ends[lane] > x {
			lane++
		}
		if lane == len(ends) {
			ends = append(ends, 0)
		}
		ends[lane] = x + width
		lanes[i] = lane
	}
	return lanes
}

// texts writes times, windows, events and results for a page, with its
// run's time format (Run.Time, or TimeText).
type texts func(int64) string

func (tt texts) window(w Window) string { return "[" + tt(w.Start) + "," + tt(w.End) + ")" }

// watermark is kit.FormatWatermark with the page's times.
func (tt texts) watermark(wm int64) string {
	if finite(wm) {
		return tt(wm)
	}
	return kit.FormatWatermark(wm)
}

// event is kit.Event.String with the page's times: "e7 a@4=1".
func (tt texts) event(e kit.Event) string {
	return fmt.Sprintf("%s %s@%s=%d", kit.ShowString(e.ID), kit.ShowString(e.Key), tt(e.TS), e.Value)
}

// ticks labels the axis at the window edges when there are a few (and at
// wm, the latest finite watermark, when it is past them all), and at round
// times otherwise; an axis left with fewer than two labels (the
// edges of the int64 range, say) is labelled at its ends.
func ticks(ax axis, windows []Window, wm int64, tt texts) []tick {
	var out []tick
	lastX := math.Inf(-1)
	add := func(ts int64) {
		x := ax.x(ts)
		label := tt(ts)
		if x-lastX < float64(len(label))*6.2+8 {
			return
		}
		t := tick{X: x, TS: ts, Text: label, Anchor: "middle"}
		switch w := float64(len(label)) * 6.2 / 2; {
		case x-w < axisLeft-10:
			t.Anchor = "start"
		case x+w > axisRight+10:
			t.Anchor = "end"
		}
		out = append(out, t)
		lastX = x
	}
	var edges []int64
	for _, w := range windows {
		edges = append(edges, w.Start, w.End)
	}
	edges = sortedUnique(edges)
	if len(edges) >= 2 && len(edges) <= 24 {
		for _, ts := range edges {
			add(ts)
		}
		if wm > edges[len(edges)-1] {
			add(wm) // the watermark has run past every window
		}
	} else {
		step := niceStep(ax.hi/6 - ax.lo/6)
		first := ax.lo / step * step // truncated toward zero: no overflow
		if first < ax.lo {
			first += step
		}
		for ts := first; ts <= ax.hi; ts += step {
			add(ts)
			if ts > math.MaxInt64-step {
				break
			}
		}
	}
	if len(out) < 2 {
		out, lastX = nil, math.Inf(-1)
		add(ax.lo)
		add(ax.hi)
	}
	return out
}

// TimeText writes a time for a drawing, by default: near an end of the
// int64 range relative to it ("MinInt64+10", "MaxInt64−1"), as it is
// otherwise. (windowtest.NearEdge says the same in a failure message's
// longer form.)
func TimeText(ts int64) string {
	end, dist, near := Edge(ts)
	switch {
	case !near:
		return strconv.FormatInt(ts, 10)
	case dist == 0:
		return end
	case end == "MinInt64":
		return fmt.Sprintf("MinInt64+%d", dist)
	}
	return fmt.Sprintf("MaxInt64−%d", dist)
}

// Edge says whether ts is near an end of the int64 range (within 2^20 of
// it), which end ("MinInt64" or "MaxInt64"), and how far from it: a time
// there reads better as that end and a distance than as 19 digits.
func Edge(ts int64) (end string, dist uint64, near bool) {
	const within = 1 << 20
	switch {
	case ts < math.MinInt64+within:
		return "MinInt64", uint64(ts - math.MinInt64), true
	case ts > math.MaxInt64-within:
		return "MaxInt64", uint64(math.MaxInt64 - ts), true
	}
	return "", 0, false
}

// niceStep returns 1, 2 or 5 times a power of ten, at least d.
func niceStep(d int64) int64 {
	if d < 1 {
		return 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= d || p > math.MaxInt64/50 {
				return m * p
			}
		}
	}
}

func sortedUnique(xs []int64) []int64 {
	set := map[int64]bool{}
	var out []int64
	for _, x := range xs {
		if !set[x] {
			set[x] = true
			out = append(out, x)
		}
	}
	for i := 1; i < len(out); i++ { // insertion sort: a few dozen edges
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// bands draws each window over its interval, from the row where it opens
// (its first event, or the first call that returned it) to the last row
// that returned it, or to the end of the run if it never fired.
func bands(ax axis, r Run, steps []Step, marks []Mark, windows []Window, lanes []int, bad map[Window]bool, rowY func(int) float64, tt texts) []band {
	out := make([]band, 0, len(windows))
	for i, w := range windows {
		open, last := -1, -1
		for j, s := range steps {
			in := s.Op == OpEvent && (marks[j] == Counted || marks[j] == Correction || marks[j] == Bridge) && w.Start <= s.Event.TS && s.Event.TS < w.End
			for _, x := range s.Emitted {
				if x.Start == w.Start && x.End == w.End {
					in, last = true, j
				}
			}
			if in && open < 0 {
				open = j
			}
		}
		if open < 0 {
			// A window that only late events reached (or only the test
			// wanted): from the first call that touched it.
			open = slices.IndexFunc(steps, func(s Step) bool {
				return s.Op == OpEvent && w.Start <= s.Event.TS && s.Event.TS < w.End
			})
		}
		if open < 0 {
			open = 0
		}
		end := last
		if end < 0 {
			end = len(steps) - 1
		}
		x0, x1 := ax.x(w.Start), ax.x(w.End)
		b := band{
			X: x0, W: math.Max(1, round1(x1-x0)), Y: rowY(open) + 1, H: rowY(end+1) - rowY(open) - 2,
			LabelX: x0 + 2, LabelY: axisHeight + float64(lanes[i])*laneHeight + 10,
			Start: w.Start, End: w.End, Label: tt.window(w), Open: last < 0, Differs: bad[w], Alternating: i % 2,
		}
		b.BracketY = b.LabelY + 3
		if l := r.Windows.Lateness; l > 0 {
			cleanup := int64(math.MaxInt64)
			if w.End <= math.MaxInt64-l {
				cleanup = w.End + l
			}
			b.LX = x1
			b.LW = round1(ax.x(cleanup) - x1)
			b.LateLabel = fmt.Sprintf("%s takes late events until the watermark reaches %s (allowed lateness %s)", tt.window(w), tt(cleanup), spanText(r.Span, l))
		}
		out = append(out, b)
	}
	return out
}

// spanText writes a length of time with span, or as a number when nil.
func spanText(span func(int64) string, d int64) string {
	if span == nil {
		return strconv.FormatInt(d, 10)
	}
	return span(d)
}

// table lists each window with what was wanted and what was returned, and
// the windows whose results differ.
func (r Run) table(windows []Window, got []kit.Result, first int, differs bool, tt texts) ([]tableRow, map[Window]bool) {
	var firstWindow Window
	if differs {
		if first < len(got) {
			firstWindow = Window{got[first].Start, got[first].End}
		} else {
			firstWindow = Window{r.Want[first].Start, r.Want[first].End}
		}
	}
	bad := map[Window]bool{}
	var out []tableRow
	for _, w := range windows {
		tr := tableRow{Window: tt.window(w), Start: w.Start, End: w.End}
		tr.Got = tt.resultsIn(got, w)
		if r.Want != nil {
			tr.Want = tt.resultsIn(r.Want, w)
			tr.Status = "same"
			if strings.Join(tr.Want, "\n") != strings.Join(tr.Got, "\n") {
				tr.Status, bad[w] = "differs", true
			}
			if differs && w == firstWindow {
				tr.Status, tr.First, bad[w] = tt.first(got, r.Want, first), true, true
			}
		}
		if len(tr.Got) > 0 || len(tr.Want) > 0 {
			out = append(out, tr)
		}
	}
	return out, bad
}

// firstText says what differs at emission i: "first difference, the 7th
// result: returned …, wanted …".
func (tt texts) first(got, want []kit.Result, i int) string {
	g, w := "nothing more", "nothing more"
	if i < len(got) {
		g = tt.result(got[i])
	}
	if i < len(want) {
		w = tt.result(want[i])
	}
	return fmt.Sprintf("first difference, result %d in emission order: returned %s, wanted %s", i+1, g, w)
}

func (tt texts) resultsIn(rs []kit.Result, w Window) []string {
	var out []string
	for _, x := range rs {
		if x.Start == w.Start && x.End == w.End {
			out = append(out, tt.result(x))
		}
	}
	return out
}

// result is a result as the page shows it: "a [0,10) count=2 sum=5",
// with " (update)" for a correction and " (retraction)" for a retraction.
func (tt texts) result(x kit.Result) string {
	s := fmt.Sprintf("%s %s count=%d sum=%d", kit.ShowString(x.Key), tt.window(Window{x.Start, x.End}), x.Count, x.Sum)
	switch {
	case x.Count < 0:
		s += " (retraction)"
	case x.IsUpdate:
		s += " (update)"
	}
	return s
}

func (tt texts) step(s Step) string {
	if s.Label != "" {
		return s.Label
	}
	p := ""
	if s.Partition >= 0 && len(s.Partitions) > 0 {
		p = fmt.Sprintf("p%d ", s.Partition)
	}
	switch s.Op {
	case OpEvent:
		return p + tt.event(s.Event)
	case OpWatermark:
		return "watermark → " + tt.watermark(s.Watermark)
	case OpFlush:
		return "flush (end of input)"
	case OpRestore:
		return "snapshot → restore"
	case OpIdle:
		return p + "goes idle"
	case OpActive:
		return p + "active again"
	}
	return string(s.Op)
}

// String names the assigner: "tumbling windows of 10", "sliding windows
// of 10 every 5", "sessions with gap 5", with the lateness if any.
func (w Windows) String() string { return w.describe(nil) }

// describe is String with span writing the lengths (strconv when nil).
func (w Windows) describe(lengths func(int64) string) string {
	span := func(d int64) string { return spanText(lengths, d) }
	var s string
	switch {
	case w.Size > 0 && w.Slide > 0 && w.Slide != w.Size:
		s = fmt.Sprintf("sliding windows of %s every %s", span(w.Size), span(w.Slide))
	case w.Size > 0:
		s = "tumbling windows of " + span(w.Size)
	case w.Gap > 0:
		s = "session windows with gap " + span(w.Gap)
	default:
		s = "No windows: partitions and their watermarks"
	}
	if w.Lateness > 0 {
		s += ", allowed lateness " + span(w.Lateness)
	}
	return s
}

// summary is one sentence a screen reader (and anyone) reads first.
func summary(r Run, marks []Mark, got []kit.Result, differs bool, tt texts) string {
	n := map[Mark]int{}
	events := 0
	for _, m := range marks {
		if m != "" {
			n[m]++
			events++
		}
	}
	bridges := ""
	if n[Bridge] > 0 {
		bridges = ", " + count(n[Bridge], "bridge")
	}
	s := fmt.Sprintf("%s (%d counted%s, %s, %s, %d to the side output), %s returned",
		count(events, "event"), n[Counted], bridges, count(n[Duplicate], "duplicate"), count(n[Correction], "correction"), n[SideOutput], count(len(got), "result"))
	switch {
	case r.Want == nil:
	case differs:
		s += fmt.Sprintf(", %d wanted: they differ", len(r.Want))
	default:
		s += ", as wanted"
	}
	if r.HasWantLate && !slices.Equal(r.Late, r.WantLate) {
		s += fmt.Sprintf("; the side output holds %s, %d wanted: they differ", count(len(r.Late), "event"), len(r.WantLate))
	}
	if r.HasWantWatermark && len(r.Steps) > 0 {
		s += fmt.Sprintf("; the watermark is %s at the end, %s wanted", tt.watermark(r.Steps[len(r.Steps)-1].Watermark), tt.watermark(r.WantWatermark))
	}
	return s + "."
}

// count says n things: "1 event", "2 events".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// clip shortens s to n characters, ending it with "…" when it cuts; the
// full text stays in the element's title and in the text list below.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
