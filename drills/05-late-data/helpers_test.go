//go:build lab || solution

package latedata

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/05-late-data/engine"
	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// Event time is milliseconds since the Unix epoch, UTC: the fare devices'
// clocks.
const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
	day    = 24 * hour
)

// The drill's facts, from its card: what the source does and what the
// business needs. They are the suite's, not the job's: a job that changes
// them does not change what it is held to.
const (
	hourly      = hour        // the ledger books revenue per line and hour
	gateLate    = 1 * second  // a gate tap reaches the job within 1 s of its stamp
	busLate     = 8 * minute  // a bus tap reaches the job at most 8 minutes after it was made, by the job's clock
	handMin     = 40 * minute // an inspector's handheld syncs 40 minutes …
	handMax     = 4 * day     // … to 4 days after a tap
	dashboardBy = 30 * second // each hour's first totals by the time the job's clock reads 30 s past its end
	ledgerClose = 10 * minute // the ledger closes an hour 10 minutes after its end and takes nothing for it after
)

// tuesday is the replayed day, 2026-03-17, at 00:00 UTC.
var tuesday = time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC).UnixMilli()

// device is the kind of fare device a tap comes from.
type device int

const (
	gate     device = iota // a metro gate: wired, online
	bus                    // a bus validator: cellular, uploads in batches
	handheld               // an inspector's handheld: syncs at the depot
)

func (d device) String() string {
	return [...]string{"a metro gate", "a bus validator", "an inspector's handheld"}[d]
}

// The lines: the metro's are served by gates, the buses' by validators;
// inspectors sell on-board tickets on every line.
var (
	metroLines = []string{"M1", "M2", "M3", "M4"}
	busLines   = []string{"B3", "B12", "B17", "B21", "B40", "B56", "B61", "B88"}
	allLines   = append(slices.Clone(metroLines), busLines...)
)

// arrival is one delivery of the fare-taps topic.
type arrival struct {
	tap    kit.Event
	device device
	at     int64 // wall time of the delivery: at or after every stamp delivered up to it
	copy   bool  // a redelivery of a tap delivered before (a retried batch)
}

// replay is a stretch of the fare-taps topic, in delivery order.
type replay struct {
	from, until int64 // wall time
	arrivals    []arrival
	planted     int // planted taps so far, to keep their IDs apart
}

// plan describes a replay: deliveries from from to until (wall time), and
// whether the first depot sync brings a backlog of handheld taps made
// days before.
type plan struct {
	from, until int64
	backlog     bool
}

