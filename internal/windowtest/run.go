package windowtest

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/kit"
)

// Run drives one Processor through a hand-written scenario and records what
// went in and what came out, so that a failing check can draw the timeline
// of the whole run. Its methods call the processor's directly: a panic
// there (a skeleton's TODO) reaches the test, where suite.Recover reports
// it. Only drawing the timeline reads Watermark and Late defensively.
type Run struct {
	t          testing.TB
	p          Processor
	size       int64           // Config.WindowSize, for the timeline
	lateness   int64           // Config.AllowedLateness, for the timeline
	events     []kit.Event     // every event handed to Process, in arrival order
	emitted    []kit.Result    // every result returned, in emission order
	restores   []int           // arrivals after which the processor was restored
	lateBefore []kit.Event     // Late() of the processors that Restored replaced
	gap        int64           // session gap, for the timeline (SetWindows)
	windows    picture.Windows // for the picture, when SetWindows said them
	// steps record every call for the picture, with the watermark after
	// it; only when pictures are on (picture.Enabled), so that a run
	// without them calls the processor exactly as the test does.
	steps []picture.Step
}

// NewRun returns a run on p for test t. size and lateness are p's
// Config.WindowSize and Config.AllowedLateness, which the timeline draws.
// A stage binds it to its NewProcessor in one line:
//
//	windowtest.NewRun(t, windowtest.MustNew(t, NewProcessor, cfg), cfg.WindowSize, cfg.AllowedLateness)
func NewRun(t testing.TB, p Processor, size, lateness int64) *Run {
	return &Run{t: t, p: p, size: size, lateness: lateness}
}

// record notes a call for the picture when pictures are on.
func (r *Run) record(op picture.Op, e kit.Event, out []kit.Result) {
	if picture.Enabled() {
		r.steps = append(r.steps, picture.Step{Op: op, Event: e, Partition: -1, Watermark: watermarkOrNone(r.p), Emitted: out})
	}
}

// Process hands e to Process and returns what it returned.
func (r *Run) Process(e kit.Event) []kit.Result {
	r.events = append(r.events, e)
	out := r.p.Process(e)
	r.emitted = append(r.emitted, out...)
	r.record(picture.OpEvent, e, out)
	return out
}

// ProcessAll hands every event to Process, in order, and returns everything
// emitted.
func (r *Run) ProcessAll(events ...kit.Event) []kit.Result {
	var out []kit.Result
	for _, e := range events {
		out = append(out, r.Process(e)...)
	}
	return out
}

// Advance calls AdvanceWatermark(wm) and returns what it returned.
func (r *Run) Advance(wm int64) []kit.Result {
	out := r.p.AdvanceWatermark(wm)
	r.emitted = append(r.emitted, out...)
	r.record(picture.OpWatermark, kit.Event{}, out)
	return out
}

// Flush calls Flush and returns what it returned.
func (r *Run) Flush() []kit.Result {
	out := r.p.Flush()
	r.emitted = append(r.emitted, out...)
	r.record(picture.OpFlush, kit.Event{}, out)
	return out
}

// Apply makes the call o on the processor, as Process, Advance or Flush
// does, and returns what it returned: a run that replays a call sequence
// (RandomOps) records it as a hand-written one does.
func (r *Run) Apply(o Op) []kit.Result { return o.Apply(recorded{r}) }

// recorded is a Run as a Processor, so that Op.Apply's one dispatch over
// the kinds of call serves a run too.
type recorded struct{ *Run }

func (r recorded) AdvanceWatermark(wm int64) []kit.Result { return r.Advance(wm) }

// Watermark returns the processor's Watermark().
func (r *Run) Watermark() int64 { return r.p.Watermark() }

// Late returns the processor's Late(): after Restored, the restored
// processor's side output only.
func (r *Run) Late() []kit.Event { return r.p.Late() }

// Emitted returns every result returned so far, in emission order.
func (r *Run) Emitted() []kit.Result { return r.emitted }

// Restored carries the run on with p, a processor restored from a snapshot
// of the current one (as a job does after a crash): later calls go to p. It
// keeps the current processor's Late() for the timeline, which from then on
// says after which arrival the restore happened and shows the side output
// of every processor of the run, in order.
func (r *Run) Restored(p Processor) { r.RestoredFrom(p, r.p.Late()) }

