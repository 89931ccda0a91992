//go:build lab || solution

package idleness

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// A replay drives the whole pipeline of this stage on a ManualClock:
// source partitions → Watermarks → an upstream Processor. Event time 0 is
// t0, and processing time tracks event time: an event stamped ts arrives at
// t0 + ts + its lag, so an hour of event time takes an hour of (simulated)
// processing time. Every emit interval the replay does what Flink's periodic
// watermark emission does: AdvanceWatermark(Current()).

// emitInterval is how often a replay hands Current() to AdvanceWatermark:
// Flink's default pipeline.auto-watermark-interval.
const emitInterval = 200 * time.Millisecond

// latencyBudget is how long after its end a window's result may come out.
const latencyBudget = 300 * time.Second

// arrival is one event of a replay: the partition it comes from and when
// it arrives, as processing time since t0.
type arrival struct {
	at        time.Duration
	partition int
	e         kit.Event
}

// feedSpec describes one partition's events for genPartition.
type feedSpec struct {
	partition int
	key       string
	from, to  int64      // event-time range [from, to) in ms
	maxGap    int64      // consecutive timestamps are 1 … maxGap ms apart
	maxLag    int64      // each event arrives 0 … maxLag ms after its timestamp
	silent    [][2]int64 // event-time ranges [a, b) with no events
	// batchEvery, if positive, replaces the lag: the partition delivers in
	// batches every batchEvery ms, each event at the first batch after its
	// timestamp, in timestamp order (a producer that buffers and flushes).
	batchEvery int64
}

// genPartition returns the arrivals of one partition in arrival order.
// Arriving at ts + lag with lag ≤ maxLag bounds the partition's disorder
// by maxLag: if f arrives before e, f.TS ≤ arrival(f) ≤ arrival(e) ≤ e.TS + maxLag.
func genPartition(rnd *rand.Rand, f feedSpec) []arrival {
	var out []arrival
	n := 0
	for ts := f.from + rnd.Int64N(f.maxGap); ts < f.to; ts += 1 + rnd.Int64N(f.maxGap) {
		if slices.ContainsFunc(f.silent, func(r [2]int64) bool { return ts >= r[0] && ts < r[1] }) {
			continue
		}
		e := kit.Event{ID: fmt.Sprintf("%s%d", f.key, n), Key: f.key, TS: ts, Value: 1 + rnd.Int64N(9)}
		at := ts + rnd.Int64N(f.maxLag+1)
		if f.batchEvery > 0 {
			at = (ts/f.batchEvery + 1) * f.batchEvery
		}
		out = append(out, arrival{at: time.Duration(at) * time.Millisecond, partition: f.partition, e: e})
		n++
	}
	slices.SortStableFunc(out, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	return out
}

// mergeArrivals merges partitions' arrivals into one arrival order.
func mergeArrivals(parts ...[]arrival) []arrival {
	all := slices.Concat(parts...)
	slices.SortStableFunc(all, func(a, b arrival) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.partition, b.partition))
	})
	return all
}

// eventsOf returns the events of arrivals, in arrival order.
func eventsOf(as []arrival) []kit.Event {
	out := make([]kit.Event, len(as))
	for i, a := range as {
		out[i] = a.e
	}
	return out
}

// firing is a result and the processing time it came out at.
type firing struct {
	r       kit.Result
	at      time.Duration
	flushed bool // returned by the final Flush, not by AdvanceWatermark
}

// sample is the pipeline's state at one moment of a replay.
type sample struct {
	at   time.Duration
	wm   int64  // Current()
	idle []bool // Idle(p) for each partition
	open int    // windows holding events that have not fired
}

// replayOutcome is what a replay observed.
type replayOutcome struct {
	wmCfg    WatermarkConfig
	size     int64
	names    []string // partition names, for the samples table
	arrivals []arrival
	events   []kit.Event
	firings  []firing
	late     []kit.Event
	samples  []sample // one a minute of processing time
	// handed are the watermarks the replay handed to AdvanceWatermark,
	// each when it changed, for the picture; only when pictures are on
	// (picture.Enabled).
	handed []handedWM
}

