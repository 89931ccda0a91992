// Package demo runs the reference implementation (package solutions) on
// small scripted streams and narrates what happens, step by step, with
// kit.Timeline pictures: the Go counterpart of the labs' "run the solution
// to see a demo". `de demo` prints one; each is deterministic, so its
// output is pinned by a golden file.
package demo

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/term"
	"github.com/flk-byo/course/kit"
)

// Options says where a demo writes and how it paces itself.
type Options struct {
	// Out receives the narration.
	Out io.Writer
	// Style colors the headings; the zero value is plain.
	Style term.Style
	// Pause, when set, is called before every step after the first (de
	// demo --step waits for Enter there); an error ends the demo with it.
	Pause func() error
	// HTML, when set, receives the demo drawn as one page
	// (internal/picture), each of its runs a figure: de demo --html.
	HTML io.Writer
}

// demo is one stage's demo: a one-line summary and the script.
type demo struct {
	title string
	run   func(*narrator) error
}

// Available reports whether this build of de has demos at all: a de built
// from a student template (de classroom template) has none, since the
// demos run the reference, which the template leaves out.
func Available() bool { return len(demos) > 0 }

// Has reports whether stage n (1-based) has a demo.
func Has(n int) bool { _, ok := demos[n]; return ok }

// Run prints the demo of stage n (1-based) to o.Out.
func Run(n int, o Options) error {
	d, ok := demos[n]
	if !ok {
		var have []string
		for _, k := range slices.Sorted(maps.Keys(demos)) {
			have = append(have, fmt.Sprintf("%02d", k))
		}
		return fmt.Errorf("stage %d has no demo; the demos are for stages %s", n, strings.Join(have, ", "))
	}
	nr := &narrator{o: o}
	title := fmt.Sprintf("Demo of stage %02d: %s", n, d.title)
	nr.printf("%s\n", o.Style.Bold(title))
	nr.printf("%s\n", o.Style.Dim(intro))
	if err := d.run(nr); err != nil {
		return err
	}
	if nr.err != nil || o.HTML == nil {
		return nr.err
	}
	return nr.page(o.HTML, title)
}

// intro is the line under a demo's title.
const intro = "The reference implementation (package solutions) on a small scripted stream."

// HasPicture reports whether stage n's demo draws an event-time run, which
// de demo --html can draw as a page.
func HasPicture(n int) bool { return !noPicture[n] }

// noPicture are the demos that draw no run of a windowed operator: their
// point is elsewhere (parallel workers, a commit protocol, rules).
var noPicture = map[int]bool{2: true, 5: true, 11: true}

// page writes the demo's runs as one HTML page.
func (n *narrator) page(w io.Writer, title string) error {
	if len(n.tapes) == 0 {
		return fmt.Errorf("this demo draws no event-time run, so there is no page to draw; its text above is the whole demo")
	}
	var runs []picture.Run
	for i, t := range n.tapes {
		runs = append(runs, picture.Run{
			Title:   fmt.Sprintf("Run %d of %d: %s", i+1, len(n.tapes), t.title),
			Windows: t.windows,
			Steps:   t.steps,
			Late:    t.p.Late(),
		})
	}
	b, err := picture.Page(title, intro, runs...)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// narrator writes a demo: numbered steps, prose, and pictures.
type narrator struct {
	o         Options
	steps     int
	stepTitle string  // the title of the current step
	tapes     []*tape // the demo's runs, for its page
	err       error   // the first write or pause error; later output is dropped
}

func (n *narrator) printf(format string, args ...any) {
	if n.err == nil {
		_, n.err = fmt.Fprintf(n.o.Out, format, args...)
	}
}

// step starts a numbered step, pausing first when asked to.
func (n *narrator) step(title string) {
	if n.steps > 0 && n.o.Pause != nil && n.err == nil {
		n.err = n.o.Pause()
	}
	n.steps++
	n.stepTitle = title
	n.printf("\n%s\n", n.o.Style.Cyan(fmt.Sprintf("Step %d: %s", n.steps, title)))
}

// say writes prose, each line indented.
func (n *narrator) say(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		n.printf("  %s\n", line)
	}
}

// picture writes a timeline, set off by a blank line.
func (n *narrator) picture(tl kit.Timeline) {
	n.printf("\n")
	for line := range strings.SplitSeq(strings.TrimRight(tl.String(), "\n"), "\n") {
		n.printf("  %s\n", line)
	}
}

// windowOp is what a windowed operator offers a demo: stage 01's
// Processor and the operators built like it.
type windowOp interface {
	Process(kit.Event) []kit.Result
	AdvanceWatermark(int64) []kit.Result
	Watermark() int64
	Flush() []kit.Result
	Late() []kit.Event
}

// tape drives a windowOp and records what went in and what came out, to
// narrate each call and draw the run, as text and as a page.
type tape struct {
	n        *narrator
	p        windowOp
	size     int64 // window size (0 for sessions)
	gap      int64 // session gap (0 for tumbling windows)
	lateness int64
	events   []kit.Event
	emitted  []kit.Result
	seen     map[string]bool
	title    string          // the step it began in, for its figure
	windows  picture.Windows // its windows, for its figure
	steps    []picture.Step  // every call, for its figure
}