// RestoredFrom is Restored for a test that let the snapshotted processor
// go on after the snapshot (calls that are not part of the run): late is
// that processor's Late() when the snapshot was taken.
func (r *Run) RestoredFrom(p Processor, late []kit.Event) {
	r.lateBefore = append(r.lateBefore, late...)
	r.restores = append(r.restores, len(r.events))
	r.p = p
	r.record(picture.OpRestore, kit.Event{}, nil)
}

// Timeline draws the run so far, then the lines of more (a stage's own
// view of the run). It reads Watermark and Late, but a panic there (a
// TODO) only blanks that part of the picture. With pictures on, it also
// draws the run as a page and ends with the link; the page has no
// message, so a failure reports through Errorf, Report or Failure, whose
// page shows it, and Timeline serves a message that is no failure.
func (r *Run) Timeline(more ...string) string {
	return r.timeline() + strings.Join(more, "") + r.link("", wants{})
}

// Errorf reports a failed check of the run as t.Errorf does: the message,
// then the run's timeline and, with pictures on, the link to its page,
// which shows the message.
func (r *Run) Errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("%s", r.Report(fmt.Sprintf(format, args...)))
}

// Fatalf is Errorf followed by t.FailNow.
func (r *Run) Fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s", r.Report(fmt.Sprintf(format, args...)))
}

// Report is the message of a failed check of something other than the
// run's results (a watermark, a returned slice's ownership): msg, the
// timeline of the run so far, the lines of more, and with pictures on the
// link to the page, which shows msg. The results are taken as right.
func (r *Run) Report(msg string, more ...string) string {
	return msg + "\n\n" + r.timeline() + strings.Join(more, "") + r.link(msg, wants{})
}

// SessionTimeline draws the run so far as Timeline does, with the session
// windows of gap (kit.Timeline.Gap): for a run of a session processor,
// whose NewRun size is 0.
func (r *Run) SessionTimeline(gap int64) string {
	r.SetWindows(picture.Windows{Gap: gap, Lateness: r.lateness})
	return r.Timeline()
}

// SetWindows says which windows the run's processor assigns, for the
// timeline and the picture, when NewRun's tumbling size does not: session
// windows (Gap) or sliding ones (Size and Slide).
func (r *Run) SetWindows(w picture.Windows) {
	r.windows = w
	if w.Gap > 0 {
		r.gap = w.Gap
	}
}

// Failure is the message of a failed check of got against want: msg, the
// timeline of the run so far, the lines of more, and, with pictures on, the
// link to the run's page. When got is what the run emitted last (the call
// just made, or the whole run), the run should have emitted what came
// before it and then want: the page marks the first difference.
func (r *Run) Failure(msg string, got, want []kit.Result, more ...string) string {
	return msg + "\n\n" + r.timeline() + strings.Join(more, "") + r.Picture(msg, got, want)
}

// Picture is the last line of Failure alone, for a check whose message
// draws a view of its own: with pictures on, the link to the page of the
// run so far, with got and want marked as Failure marks them; "" with
// pictures off. After a check of something other than results (the side
// output, the watermark), got and want are nil: the run's results are
// then taken as right.
func (r *Run) Picture(msg string, got, want []kit.Result) string {
	if !picture.Enabled() {
		return ""
	}
	var wantAll []kit.Result
	if n := len(r.emitted) - len(got); n >= 0 && slices.Equal(r.emitted[n:], got) {
		wantAll = wanted(append(slices.Clone(r.emitted[:n]), want...))
	}
	return r.link(msg, wants{results: wantAll})
}

// wants is what a page marks as wanted beside what the run did.
type wants struct {
	results []kit.Result // what the run should have emitted in all; nil: not stated
	late    []kit.Event  // the side output, when hasLate
	hasLate bool
	wm      int64 // the watermark after the last call, when hasWM
	hasWM   bool
}

