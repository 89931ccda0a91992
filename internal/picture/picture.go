// Package picture draws an event-time run as one self-contained HTML page:
// event time across, arrival down. Each event is a mark at its timestamp on
// the row of its arrival (counted, duplicate, a late correction, or sent to
// the side output, each with its own shape and a word, not colour alone);
// windows are bands over their [start, end); the watermark is a line that
// climbs behind the events; each firing is a mark at its window's end on
// the row of the call that returned it. Beside each window the page lists
// the results a test expected and the ones the code returned, with the
// first difference marked.
//
// Failing event-time tests write one (windowtest.Run, through Save) when
// $FLK_PICTURES names a folder; `de test` sets it and prints a link beside
// the text timeline; `de demo --html` draws the demos the same way. The
// page needs no network and no script: it is HTML, inline CSS and SVG.
package picture

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flk-byo/course/kit"
)

// Run is what a picture draws: a run of a processor, call by call.
type Run struct {
	// Title names the run: the test and, for a failure, the call that
	// failed.
	Title string
	// Note is the failure's explanation, or a demo's caption: plain text,
	// shown under the title.
	Note string
	// Windows says which windows the events fall in.
	Windows Windows
	// Steps are the calls in arrival order.
	Steps []Step
	// Late is the side output at the end of the run, in order.
	Late []kit.Event
	// Want is what the test expected the run to emit, in emission order;
	// nil when the test states no expectation over the whole run.
	Want []kit.Result
	// WantWatermark, when HasWantWatermark, is the watermark the test
	// expected after the last step: the page marks it beside the one the
	// code reported.
	WantWatermark    int64
	HasWantWatermark bool
	// WantLate, when HasWantLate, is the side output the test expected at
	// the end of the run, in order: the page marks each event whose fate
	// differs (wanted in the side output and counted, or the other way).
	WantLate    []kit.Event
	HasWantLate bool
	// Time, when set, writes a time (an event's, a window's edges, a
	// watermark) for the page: a drill stamps its events in milliseconds
	// since the epoch and reads them as clock times. TimeText when nil.
	Time func(int64) string
	// Span, when set, writes a length of time (a window's size, the
	// lateness) to match Time: "1h0m0s". The number itself when nil.
	Span func(int64) string
}

// Windows describes the window assigner, as the stage's Config does.
type Windows struct {
	Size     int64 // tumbling (Slide 0) or sliding window size; 0 for sessions
	Slide    int64 // sliding windows' slide; 0 for tumbling windows
	Gap      int64 // session gap; > 0 (with Size 0) for session windows
	Lateness int64 // allowed lateness
}

// Op is what one step of a run did.
type Op string

// The steps a picture knows.
const (
	OpEvent     Op = "event"     // Process(Event)
	OpWatermark Op = "watermark" // AdvanceWatermark: Step.Watermark is the new one
	OpFlush     Op = "flush"     // Flush: end of input
	OpRestore   Op = "restore"   // a snapshot taken and restored between arrivals
	OpIdle      Op = "idle"      // partition Step.Partition went idle
	OpActive    Op = "active"    // partition Step.Partition came back
	OpCall      Op = "call"      // any other call: Step.Label says which
)

// Step is one call of a run.
type Step struct {
	Op    Op
	Event kit.Event // for OpEvent
	// Label, when set, is the row's text in place of the one Op implies:
	// "Observe(1, 40)", "clock +30s", "Current() = 12".
	Label string
	// Partition is the input partition of the step, for runs over several
	// partitions (stage 07); -1 when the run has one.
	Partition int
	// Watermark is the watermark after the step; math.MinInt64 for none.
	Watermark int64
	// Partitions, when set, are each partition's watermark after the step
	// (math.MinInt64: none; Idle marks an idle one).
	Partitions []PartitionMark
	// Emitted is what the call returned, in order.
	Emitted []kit.Result
}