// newTape starts a run of p, one figure of the demo's page.
func newTape(n *narrator, p windowOp, size, gap, lateness int64) *tape {
	t := &tape{n: n, p: p, size: size, gap: gap, lateness: lateness, seen: map[string]bool{}, title: n.stepTitle,
		windows: picture.Windows{Size: size, Gap: gap, Lateness: lateness}}
	if t.title == "" {
		t.title = "the run"
	}
	n.tapes = append(n.tapes, t)
	return t
}

// record notes a call for the figure, with the watermark after it.
func (t *tape) record(op picture.Op, e kit.Event, out []kit.Result) {
	t.steps = append(t.steps, picture.Step{Op: op, Event: e, Partition: -1, Watermark: t.p.Watermark(), Emitted: out})
}

// resumeFrom makes t the run of a processor restored from a snapshot of
// from's, taken after from's first k events: it starts with what from had
// taken in and emitted by then, and the figure marks the restore.
func (t *tape) resumeFrom(from *tape, k int) {
	t.events = slices.Clone(from.events[:k])
	calls := 0 // from's calls up to its k-th event
	for events := 0; calls < len(from.steps) && events < k; calls++ {
		if from.steps[calls].Op == picture.OpEvent {
			events++
		}
	}
	t.steps = slices.Clone(from.steps[:calls])
	for _, s := range t.steps {
		t.emitted = append(t.emitted, s.Emitted...)
	}
	for _, e := range t.events {
		t.seen[e.ID] = true
	}
	t.steps = append(t.steps, picture.Step{Op: picture.OpRestore, Partition: -1, Watermark: t.p.Watermark()})
}

// moveTo carries the run on with p, a processor restored from a snapshot
// of the current one (at a new parallelism, say): the figure marks it.
func (t *tape) moveTo(p windowOp) {
	t.p = p
	t.steps = append(t.steps, picture.Step{Op: picture.OpRestore, Partition: -1, Watermark: p.Watermark()})
}

// advanceQuiet calls AdvanceWatermark(wm) without narrating it: for a demo
// that says it its own way.
func (t *tape) advanceQuiet(wm int64) []kit.Result {
	out := t.p.AdvanceWatermark(wm)
	t.emitted = append(t.emitted, out...)
	t.record(picture.OpWatermark, kit.Event{}, out)
	return out
}

// process hands e to the operator and narrates the call; note adds why.
func (t *tape) process(e kit.Event, note string) {
	before, lateBefore := t.p.Watermark(), len(t.p.Late())
	out := t.p.Process(e)
	t.events = append(t.events, e)
	t.emitted = append(t.emitted, out...)
	t.record(picture.OpEvent, e, out)
	what := describe(out)
	switch {
	case t.seen[e.ID]:
		what = "nothing: " + e.ID + " was seen before, so this redelivery is a no-op"
	case len(t.p.Late()) > lateBefore:
		what = "nothing: it goes to the side output (Late)"
	}
	t.seen[e.ID] = true
	line := fmt.Sprintf("→ %s arrives: %s", e, what)
	if wm := t.p.Watermark(); wm != before {
		line += fmt.Sprintf("; watermark %s → %s", kit.FormatWatermark(before), kit.FormatWatermark(wm))
	}
	t.n.say("%s", line)
	if note != "" {
		t.n.say("  (%s)", note)
	}
}

// advance calls AdvanceWatermark(wm) and narrates it.
func (t *tape) advance(wm int64) {
	out := t.advanceQuiet(wm)
	t.n.say("→ watermark %s arrives from upstream: %s", kit.FormatWatermark(wm), describe(out))
}

// flush calls Flush and narrates it.
func (t *tape) flush() {
	out := t.p.Flush()
	t.emitted = append(t.emitted, out...)
	t.record(picture.OpFlush, kit.Event{}, out)
	t.n.say("→ end of input (Flush): %s", describe(out))
}

// picture draws the run so far.
func (t *tape) picture() {
	t.n.picture(kit.Timeline{WindowSize: t.size, Gap: t.gap, Lateness: t.lateness,
		Events: t.events, Watermark: t.p.Watermark(), Results: t.emitted, Late: t.p.Late()})
}

// describe renders what a call emitted.
func describe(rs []kit.Result) string {
	if len(rs) == 0 {
		return "emits nothing"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return "emits " + strings.Join(parts, ", ")
}

// held renders what a downstream that sums Count and Sum per (Key, Start,
// End) holds after rs: the changelog applied.
func held(rs []kit.Result) string {
	type row struct {
		key        string
		start, end int64
	}
	sums := map[row]kit.Result{}
	for _, r := range rs {
		k := row{r.Key, r.Start, r.End}
		s := sums[k]
		sums[k] = kit.Result{Key: r.Key, Start: r.Start, End: r.End, Count: s.Count + r.Count, Sum: s.Sum + r.Sum}
	}
	var out []kit.Result
	for _, r := range sums {
		if r.Count != 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return "(nothing)"
	}
	kit.SortResults(out)
	parts := make([]string, len(out))
	for i, r := range out {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// ev is a demo event.
func ev(id, key string, ts, value int64) kit.Event {
	return kit.Event{ID: id, Key: key, TS: ts, Value: value}
}

// sameResults compares two result lists as multisets in (End, Start, Key)
// order.
func sameResults(a, b []kit.Result) bool {
	return slices.Equal(kit.SortResults(slices.Clone(a)), kit.SortResults(slices.Clone(b)))
}