// link draws the run as a page for the test (picture.Save) and returns a
// line that links it, or "" when pictures are off. note is the failure's
// message; want is what the test wanted.
func (r *Run) link(note string, want wants) string {
	if !picture.Enabled() {
		return ""
	}
	w := r.windows
	if w == (picture.Windows{}) {
		w = picture.Windows{Size: r.size, Lateness: r.lateness}
	}
	return "\n" + picture.Save(r.t, picture.Run{
		Title:   r.t.Name(),
		Note:    note,
		Windows: w,
		Steps:   r.steps,
		Late:    append(slices.Clone(r.lateBefore), lateOrNone(r.p)...),
		Want:    want.results,

		WantLate: want.late, HasWantLate: want.hasLate,
		WantWatermark: want.wm, HasWantWatermark: want.hasWM,
	})
}

func (r *Run) timeline() string {
	tl := kit.Timeline{
		Gap:        r.gap,
		WindowSize: r.size,
		Lateness:   r.lateness,
		Events:     r.events,
		Watermark:  watermarkOrNone(r.p),
		Results:    r.emitted,
		Late:       append(slices.Clone(r.lateBefore), lateOrNone(r.p)...),
	}.String()
	for i := len(r.restores) - 1; i >= 0; i-- {
		tl = fmt.Sprintf("snapshot taken and restored after arrival %d\n%s", r.restores[i], tl)
	}
	return tl
}

// Expect fails the test unless got equals want (nil and empty are the
// same), naming the call, saying why want is right, pointing out a
// difference in IsUpdate alone, and drawing the run (Failure).
func (r *Run) Expect(call string, got, want []kit.Result, why string) {
	r.t.Helper()
	if slices.Equal(got, want) {
		return
	}
	r.t.Errorf("%s", r.Failure(fmt.Sprintf("%s returned\n%s\nwant\n%s\n%s%s", call, FmtResults(got), FmtResults(want), why, updateHint(got, want)), got, want))
}

// ExpectLate fails the test unless the processor's Late() is exactly want,
// saying why want is right and drawing the run with the lines of more; the
// page rings each event whose fate differs.
func (r *Run) ExpectLate(want []kit.Event, why string, more ...string) {
	r.t.Helper()
	if got := r.p.Late(); !slices.Equal(got, want) {
		msg := fmt.Sprintf("Late() = %s\nwant      %s\n%s", FmtEvents(got), FmtEvents(want), why)
		wantAll := append(slices.Clone(r.lateBefore), want...)
		r.t.Errorf("%s\n\n%s%s%s", msg, r.timeline(), strings.Join(more, ""), r.link(msg, wants{late: wantAll, hasLate: true}))
	}
}

// ExpectWatermark fails the test unless the processor's Watermark() is
// want, saying why and drawing the run with the lines of more; the page
// marks the wanted watermark beside the one reported.
func (r *Run) ExpectWatermark(want int64, why string, more ...string) {
	r.t.Helper()
	if got := r.p.Watermark(); got != want {
		msg := fmt.Sprintf("Watermark() = %s, want %s\n%s", kit.FormatWatermark(got), kit.FormatWatermark(want), why)
		r.t.Errorf("%s\n\n%s%s%s", msg, r.timeline(), strings.Join(more, ""), r.link(msg, wants{wm: want, hasWM: true}))
	}
}

// Delivery is one run of a Processor over a whole bounded input: every
// event in arrival order, then Flush.
type Delivery struct {
	Events    []kit.Event    // the input, in arrival order
	Calls     [][]kit.Result // what each call returned: one per event, then Flush's
	Emitted   []kit.Result   // all of it, in emission order
	Late      []kit.Event    // Late() after Flush
	Watermark int64          // Watermark() after Flush
	t         testing.TB     // the test, for the picture
	size      int64          // Config.WindowSize, for the timeline
	lateness  int64          // Config.AllowedLateness, for the timeline
	// wms are the watermarks after each call, for the picture; read only
	// when pictures are on (picture.Enabled).
	wms []int64
}

// Deliver processes events on p in order, then flushes, and returns what
// happened, for test t. size and lateness are p's Config.WindowSize and
// Config.AllowedLateness, for WindowTimeline.
func Deliver(t testing.TB, p Processor, size, lateness int64, events []kit.Event) Delivery {
	d := Delivery{Events: events, t: t, size: size, lateness: lateness}
	pictures := picture.Enabled()
	for _, e := range events {
		d.Calls = append(d.Calls, p.Process(e))
		if pictures {
			d.wms = append(d.wms, watermarkOrNone(p))
		}
	}
	d.Calls = append(d.Calls, p.Flush())
	d.Emitted = slices.Concat(d.Calls...)
	d.Late, d.Watermark = p.Late(), p.Watermark()
	d.wms = append(d.wms, d.Watermark)
	return d
}