// handedWM is a watermark handed to AdvanceWatermark and when.
type handedWM struct {
	at time.Duration
	wm int64
}

// replay runs arrivals through NewWatermarks(wmCfg) and an upstream
// processor of windowSize, handing Current() to AdvanceWatermark every
// emitInterval until processing time until, then Flushes. It samples the
// watermark, idleness and the number of open windows once a minute. A
// window is open from its first counted event until its result fires: that
// is the state the processor must keep for it (AllowedLateness is 0).
func replay(t testing.TB, wmCfg WatermarkConfig, names []string, windowSize int64, arrivals []arrival, until time.Duration) *replayOutcome {
	t.Helper()
	if last := arrivals[len(arrivals)-1].at; last > until {
		t.Fatalf("test bug: the last arrival (%v) is after the end of the replay (%v)", last, until)
	}
	clock := kit.NewManualClock(t0)
	w := newWatermarks(t, wmCfg, clock)
	p := newUpstream(t, Config{WindowSize: windowSize})
	out := &replayOutcome{wmCfg: wmCfg, size: windowSize, names: names, arrivals: arrivals, events: eventsOf(arrivals)}
	pictures := picture.Enabled()

	type keyWindow struct {
		key   string
		start int64
	}
	open := map[keyWindow]bool{}
	fired := map[keyWindow]bool{}
	handed := int64(math.MinInt64) // the last watermark handed to the processor
	record := func(rs []kit.Result, flushed bool) {
		for _, r := range rs {
			out.firings = append(out.firings, firing{r: r, at: clock.Now().Sub(t0), flushed: flushed})
			k := keyWindow{r.Key, r.Start}
			fired[k] = true
			delete(open, k)
		}
	}
	next := 0
	for tick := emitInterval; tick <= until; tick += emitInterval {
		for ; next < len(arrivals) && arrivals[next].at <= tick; next++ {
			a := arrivals[next]
			clock.Advance(a.at - clock.Now().Sub(t0))
			w.Observe(a.partition, a.e.TS)
			start := windowtest.WindowStart(a.e.TS, windowSize)
			if k := (keyWindow{a.e.Key, start}); !fired[k] && start+windowSize > handed {
				open[k] = true // counted, not late
			}
			record(p.Process(a.e), false)
		}
		clock.Advance(tick - clock.Now().Sub(t0))
		wm := w.Current()
		record(p.AdvanceWatermark(wm), false)
		if pictures && wm != handed {
			out.handed = append(out.handed, handedWM{at: tick, wm: wm})
		}
		handed = wm
		if tick%time.Minute == 0 {
			s := sample{at: tick, wm: wm, open: len(open)}
			for part := range wmCfg.Partitions {
				s.idle = append(s.idle, w.Idle(part))
			}
			out.samples = append(out.samples, s)
		}
	}
	record(p.Flush(), true)
	out.late = p.Late()
	return out
}

// hms renders event time in ms since 00:00 as a clock time, e.g. "02:05:00".
func hms(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	s := ms / 1000
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, s/3600, s/60%60, s%60)
	if ms%1000 != 0 {
		out += fmt.Sprintf(".%03d", ms%1000)
	}
	return out
}

// hmsWM renders a watermark as a clock time, or what MinInt64 means.
func hmsWM(wm int64) string {
	if wm < -1<<62 {
		return kit.FormatWatermark(wm)
	}
	return hms(wm)
}

// results returns every result of the replay, sorted by (End, Start, Key).
func (o *replayOutcome) results() []kit.Result {
	out := make([]kit.Result, len(o.firings))
	for i, f := range o.firings {
		out[i] = f.r
	}
	return kit.SortResults(out)
}

// delay returns how long after its window's end f came out.
func (f firing) delay() time.Duration {
	return f.at - time.Duration(f.r.End)*time.Millisecond
}