// PartitionMark is one partition's watermark after a step.
type PartitionMark struct {
	Watermark int64
	Idle      bool
}

// Mark is what became of an event, the word the page puts beside it.
type Mark string

// The marks an event can get.
const (
	Counted    Mark = "counted"     // it went into its window(s) on time
	Duplicate  Mark = "duplicate"   // its ID arrived before: at-least-once input
	Correction Mark = "correction"  // late, within the lateness: its call corrected a fired window
	SideOutput Mark = "side output" // too late: it went to the side output
	Bridge     Mark = "bridge"      // a session event that joins two or more sessions of its key into one
)

// Marks returns the mark of each step of r (the zero Mark for steps that
// are not events): an event is a duplicate when its ID arrived earlier, in
// the side output when it is one of r.Late (each late event matched once,
// in order), a bridge when, with session windows, its window [ts, ts+Gap)
// reaches two or more sessions of its key (the card's rule: windows that
// overlap or touch merge), a correction when its call emitted an update,
// and counted otherwise.
func (r Run) Marks() []Mark {
	marks := make([]Mark, len(r.Steps))
	seen := map[string]bool{}
	late := slices.Clone(r.Late)
	sessions := map[string][]Window{} // per key, the sessions the counted events make
	bridges := func(e kit.Event) bool {
		if r.Windows.Gap <= 0 {
			return false
		}
		end := e.TS + r.Windows.Gap
		if e.TS > math.MaxInt64-r.Windows.Gap {
			end = math.MaxInt64
		}
		merged, reached := Window{e.TS, end}, 0
		var keep []Window
		for _, s := range sessions[e.Key] {
			if s.Start <= merged.End && merged.Start <= s.End {
				merged = Window{min(s.Start, merged.Start), max(s.End, merged.End)}
				reached++
				continue
			}
			keep = append(keep, s)
		}
		sessions[e.Key] = append(keep, merged)
		return reached >= 2
	}
	for i, s := range r.Steps {
		if s.Op != OpEvent {
			continue
		}
		e := s.Event
		switch {
		case seen[e.ID]:
			marks[i] = Duplicate
		case takeLate(&late, e):
			marks[i] = SideOutput
		case bridges(e):
			marks[i] = Bridge
		case slices.ContainsFunc(s.Emitted, func(x kit.Result) bool { return x.IsUpdate }):
			marks[i] = Correction
		default:
			marks[i] = Counted
		}
		seen[e.ID] = true
	}
	return marks
}

// LateDiffers returns, for each step of r, whether its event's fate
// differs from the one the test wanted: in r.Late but not in r.WantLate,
// or the other way round (each event matched once, in order). It is all
// false unless r.HasWantLate.
func (r Run) LateDiffers() []bool {
	differs := make([]bool, len(r.Steps))
	if !r.HasWantLate {
		return differs
	}
	late, want := slices.Clone(r.Late), slices.Clone(r.WantLate)
	for i, s := range r.Steps {
		if s.Op == OpEvent {
			differs[i] = takeLate(&late, s.Event) != takeLate(&want, s.Event)
		}
	}
	return differs
}

// takeLate removes the first event of late equal to e and reports whether
// there was one.
func takeLate(late *[]kit.Event, e kit.Event) bool {
	i := slices.Index(*late, e)
	if i < 0 {
		return false
	}
	*late = slices.Delete(*late, i, i+1)
	return true
}

// Got is everything the run emitted, in emission order.
func (r Run) Got() []kit.Result {
	var out []kit.Result
	for _, s := range r.Steps {
		out = append(out, s.Emitted...)
	}
	return out
}

// FirstDifference returns the index in emission order of the first result
// where what the run emitted and r.Want differ, and false when they are
// equal or r.Want is nil.
func (r Run) FirstDifference() (int, bool) {
	if r.Want == nil {
		return 0, false
	}
	got := r.Got()
	n := min(len(got), len(r.Want))
	for i := range n {
		if got[i] != r.Want[i] {
			return i, true
		}
	}
	if len(got) == len(r.Want) {
		return 0, false
	}
	return n, true
}