// Unordered describes the first call of d whose results are not ordered by
// (End, Start, Key): which call, what it returned, the same results in
// order, and the timeline of the window where the order breaks. It is empty
// if every call's results are in order.
func (d Delivery) Unordered() string {
	for i, c := range d.Calls {
		if slices.IsSortedFunc(c, kit.CompareResults) {
			continue
		}
		call := "Flush()"
		if i < len(d.Events) {
			call = fmt.Sprintf("Process(%v) (arrival %d)", d.Events[i], i+1)
		}
		k := 1
		for kit.CompareResults(c[k-1], c[k]) <= 0 {
			k++
		}
		return d.Report(fmt.Sprintf("%s returned results out of order:\n%s\nwant\n%s\n"+
			"The results of one call are ordered by (End, Start, Key): kit.SortResults does it.",
			call, FmtResults(c), FmtResults(kit.SortResults(slices.Clone(c)))), c[k].Start, c[k].End)
	}
	return ""
}

// Redelivered reports whether an event with this ID arrived more than once.
func (d Delivery) Redelivered(id string) bool {
	n := 0
	for _, e := range d.Events {
		if e.ID == id {
			n++
		}
	}
	return n > 1
}

// WindowTimeline draws only the events and results of window [start, end),
// in arrival and emission order: a focused view of a long delivery.
func (d Delivery) WindowTimeline(start, end int64) string {
	tl := kit.Timeline{
		WindowSize: d.size, Lateness: d.lateness, Events: d.Events,
		Watermark: d.Watermark, Results: d.Emitted, Late: d.Late,
	}
	return fmt.Sprintf("only window [%d,%d), arrival order:\n%s", start, end, OnlyWindow(tl, start, end).String())
}

// Report is the message of a failed check of the delivery: msg, the
// timeline of window [start, end) (WindowTimeline) and, with pictures on,
// the link to a page of the whole delivery, which shows msg.
func (d Delivery) Report(msg string, start, end int64) string {
	return msg + "\n\n" + d.WindowTimeline(start, end) + d.link(msg)
}

// link draws the whole delivery as a page (Picture) with the tumbling
// windows of Deliver's size and lateness and the note, and returns the
// line that links it, or "" when pictures are off.
func (d Delivery) link(note string) string {
	return d.Picture(note, picture.Windows{Size: d.size, Lateness: d.lateness})
}

// Picture draws, with pictures on, the whole delivery as a page for its
// test (picture.Save) and returns the line that links it, or "": note is
// the failure's message, w says the windows to draw.
func (d Delivery) Picture(note string, w picture.Windows) string {
	if !picture.Enabled() || d.t == nil || len(d.wms) != len(d.Calls) {
		return ""
	}
	steps := make([]picture.Step, len(d.Calls))
	for i, out := range d.Calls {
		steps[i] = picture.Step{Op: picture.OpFlush, Partition: -1, Watermark: d.wms[i], Emitted: out}
		if i < len(d.Events) {
			steps[i].Op, steps[i].Event = picture.OpEvent, d.Events[i]
		}
	}
	return "\n" + picture.Save(d.t, picture.Run{Title: d.t.Name(), Note: note, Windows: w, Steps: steps, Late: d.Late})
}

// Shuffles yields n bounded shuffles of events (kit.BoundedShuffle), with
// events redelivered at rate dupRate (kit.WithDuplicates) if it is above 0,
// each drawn from rnd when its turn comes and named for a failure message:
// "shuffle 3 of 20", or "shuffle 3 of 20 (with duplicates)".
func Shuffles(rnd *rand.Rand, events []kit.Event, n int, bound int64, dupRate float64) iter.Seq2[string, []kit.Event] {
	return func(yield func(string, []kit.Event) bool) {
		for i := range n {
			out := kit.BoundedShuffle(rnd, events, bound)
			what := fmt.Sprintf("shuffle %d of %d", i+1, n)
			if dupRate > 0 {
				out = kit.WithDuplicates(rnd, out, dupRate)
				what += " (with duplicates)"
			}
			if !yield(what, out) {
				return
			}
		}
	}
}