// describe renders a firing, e.g. "us [02:05:00,02:10:00) fired at 04:00:31, 1h50m31s after its end".
func (f firing) describe() string {
	how := "fired"
	if f.flushed {
		how = "came out only at the final Flush,"
	}
	return fmt.Sprintf("%s [%s,%s) count=%d %s at %s, %v after its end",
		f.r.Key, hms(f.r.Start), hms(f.r.End), f.r.Count, how, hms(f.at.Milliseconds()), f.delay())
}

// table renders the samples taken between processing times from and to:
// the watermark, which partitions were idle, and how many windows were open.
func (o *replayOutcome) table(from, to time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "processing time (= event time) │ Current()    │ idle partitions │ open windows\n")
	rows := 0
	for _, s := range o.samples {
		if s.at < from || s.at > to {
			continue
		}
		if rows == 30 {
			b.WriteString("  …\n")
			break
		}
		var idle []string
		for part, yes := range s.idle {
			if yes {
				idle = append(idle, o.names[part])
			}
		}
		fmt.Fprintf(&b, "  %-28s │ %-12s │ %-15s │ %d\n", hms(s.at.Milliseconds()), hmsWM(s.wm), strings.Join(idle, " "), s.open)
		rows++
	}
	return b.String()
}

// picture draws, with pictures on, the replay between processing times
// from and to as a page for test t (picture.Save) and returns the line
// that links it, or "": each AdvanceWatermark that fired something, with
// what it fired, and the samples (one a minute, with how many windows
// were open), each row with the watermark handed on so far and each
// partition's watermark and idleness as the test's inputs and the card's
// rule make them; and, wherever they are in the replay, the arrivals and
// firings of the windows of focus. note is the failure's message.
func (o *replayOutcome) picture(t testing.TB, note string, from, to time.Duration, focus ...kit.Result) string {
	if !picture.Enabled() {
		return ""
	}
	inFocus := func(key string, start int64) bool {
		return slices.ContainsFunc(focus, func(f kit.Result) bool { return f.Key == key && f.Start == start })
	}
	type row struct {
		at    time.Duration
		order int // at one moment: arrivals, then AdvanceWatermark and Flush, then the sample
		step  picture.Step
	}
	var rows []row
	for _, a := range o.arrivals {
		if inFocus(a.e.Key, windowtest.WindowStart(a.e.TS, o.size)) {
			rows = append(rows, row{a.at, 0, picture.Step{Op: picture.OpEvent, Event: a.e, Partition: a.partition,
				Label: fmt.Sprintf("%s  p%d %s@%s=%d", hms(a.at.Milliseconds()), a.partition, a.e.Key, hms(a.e.TS), a.e.Value)}})
		}
	}
	for i := 0; i < len(o.firings); {
		j := i
		var rs []kit.Result
		shown := false
		for ; j < len(o.firings) && o.firings[j].at == o.firings[i].at && o.firings[j].flushed == o.firings[i].flushed; j++ {
			f := o.firings[j]
			rs = append(rs, f.r)
			shown = shown || (f.at >= from && f.at <= to) || inFocus(f.r.Key, f.r.Start)
		}
		if f := o.firings[i]; shown {
			s := picture.Step{Op: picture.OpWatermark, Partition: -1, Emitted: rs, Label: hms(f.at.Milliseconds()) + "  AdvanceWatermark(Current())"}
			if f.flushed {
				s.Op, s.Label = picture.OpFlush, hms(f.at.Milliseconds())+"  Flush()"
			}
			rows = append(rows, row{f.at, 1, s})
		}
		i = j
	}
	for _, s := range o.samples {
		if s.at >= from && s.at <= to {
			rows = append(rows, row{s.at, 2, picture.Step{Op: picture.OpCall, Partition: -1,
				Label: fmt.Sprintf("%s  %d windows open", hms(s.at.Milliseconds()), s.open)}})
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order)) })

	maxTS := make([]int64, o.wmCfg.Partitions)
	lastAt := make([]time.Duration, o.wmCfg.Partitions)
	for i := range maxTS {
		maxTS[i] = math.MinInt64
	}
	next, handed := 0, 0
	steps := make([]picture.Step, len(rows))
	for i, r := range rows {
		for ; next < len(o.arrivals) && o.arrivals[next].at <= r.at; next++ {
			a := o.arrivals[next]
			maxTS[a.partition], lastAt[a.partition] = max(maxTS[a.partition], a.e.TS), a.at
		}
		for handed < len(o.handed) && o.handed[handed].at <= r.at {
			handed++
		}
		s := r.step
		s.Watermark = math.MinInt64
		if handed > 0 {
			s.Watermark = o.handed[handed-1].wm
		}
		for part := range maxTS {
			m := picture.PartitionMark{Watermark: math.MinInt64}
			if maxTS[part] != math.MinInt64 {
				m.Watermark = watermarkOf(maxTS[part], o.wmCfg.OutOfOrderness)
			}
			m.Idle = o.wmCfg.IdleTimeout > 0 && r.at-lastAt[part] > o.wmCfg.IdleTimeout
			s.Partitions = append(s.Partitions, m)
		}
		steps[i] = s
	}
	var late []kit.Event
	for _, e := range o.late {
		if inFocus(e.Key, windowtest.WindowStart(e.TS, o.size)) {
			late = append(late, e)
		}
	}
	return "\n" + picture.Save(t, picture.Run{
		Title: t.Name(), Note: note, Windows: picture.Windows{Size: o.size}, Steps: steps, Late: late,
		Time: hmsWM, Span: func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
	})
}