// build generates the replay from rnd: gate taps every 0.2 to 2 s, each
// stamped up to gateLate before its delivery; bus taps every 1 to 8 s,
// delivered busDelay after they were made (1 % of them a second time, as a
// retried batch, still within busLate); handheld taps every 1 to 6
// minutes, delivered at the first depot sync at least handMin after them
// (a tenth of the syncs retried a minute later).
func (p plan) build(rnd *rand.Rand) replay {
	rp := replay{from: p.from, until: p.until}
	add := func(a arrival) {
		if a.at < p.until {
			rp.arrivals = append(rp.arrivals, a)
		}
	}
	n := 0
	id := func(d device) string {
		n++
		return fmt.Sprintf("%s-%d", [...]string{"gate", "bus", "hh"}[d], n)
	}
	for w := p.from + between(rnd, 0, 2*second); w < p.until; w += between(rnd, 200, 2*second) {
		ts := w - between(rnd, 0, gateLate)
		add(arrival{tap: fare(rnd, id(gate), pick(rnd, metroLines), ts, 150, 420), device: gate, at: w})
	}
	for m := p.from + between(rnd, 0, 8*second); m < p.until; m += between(rnd, 1*second, 8*second) {
		a := arrival{tap: fare(rnd, id(bus), pick(rnd, busLines), m, 150, 420), device: bus, at: m + busDelay(rnd)}
		add(a)
		if rnd.IntN(100) == 0 {
			again := a
			again.at, again.copy = min(a.at+between(rnd, second, 2*minute), m+busLate), true
			add(again)
		}
	}
	var syncs []int64
	for s := p.from + 45*minute; s < p.until; s += between(rnd, 50*minute, 100*minute) {
		syncs = append(syncs, s)
	}
	for m := p.from - hour + between(rnd, 0, 6*minute); m < p.until; m += between(rnd, minute, 6*minute) {
		i := slices.IndexFunc(syncs, func(s int64) bool { return s >= m+handMin })
		if i < 0 {
			break
		}
		add(arrival{tap: fare(rnd, id(handheld), pick(rnd, allLines), m, 250, 600), device: handheld, at: syncs[i]})
	}
	if p.backlog && len(syncs) > 0 {
		for range 20 {
			m := syncs[0] - between(rnd, 6*hour, handMax)
			add(arrival{tap: fare(rnd, id(handheld), pick(rnd, allLines), m, 250, 600), device: handheld, at: syncs[0]})
		}
	}
	slices.SortStableFunc(rp.arrivals, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	// Retried syncs: a tenth of the syncs delivers its taps again a minute
	// later.
	var again []arrival
	for _, s := range syncs {
		if rnd.IntN(10) != 0 {
			continue
		}
		for _, a := range rp.arrivals {
			if a.device == handheld && a.at == s && s+minute < p.until {
				a.at, a.copy = s+minute, true
				again = append(again, a)
			}
		}
	}
	for _, a := range again {
		rp.insertAt(a.at, a)
	}
	return rp
}

// busDelay draws how long after it was made a bus tap reaches the job:
// half within 40 s, most of the rest within 3 minutes, 1 % over 6 minutes,
// none over busLate.
func busDelay(rnd *rand.Rand) int64 {
	switch r := rnd.IntN(100); {
	case r < 50:
		return between(rnd, 2*second, 40*second)
	case r < 85:
		return between(rnd, 40*second, 3*minute)
	case r < 99:
		return between(rnd, 3*minute, 6*minute)
	default:
		return between(rnd, 6*minute, busLate)
	}
}

// fare returns a tap of lo to hi cents on line at ts.
func fare(rnd *rand.Rand, id, line string, ts, lo, hi int64) kit.Event {
	return kit.Event{ID: id, Key: line, TS: ts, Value: lo + 10*rnd.Int64N((hi-lo)/10+1)}
}

// pick returns one of xs.
func pick(rnd *rand.Rand, xs []string) string { return xs[rnd.IntN(len(xs))] }

// between returns a random int64 in [lo, hi].
func between(rnd *rand.Rand, lo, hi int64) int64 { return lo + rnd.Int64N(hi-lo+1) }

// insertAt inserts as into the delivery order right after every delivery
// at or before wall time at, in the order given.
func (rp *replay) insertAt(at int64, as ...arrival) {
	i, _ := slices.BinarySearchFunc(rp.arrivals, at+1, func(a arrival, t int64) int { return cmp.Compare(a.at, t) })
	rp.arrivals = slices.Insert(rp.arrivals, i, as...)
}

// plantAtClock delivers taps when the job's clock reads exactly clock: a
// gate tap stamped clock, delivered at once, right after every delivery
// at or before that wall time (all stamped no later), then the taps, in
// order.
func (rp *replay) plantAtClock(clock int64, taps ...arrival) {
	rp.planted++
	g := arrival{tap: kit.Event{ID: fmt.Sprintf("gate-clock-%d", rp.planted), Key: metroLines[rp.planted%len(metroLines)], TS: clock, Value: 200},
		device: gate, at: clock}
	for i := range taps {
		taps[i].at = clock
	}
	rp.insertAt(clock, append([]arrival{g}, taps...)...)
}

// plantedTap returns a tap of device d on line stamped ts, with an ID of
// its own; plantAtClock sets its delivery.
func (rp *replay) plantedTap(d device, line string, ts, cents int64) arrival {
	rp.planted++
	return arrival{tap: kit.Event{ID: fmt.Sprintf("planted-%d", rp.planted), Key: line, TS: ts, Value: cents}, device: d}
}

// plantHandhelds plants, for the hour ending at e, one handheld tap per
// offset, made in the hour at least handMin before it syncs, and synced
// when the job's clock reads e + that offset; n picks their lines.
func (rp *replay) plantHandhelds(rnd *rand.Rand, e int64, n int, cents int64, offsets ...int64) {
	for k, off := range offsets {
		ts := between(rnd, e-hourly, min(e-1, e+off-handMin))
		rp.plantAtClock(e+off, rp.plantedTap(handheld, allLines[(n+k)%len(allLines)], ts, cents))
	}
}

// hours returns the ends of the hours that end within the replay's
// deliveries, after its first hour.
func (rp replay) hours() []int64 {
	var ends []int64
	for e := (rp.from/hourly + 2) * hourly; e < rp.until; e += hourly {
		ends = append(ends, e)
	}
	return ends
}

// jobRun is one run of the job over a replay: what it sent after each
// arrival, and at Flush.
type jobRun struct {
	rp     replay
	cfg    engine.Config
	outs   []Output // outs[i]: what the job sent after arrival i
	flush  Output
	clocks []int64 // clocks[i]: the job's clock at arrival i, the newest stamp read so far, arrival i's included
}

// runJob runs New(Config()) over rp, one Process per arrival, then Flush.
func runJob(t *testing.T, rp replay) jobRun {
	t.Helper()
	r := jobRun{rp: rp, cfg: Config()}
	j, err := New(r.cfg)
	if err != nil {
		t.Fatalf("New(Config()) = %v, want a job: Config() = %+v", err, r.cfg)
	}
	clock := int64(math.MinInt64)
	for _, a := range rp.arrivals {
		clock = max(clock, a.tap.TS)
		r.clocks = append(r.clocks, clock)
		r.outs = append(r.outs, j.Process(a.tap))
	}
	r.flush = j.Flush()
	return r
}

// window is an hour of the ledger: [start, end).
type window struct{ start, end int64 }

// hourOf returns the hour ts falls in.
func hourOf(ts int64) window {
	s := ts - ((ts%hourly)+hourly)%hourly
	return window{s, s + hourly}
}

// row identifies a row of the ledger: a line's hour.
type row struct {
	line string
	w    window
}

func rowOf(r kit.Result) row { return row{r.Key, window{r.Start, r.End}} }

// write is one result the job sent to the ledger.
type write struct {
	res kit.Result
	at  int // the arrival whose Process sent it; len(arrivals) for Flush
}

// writes returns every result the job sent to the ledger, in order.
func (r jobRun) writes() []write {
	var ws []write
	for i, o := range r.outs {
		for _, res := range o.Ledger {
			ws = append(ws, write{res, i})
		}
	}
	for _, res := range r.flush.Ledger {
		ws = append(ws, write{res, len(r.outs)})
	}
	return ws
}

// ledger returns what the ledger holds at the end: per row, the last total
// the job sent (the ledger upserts: a correction replaces the row).
func (r jobRun) ledger() map[row]kit.Result {
	held := map[row]kit.Result{}
	for _, w := range r.writes() {
		res := w.res
		res.IsUpdate = false
		held[rowOf(res)] = res
	}
	return held
}

// reconciled returns the IDs the job sent to reconciliation, with how
// many times.
func (r jobRun) reconciled() map[string]int {
	ids := map[string]int{}
	for _, o := range append(slices.Clone(r.outs), r.flush) {
		for _, e := range o.Reconciliation {
			ids[e.ID]++
		}
	}
	return ids
}

// firsts returns the index of the first delivery of each tap ID.
func (rp replay) firsts() map[string]int {
	first := map[string]int{}
	for i, a := range rp.arrivals {
		if _, ok := first[a.tap.ID]; !ok {
			first[a.tap.ID] = i
		}
	}
	return first
}

// distinct returns the indexes of the first delivery of every tap, in
// delivery order: the taps the clearing house has, each once.
func (rp replay) distinct() []int {
	var out []int
	for i, a := range rp.arrivals {
		if !a.copy {
			out = append(out, i)
		}
	}
	return out
}

// firstOut returns, per hour, the arrival whose Process sent the hour's
// first total (of any line); hours never sent are absent.
func (r jobRun) firstOut() map[window]int {
	out := map[window]int{}
	for _, w := range r.writes() {
		h := window{w.res.Start, w.res.End}
		if _, ok := out[h]; !ok {
			out[h] = w.at
		}
	}
	return out
}

// checkConservation fails t unless every tap of the replay is in exactly
// one place: in the ledger's total of its line's hour, or in
// reconciliation, once; and every ledger row is the count and sum of the
// taps of its line and hour that did not go to reconciliation. It reports
// the taps that reached the job after their hour's totals had gone out
// and are neither corrected into the ledger nor in reconciliation, with
// the first one's timeline. why says what usually goes wrong.
func checkConservation(t *testing.T, r jobRun, why string) bool {
	t.Helper()
	rec := r.reconciled()
	want := map[row]kit.Result{}
	for _, i := range r.rp.distinct() {
		a := r.rp.arrivals[i]
		if rec[a.tap.ID] > 0 {
			continue
		}
		h := hourOf(a.tap.TS)
		k := row{a.tap.Key, h}
		res := want[k]
		res.Key, res.Start, res.End = k.line, h.start, h.end
		res.Count++
		res.Sum += a.tap.Value
		want[k] = res
	}
	held := r.ledger()
	var problems []string
	var wrong []row // the rows of problems
	for _, k := range sortedRows(want, held) {
		g, w := held[k], want[k]
		if g != w {
			wrong = append(wrong, k)
		}
		switch {
		case g == w:
		case g.Count == 0:
			problems = append(problems, fmt.Sprintf("  %s: not in the ledger; its taps: %d, %s", fmtRow(k), w.Count, euros(w.Sum)))
		case w.Count == 0:
			problems = append(problems, fmt.Sprintf("  %s: the ledger holds %d taps, %s, but no tap of the line in that hour stayed out of reconciliation", fmtRow(k), g.Count, euros(g.Sum)))
		default:
			problems = append(problems, fmt.Sprintf("  %s: the ledger holds %d taps, %s; its taps outside reconciliation: %d, %s", fmtRow(k), g.Count, euros(g.Sum), w.Count, euros(w.Sum)))
		}
	}
	var twice []string
	var twiceIDs []string
	for _, id := range sortedKeys(rec) {
		if rec[id] > 1 {
			twice = append(twice, fmt.Sprintf("%s (%d times)", id, rec[id]))
			twiceIDs = append(twiceIDs, id)
		}
	}
	if len(problems) == 0 && len(twice) == 0 {
		return true
	}
	var b strings.Builder
	b.WriteString("every tap must be in exactly one place, once: its line's hour in the ledger, or reconciliation.\n")
	if len(problems) > 0 {
		fmt.Fprintf(&b, "%d rows of the ledger are not what their taps add up to (the ledger upserts: the last total for a line's hour\n"+
			"is its row):\n", len(problems))
		writeCapped(&b, problems, 8)
	}
	if len(twice) > 0 {
		fmt.Fprintf(&b, "taps sent to reconciliation more than once: %s\n", strings.Join(capList(twice, 5), ", "))
	}
	pictured := -1 // the arrival whose hour the picture draws
	if gone := r.vanished(); len(gone) > 0 {
		fmt.Fprintf(&b, "\n%d taps reached the job after their hour's totals had gone out and are nowhere: no corrected total for their line's\n"+
			"hour went out when they came, and they are not in reconciliation. The first:\n%s\n", len(gone), r.tapTimeline(gone[0]))
		if i, ok := r.pictured(gone); ok {
			pictured = i
		} else {
			pictured = gone[0]
		}
	} else if len(wrong) > 0 {
		for _, i := range r.rp.distinct() {
			if r.rowOfArrival(i) == wrong[0] {
				pictured = i // the last tap of the first wrong row
			}
		}
	} else if len(twiceIDs) > 0 {
		pictured = r.rp.firsts()[twiceIDs[0]] // the first tap sent to reconciliation twice
	}
	b.WriteString("\n" + why)
	t.Error(b.String() + r.picture(t, pictured, b.String()))
	return false
}

// vanished returns the arrivals (first deliveries) that came after their
// hour's totals were due (the job's clock at least WatermarkDelay past the
// hour's end), caused no write of their line's hour, and are not in
// reconciliation: the taps a job that drops its side output loses.
func (r jobRun) vanished() []int {
	rec := r.reconciled()
	var gone []int
	for _, i := range r.rp.distinct() {
		a := r.rp.arrivals[i]
		h := hourOf(a.tap.TS)
		if r.clocks[i]-r.cfg.WatermarkDelay < h.end || rec[a.tap.ID] > 0 {
			continue
		}
		if !slices.ContainsFunc(r.outs[i].Ledger, func(res kit.Result) bool { return rowOf(res) == row{a.tap.Key, h} }) {
			gone = append(gone, i)
		}
	}
	return gone
}

// picture draws, with pictures on, the hour of arrival i for its line as
// a page (picture.Save) and returns the line that links it ("" when i is
// negative: no arrival to draw). The hour holds
// thousands of calls, so the page draws a few: the line's first taps in
// that hour, the ones just before the call that sent its total, that call,
// and the line's taps of that hour from then up to arrival i, with the
// job's watermark after each. The taps that vanished are drawn as the side
// output they went to.
func (r jobRun) picture(t testing.TB, i int, note string) string {
	if !picture.Enabled() || i < 0 {
		return ""
	}
	a := r.rp.arrivals[i]
	h := hourOf(a.tap.TS)
	gone := map[int]bool{} // the vanished, drawn as the side output
	for _, j := range r.vanished() {
		gone[j] = true
	}
	var rows []int // the calls of the line's hour, up to arrival i
	fired := -1    // the index in rows of the first call that sent its total
	for j := 0; j <= i; j++ {
		b := r.rp.arrivals[j]
		sent := slices.ContainsFunc(r.outs[j].Ledger, func(res kit.Result) bool { return rowOf(res) == row{a.tap.Key, h} })
		if !sent && (b.tap.Key != a.tap.Key || hourOf(b.tap.TS) != h) {
			continue
		}
		if sent && fired < 0 {
			fired = len(rows)
		}
		rows = append(rows, j)
	}
	keep := map[int]bool{}
	for k := range rows {
		if k < 3 || (fired >= 0 && k >= fired-5 && k <= fired) || (fired >= 0 && k > fired && len(rows)-k <= 20) || k == len(rows)-1 {
			keep[k] = true
		}
	}
	var steps []picture.Step
	var late []kit.Event
	for k, j := range rows {
		if !keep[k] {
			continue
		}
		b := r.rp.arrivals[j]
		var sent []kit.Result
		for _, res := range r.outs[j].Ledger {
			if rowOf(res) == (row{a.tap.Key, h}) {
				sent = append(sent, res)
			}
		}
		wm := int64(math.MinInt64)
		if r.clocks[j] >= math.MinInt64+r.cfg.WatermarkDelay {
			wm = r.clocks[j] - r.cfg.WatermarkDelay
		}
		steps = append(steps, picture.Step{Op: picture.OpEvent, Event: b.tap, Partition: -1, Watermark: wm, Emitted: sent})
		if gone[j] {
			late = append(late, b.tap)
		}
	}
	return "\n" + picture.Save(t, picture.Run{
		Title: fmt.Sprintf("%s: tap %s of line %s, hour %s", t.Name(), a.tap.ID, a.tap.Key, fmtWindow(h)),
		Note: note + fmt.Sprintf("\n\nDrawn: %d of the %d calls that carried line %s's taps of that hour or sent its total: the first, those around the total, and the last up to tap %s.",
			len(steps), len(rows), a.tap.Key, a.tap.ID),
		Windows: picture.Windows{Size: hourly, Lateness: r.cfg.AllowedLateness},
		Steps:   steps,
		Late:    late,
		Time:    clockOf,
		Span:    func(d int64) string { return ms(d).String() },
	})
}

// pictured returns the vanished arrival whose hour the picture shows best:
// one whose line had that hour's total sent before it came, with the most
// taps of that line in that hour.
func (r jobRun) pictured(gone []int) (best int, ok bool) {
	taps := map[row]int{}
	for _, i := range r.rp.distinct() {
		a := r.rp.arrivals[i]
		taps[row{a.tap.Key, hourOf(a.tap.TS)}]++
	}
	sent := map[row]bool{}
	for _, o := range r.outs {
		for _, res := range o.Ledger {
			sent[rowOf(res)] = true
		}
	}
	for _, i := range gone {
		a := r.rp.arrivals[i]
		k := row{a.tap.Key, hourOf(a.tap.TS)}
		if sent[k] && (!ok || taps[k] > taps[r.rowOfArrival(best)]) {
			best, ok = i, true
		}
	}
	return best, ok
}

// rowOfArrival is the ledger row arrival i counts in.
func (r jobRun) rowOfArrival(i int) row {
	a := r.rp.arrivals[i]
	return row{a.tap.Key, hourOf(a.tap.TS)}
}

// tapTimeline draws what happened to arrival i on the job's clock (the
// newest stamp it had read): the tap's stamp and hour, when the hour's
// first totals were due and when they went out, when the tap was delivered, when the job's
// config makes the hour final, and when the ledger closes it.
func (r jobRun) tapTimeline(i int) string {
	a := r.rp.arrivals[i]
	h := hourOf(a.tap.TS)
	delay, lateness := r.cfg.WatermarkDelay, r.cfg.AllowedLateness
	final := h.end + delay + lateness
	type mark struct {
		c          rune
		at         int64
		what, note string
	}
	marks := []mark{
		{'S', a.tap.TS, "stamped", fmt.Sprintf("in hour %s", fmtWindow(h))},
		{'E', h.end, "the hour ends", ""},
		{'B', h.end + dashboardBy, "first totals due by", fmt.Sprintf("end + %v, on the dashboard", ms(dashboardBy))},
		{'X', final, "final, by your config", fmt.Sprintf("end + WatermarkDelay %v + AllowedLateness %v: from here, reconciliation", ms(delay), ms(lateness))},
		{'C', h.end + ledgerClose, "the ledger closes it", fmt.Sprintf("end + %v", ms(ledgerClose))},
		{'D', r.clocks[i], "delivered", fmt.Sprintf("the job's clock %v past the stamp", ms(r.clocks[i]-a.tap.TS))},
	}
	if f, ok := r.firstOut()[h]; ok {
		marks = append(marks, mark{'F', r.clocks[min(f, len(r.clocks)-1)], "first totals out", ""})
	}
	slices.SortStableFunc(marks, func(x, y mark) int { return cmp.Compare(x.at, y.at) })
	lo, hi := marks[0].at, marks[len(marks)-1].at
	const width = 64
	axis := []rune(strings.Repeat("─", width+1))
	for _, m := range marks {
		c := int((m.at - lo) * width / max(1, hi-lo))
		for c < len(axis)-1 && axis[c] != '─' {
			c++
		}
		axis[c] = m.c
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  timeline of tap %s (%s, line %s, %s), on the job's clock:\n", a.tap.ID, a.device, a.tap.Key, euros(a.tap.Value))
	fmt.Fprintf(&b, "    %s  %s … %s\n", string(axis), clockOf(lo), clockOf(hi))
	for _, m := range marks {
		line := fmt.Sprintf("    %c  %-22s %s", m.c, m.what, clockOf(m.at))
		if m.note != "" {
			line += "  (" + m.note + ")"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "    the job sent: %s", r.describeOut(i))
	return b.String()
}

// describeOut renders what the job sent after arrival i.
func (r jobRun) describeOut(i int) string {
	o := r.outs[i]
	if len(o.Ledger) == 0 && len(o.Reconciliation) == 0 {
		return "nothing"
	}
	var parts []string
	for _, res := range o.Ledger {
		parts = append(parts, fmtResult(res))
	}
	for _, e := range o.Reconciliation {
		parts = append(parts, "to reconciliation "+fmtTap(e))
	}
	return strings.Join(capList(parts, 4), "; ")
}

// clockOf renders a stamp as a time of day on the replayed Tuesday, with
// its date on any other day, and milliseconds when there are any.
func clockOf(ts int64) string {
	t := time.UnixMilli(ts).UTC()
	layout := "15:04:05"
	if ts%second != 0 {
		layout += ".000"
	}
	if ts < tuesday || ts >= tuesday+day {
		layout = "Mon Jan 2 " + layout
	}
	return t.Format(layout)
}

// ms renders milliseconds as a duration.
func ms(d int64) time.Duration { return time.Duration(d) * time.Millisecond }

// euros renders cents as euros.
func euros(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "−", -cents
	}
	return fmt.Sprintf("%s€%d.%02d", sign, cents/100, cents%100)
}

// fmtTap renders a tap with its stamp as a time of day.
func fmtTap(e kit.Event) string {
	return fmt.Sprintf("%s (line %s, stamped %s, %s)", e.ID, e.Key, clockOf(e.TS), euros(e.Value))
}

func fmtWindow(w window) string { return fmt.Sprintf("[%s, %s)", clockOf(w.start), clockOf(w.end)) }

func fmtRow(k row) string { return k.line + " " + fmtWindow(k.w) }

// fmtResult renders a ledger write.
func fmtResult(res kit.Result) string {
	kind := "total"
	if res.IsUpdate {
		kind = "correction"
	}
	return fmt.Sprintf("%s %s: %d taps, %s", kind, fmtRow(rowOf(res)), res.Count, euros(res.Sum))
}

// sortedRows returns the rows of both maps, in order.
func sortedRows(a, b map[row]kit.Result) []row {
	var ks []row
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.w.start, y.w.start), cmp.Compare(x.line, y.line))
	})
	return ks
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// capList returns the first n of xs, and a count of the rest.
func capList(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(slices.Clone(xs[:n]), fmt.Sprintf("… %d more", len(xs)-n))
}

// writeCapped writes the first n lines, and a count of the rest.
func writeCapped(b *strings.Builder, lines []string, n int) {
	for _, l := range capList(lines, n) {
		b.WriteString(l + "\n")
	}
}

// mustHave stops t as a suite bug unless n ≥ want: a replay too thin to
// show what the test exists to catch.
func mustHave(t *testing.T, n, want int, what string) {
	t.Helper()
	if n < want {
		t.Fatalf("suite bug: only %d %s, want at least %d (seed %d)", n, what, want, suite.Seed(t))
	}
}