// Window is a window the page draws: an interval of event time.
type Window struct{ Start, End int64 }

// windows returns the windows to draw, ascending by (Start, End): those of
// every result emitted or wanted and, for tumbling and sliding windows,
// those of every event that is not a duplicate.
func (r Run) windows() []Window {
	set := map[Window]bool{}
	for _, x := range slices.Concat(r.Got(), r.Want) {
		set[Window{x.Start, x.End}] = true
	}
	marks := r.Marks()
	for i, s := range r.Steps {
		if s.Op != OpEvent || marks[i] == Duplicate {
			continue
		}
		for _, w := range r.Windows.assign(s.Event.TS) {
			set[w] = true
		}
	}
	out := make([]Window, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b Window) int {
		if a.Start != b.Start {
			return cmpInt(a.Start, b.Start)
		}
		return cmpInt(a.End, b.End)
	})
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// assign returns the tumbling or sliding windows of ts (none for
// sessions), leaving out any that would pass the ends of the int64 range.
func (w Windows) assign(ts int64) []Window {
	if w.Size <= 0 {
		return nil
	}
	slide := w.Slide
	if slide <= 0 {
		slide = w.Size
	}
	last := ts - mod(ts, slide) // the latest window start at or before ts
	var out []Window
	for start := last; uint64(ts-start) < uint64(w.Size); start -= slide { // ts−start as uint64 cannot wrap: start ≤ ts
		if start > math.MaxInt64-w.Size {
			continue
		}
		out = append(out, Window{start, start + w.Size})
		if start < math.MinInt64+slide {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// mod is the non-negative remainder of a by b > 0.
func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// Env is the environment variable that turns pictures on: the folder a
// failing test writes its page to. `de test` sets it; unset, Save does
// nothing and a test runs exactly as it would without pictures.
const Env = "FLK_PICTURES"

// Enabled reports whether failing tests write pictures (Env is set).
func Enabled() bool { return os.Getenv(Env) != "" }

// Save writes r as a page for test t (a testing.TB) into the folder Env
// names, in a folder named for the test's package (go test runs a test in
// its package's folder), and returns a line to put in the failure message, "picture:
// file:///…/TestName.html"; it returns "" when pictures are off. Each test
// keeps the page of its first failure: a later Save of the same test
// returns the link to that page and writes nothing, so the page matches
// the first message, the one a learner reads first.
func Save(t interface{ Name() string }, r Run) string {
	dir := os.Getenv(Env)
	if dir == "" {
		return ""
	}
	pkg, err := os.Getwd()
	if err != nil {
		return fmt.Sprintf("picture: not drawn: %v", err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(pkg), fileName(t.Name())+".html"))
	if err != nil {
		return fmt.Sprintf("picture: not drawn: %v", err)
	}
	link := "picture: " + (&url.URL{Scheme: "file", Path: abs}).String()
	if _, err := os.Stat(abs); err == nil {
		return link
	}
	if r.Title == "" {
		r.Title = t.Name()
	}
	if err := writePage(abs, r); err != nil {
		return fmt.Sprintf("picture: not drawn: %v", err)
	}
	return link
}

// writePage writes r's page at path through a temporary file and a
// rename: de test runs a stage's race pass beside its first pass, and two
// binaries may draw the same test at once; a reader sees one whole page.
func writePage(path string, r Run) error {
	page, err := HTML(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".page-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, nothing: it has a new name
	if _, err := f.Write(page); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// fileName makes a test's name a file name: subtests' slashes become
// "--", and anything but letters, digits, '-', '_' and '.' becomes '_'.
func fileName(test string) string {
	test = strings.ReplaceAll(test, "/", "--")
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, test)
}