// expectInOrderResults fails t unless the replay emitted exactly the
// results of in-order delivery of its events, and nothing went late.
func (o *replayOutcome) expectInOrderResults(t testing.TB, what string) {
	t.Helper()
	if len(o.late) > 0 {
		msg := fmt.Sprintf("%s: %d events went to the side output, e.g. %s; want none: every partition's disorder is within\n"+
			"OutOfOrderness, and no partition fell behind the combined watermark", what, len(o.late), windowtest.FmtEvents(o.late))
		t.Errorf("%s%s", msg, o.eventPicture(t, msg, o.late[0]))
	}
	o.expectResults(t, windowtest.InOrderResults(o.events, o.size),
		fmt.Sprintf("%s: the results differ from those of in-order delivery of the same %d events:", what, len(o.events)))
}

// expectResults fails t unless the replay's results, sorted, are want;
// what says what they differ from.
func (o *replayOutcome) expectResults(t testing.TB, want []kit.Result, what string) {
	t.Helper()
	got := o.results()
	if diff := windowtest.DiffResults(got, want); diff != "" {
		first, _ := windowtest.FirstDifference(got, want)
		end := time.Duration(first.End) * time.Millisecond
		msg := what + "\n" + diff
		t.Errorf("%s%s", msg, o.picture(t, msg, end-2*time.Minute, end+5*time.Minute, first))
	}
}

// eventPicture is picture for a failure about the event e: its window,
// from five minutes before e arrived to one minute after.
func (o *replayOutcome) eventPicture(t testing.TB, note string, e kit.Event) string {
	at := o.arrivals[slices.IndexFunc(o.arrivals, func(a arrival) bool { return a.e.ID == e.ID })].at
	return o.picture(t, note, at-5*time.Minute, at+time.Minute, kit.Result{Key: e.Key, Start: windowtest.WindowStart(e.TS, o.size)})
}

// shown is msg, then the samples between processing times from and to
// (table) and, with pictures on, the link to their page (picture).
func (o *replayOutcome) shown(t testing.TB, msg string, from, to time.Duration, focus ...kit.Result) string {
	return msg + "\n\n" + o.table(from, to) + o.picture(t, msg, from, to, focus...)
}
