//go:build lab || solution

package statenevershrinks

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// Event time is milliseconds since midnight, so that timestamps read as a
// time of day: 13*hour is 13:00.
const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
)

// The drill's facts, from its card: the business's windows, the memory
// budget and what the queue and the payment API do. They are the suite's,
// not the job's: a job that changes them does not change what it is held
// to.
const (
	windowSize  = 5 * minute  // settlement windows
	lateUpload  = 9 * minute  // an offline terminal's payment reaches the job at most this long after its window's end
	budget      = 12000       // remembered payment IDs the instance can afford
	minSpacing  = 100         // ms: the payment API admits one payment per 100 ms on a partition
	quickMax    = 2 * second  // most payments reach the job within 2 s of their stamp
	ackMin      = 60 * second // a payment whose ack is lost comes again 60 to 180 s after its first delivery
	ackMax      = 180 * second
	outboxReach = 90 * time.Minute // the outbox relay resends payments up to 90 minutes after it first sent them
	merchants   = 40
)

// budgetSpan is the event time whose payments, at the peak rate, fill the
// budget: 12 000 × 100 ms = 20 minutes.
const budgetSpan = budget * minSpacing

// traffic describes a stretch of the partition's payments: from from to
// until in event time, a payment every minSpacing + [0, extra] ms, a share
// of them uploaded late by an offline terminal, a share redelivered after a
// lost ack.
type traffic struct {
	from, until int64
	extra       int64   // extra spacing: 0 is the peak (one payment every 100 ms)
	delay       int64   // each payment is delivered within delay of its stamp
	lateShare   float64 // offline uploads, delivered up to lateUpload after their window's end
	ackShare    float64 // lost acks, redelivered 60 to 180 s after the first delivery
	forced      []int64 // stamps that must carry a payment (each ≥ minSpacing from the others)
}

// scenario is a replay of the partition: the deliveries in order, with
// epoch the event time the clock reads at processing time 0.
type scenario struct {
	epoch      int64
	deliveries []Delivery
}

// stamps returns the payments' timestamps of tr, ascending, each at least
// minSpacing after the one before (so at most 10 in any second, as the
// payment API allows), including every forced stamp.
func (tr traffic) stamps(rnd *rand.Rand) []int64 {
	forced := slices.Clone(tr.forced)
	slices.Sort(forced)
	forced = slices.DeleteFunc(forced, func(f int64) bool { return f < tr.from+minSpacing || f >= tr.until })
	out := []int64{tr.from}
	t, fi := tr.from, 0
	for {
		next := t + minSpacing + rnd.Int64N(tr.extra+1)
		if fi < len(forced) && forced[fi] < next+minSpacing {
			next = max(forced[fi], t+minSpacing)
			fi++
		}
		if next >= tr.until {
			return out
		}
		out = append(out, next)
		t = next
	}
}

// payments returns tr's payments, their first deliveries at processing
// time since epoch: within tr.delay of their stamp, or, for lateShare of
// them, an offline upload up to lateUpload after their window's end.
func (tr traffic) payments(rnd *rand.Rand, epoch int64, n *int) []Delivery {
	var out []Delivery
	for _, ts := range tr.stamps(rnd) {
		*n++
		e := kit.Event{ID: fmt.Sprintf("pay-%06d-%08x", *n, rnd.Uint32()), Key: fmt.Sprintf("m-%03d", rnd.IntN(merchants)),
			TS: ts, Value: 100 + rnd.Int64N(20000)}
		at := ts + rnd.Int64N(tr.delay+1)
		if rnd.Float64() < tr.lateShare {
			at = max(at, windowEnd(ts)+rnd.Int64N(lateUpload+1))
		}
		out = append(out, Delivery{At: msDur(at - epoch), Payment: e})
	}
	return out
}

// withAckRedeliveries returns ds with a redelivery, 60 to 180 s after its
// first delivery, of share of them.
func withAckRedeliveries(rnd *rand.Rand, ds []Delivery, share float64) []Delivery {
	out := slices.Clone(ds)
	for _, d := range ds {
		if rnd.Float64() < share {
			out = append(out, Delivery{At: d.At + msDur(ackMin+rnd.Int64N(ackMax-ackMin+1)), Payment: d.Payment})
		}
	}
	return out
}

// build returns the scenario of tr with its clock's epoch at tr.from.
func (tr traffic) build(rnd *rand.Rand) scenario {
	n := 0
	ds := withAckRedeliveries(rnd, tr.payments(rnd, tr.from, &n), tr.ackShare)
	return scenario{epoch: tr.from, deliveries: sortByArrival(ds)}
}

// ordinary is a stretch of an ordinary day: about 6 payments a second, 2 %
// offline uploads, 5 % lost acks.
func ordinary(from, until int64) traffic {
	return traffic{from: from, until: until, extra: 140, delay: quickMax, lateShare: 0.02, ackShare: 0.05}
}

// sortByArrival sorts ds by arrival time, keeping the order of equal ones.
func sortByArrival(ds []Delivery) []Delivery {
	slices.SortStableFunc(ds, func(a, b Delivery) int { return cmp.Compare(a.At, b.At) })
	return ds
}

// windowEnd returns the end of the card's window that holds ts.
func windowEnd(ts int64) int64 { return ts - ts%windowSize + windowSize }

// msDur turns milliseconds into a Duration.
func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// epochTime is the clock's reading at processing time 0 of a replay whose
// epoch is event time epoch: processing time of day matches event time.
func epochTime(epoch int64) time.Time {
	return time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC).Add(msDur(epoch))
}

// jobRun is one run of the job over a scenario: its config, what it
// emitted, and the IDs it reported remembering after each delivery.
type jobRun struct {
	sc         scenario
	cfg        JobConfig
	results    []kit.Result
	remembered []int          // after each delivery, as OnDelivery reported
	latest     []int64        // the latest stamp after each delivery
	first      map[string]int // each payment's first delivery (an index)
}

// runJob runs the job (Config and Run) over sc on a manual clock starting
// at sc's epoch, recording what OnDelivery reports. It stops the test if
// the job fails or does not report once per delivery.
func runJob(t *testing.T, sc scenario) jobRun {
	t.Helper()
	r := jobRun{sc: sc, cfg: Config()}
	cfg := r.cfg
	cfg.OnDelivery = func(_ Delivery, remembered int) { r.remembered = append(r.remembered, remembered) }
	rs, err := Run(cfg, sc.deliveries, kit.NewManualClock(epochTime(sc.epoch)))
	if err != nil {
		t.Fatalf("Run(Config(), %d deliveries from %s) = %v, want nil", len(sc.deliveries), clockOf(sc.epoch), err)
	}
	if len(r.remembered) != len(sc.deliveries) {
		t.Fatalf("OnDelivery was called %d times for %d deliveries, want once after each: it is the state-size metric this\n"+
			"suite (and the memory alert) reads. Run must keep calling it with every payment ID the job holds for dedup.",
			len(r.remembered), len(sc.deliveries))
	}
	r.results = rs
	latest := int64(math.MinInt64)
	r.first = map[string]int{}
	for i, d := range sc.deliveries {
		latest = max(latest, d.Payment.TS)
		r.latest = append(r.latest, latest)
		if _, ok := r.first[d.Payment.ID]; !ok {
			r.first[d.Payment.ID] = i
		}
	}
	return r
}

// watermarkBefore is the watermark the job's engine had when delivery i
// arrived, by the job's own WatermarkDelay: the latest stamp before it,
// less the delay.
func (r jobRun) watermarkBefore(i int) int64 {
	if i == 0 {
		return math.MinInt64
	}
	return r.latest[i-1] - r.cfg.Windows.WatermarkDelay
}

// window identifies a merchant's settlement window.
type window struct {
	key   string
	start int64
}

// held returns what settlement holds after r: the last total emitted for
// each merchant and window (a correction replaces the total before it).
func (r jobRun) held() map[window]kit.Result {
	out := map[window]kit.Result{}
	for _, res := range r.results {
		res.IsUpdate = false
		out[window{res.Key, res.Start}] = res
	}
	return out
}

// oracle returns the totals of sc's payments, each counted once in its
// card's window: every payment's first delivery in these replays is on
// time or within the lateness the card allows, so every one counts.
func (sc scenario) oracle() map[window]kit.Result {
	seen := map[string]bool{}
	out := map[window]kit.Result{}
	for _, d := range sc.deliveries {
		e := d.Payment
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		start := windowEnd(e.TS) - windowSize
		w := window{e.Key, start}
		res := out[w]
		res.Key, res.Start, res.End = e.Key, start, start+windowSize
		res.Count++
		res.Sum += e.Value
		out[w] = res
	}
	return out
}

// checkTotals fails t unless settlement holds, after r, exactly the totals
// of the payments, each counted once. For the first total that differs it
// shows the deliveries of the payments that made it differ, with a
// timeline. why says what usually goes wrong in the test's situation.
func checkTotals(t *testing.T, r jobRun, why string) bool {
	t.Helper()
	got, want := r.held(), r.sc.oracle()
	var diffs []window
	for _, w := range slices.Collect(maps.Keys(want)) {
		if got[w] != want[w] {
			diffs = append(diffs, w)
		}
	}
	for w := range got {
		if _, ok := want[w]; !ok {
			diffs = append(diffs, w)
		}
	}
	if len(diffs) == 0 {
		return true
	}
	slices.SortFunc(diffs, func(a, b window) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.key, b.key)) })
	var lines []string
	for i, w := range diffs {
		if i == 8 {
			lines = append(lines, fmt.Sprintf("  … %d more", len(diffs)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("  %s [%s, %s): got %s, want %s", w.key, clockOf(w.start), clockOf(w.start+windowSize),
			fmtTotal(got[w]), fmtTotal(want[w])))
	}
	t.Errorf("%d of the %d settlement totals (the last total emitted per merchant and window) differ from the payments,\n"+
		"each counted once in its 5-minute window:\n%s\n\n%s\n\n%s",
		len(diffs), len(want), strings.Join(lines, "\n"), r.explain(diffs[0], got[diffs[0]], want[diffs[0]]), why)
	return false
}

// fmtTotal renders a total, or "nothing" for none.
func fmtTotal(res kit.Result) string {
	if res.Count == 0 {
		return "nothing"
	}
	return fmt.Sprintf("count=%d sum=%d", res.Count, res.Sum)
}

// explain says what made the total of w differ: a redelivery counted again
// (more than wanted), or a payment that did not count (less).
func (r jobRun) explain(w window, got, want kit.Result) string {
	if got.Count > want.Count {
		return r.explainTwice(w, got.Sum-want.Sum)
	}
	end := w.start + windowSize
	for i, d := range r.sc.deliveries {
		e := d.Payment
		if e.Key != w.key || windowEnd(e.TS) != end || r.firstIndex(e.ID) != i {
			continue
		}
		if wm := r.watermarkBefore(i); wm >= end {
			return fmt.Sprintf("%s of %s, stamped %s, first reached the job at %s,\n"+
				"when the watermark was %s, %v past its window's end: a terminal's offline upload, which the card\n"+
				"says must still correct the window (uploads come at most %v after it closes). The job's AllowedLateness\n"+
				"is %v: a window expires that long after its end, and a payment for it then goes to the reconciliation feed.",
				e.ID, e.Key, clockOf(e.TS), r.fmtAt(d.At), clockOf(wm), msDur(wm-end), msDur(lateUpload),
				msDur(r.cfg.Windows.AllowedLateness))
		}
	}
	return fmt.Sprintf("%s's window [%s, %s) is missing payments its first deliveries put there.", w.key, clockOf(w.start), clockOf(end))
}

// firstIndex returns the index of id's first delivery.
func (r jobRun) firstIndex(id string) int { return r.first[id] }

// explainTwice finds the redelivery that most likely counted again in w
// (one that arrived while w was still open, its value extra if it is the
// only one) and draws its timeline.
func (r jobRun) explainTwice(w window, extra int64) string {
	end := w.start + windowSize
	var cands []int
	for i, d := range r.sc.deliveries {
		e := d.Payment
		if e.Key == w.key && windowEnd(e.TS) == end && r.firstIndex(e.ID) != i && r.watermarkBefore(i) < end+r.cfg.Windows.AllowedLateness {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return fmt.Sprintf("No redelivery of %s's window [%s, %s) arrived while it was open: the job counted something twice that the\n"+
			"queue delivered once.", w.key, clockOf(w.start), clockOf(end))
	}
	pick := cands[0]
	if i := slices.IndexFunc(cands, func(i int) bool { return r.sc.deliveries[i].Payment.Value == extra }); i >= 0 {
		pick = cands[i]
	}
	return r.twiceTimeline(pick)
}

// twiceTimeline draws a redelivery counted again: its payment's window and
// lateness, how long the job's SeenTTL keeps the ID, and the watermark when
// the redelivery arrived, in event time.
func (r jobRun) twiceTimeline(i int) string {
	d := r.sc.deliveries[i]
	e := d.Payment
	first := r.sc.deliveries[r.firstIndex(e.ID)]
	start := windowEnd(e.TS) - windowSize
	end := start + windowSize
	expires := end + r.cfg.Windows.AllowedLateness
	ttl := r.cfg.SeenTTL.Milliseconds()
	forgotten := e.TS + ttl
	wm := r.watermarkBefore(i)
	lo, hi := start, max(expires, wm, forgotten)+windowSize/5
	const width = 64
	col := func(ts int64) int { return int(float64(ts-lo) / float64(hi-lo) * width) }
	row := func(from, to int64, fill, tail string) string {
		a, b := col(max(from, lo)), col(min(to, hi))
		return strings.Repeat(" ", a) + "[" + strings.Repeat(fill, max(0, b-a-1)) + ")" + tail
	}
	var b strings.Builder
	fmt.Fprintf(&b, "timeline of %s (%s), counted twice:\n", e.ID, e.Key)
	fmt.Fprintf(&b, "  stamped      %s, first delivered %s, counted\n", clockOf(e.TS), r.fmtAt(first.At))
	fmt.Fprintf(&b, "  redelivered  %s, %v later; the watermark was %s\n", r.fmtAt(d.At), d.At-first.At, clockOf(wm))
	fmt.Fprintf(&b, "  window       [%s, %s), expires at %s (end + AllowedLateness %v)\n", clockOf(start), clockOf(end), clockOf(expires),
		msDur(r.cfg.Windows.AllowedLateness))
	if ttl > 0 {
		fmt.Fprintf(&b, "  ID forgotten at watermark %s (stamp + SeenTTL %v)\n", clockOf(forgotten), r.cfg.SeenTTL)
	}
	axis := []byte(strings.Repeat(" ", width+10))
	for _, ts := range []int64{start, end, expires} {
		label, c := clockOf(ts), col(ts)
		if c+len(label) <= len(axis) && strings.TrimSpace(string(axis[max(0, c-1):c+len(label)])) == "" {
			copy(axis[c:], label)
		}
	}
	fmt.Fprintf(&b, "\n  %-12s %s\n", "event time", strings.TrimRight(string(axis), " "))
	fmt.Fprintf(&b, "  %-12s %s\n", "window", row(start, end, "═", ""))
	fmt.Fprintf(&b, "  %-12s %s\n", "lateness", row(end, expires, "┈", " expires"))
	if ttl > 0 {
		fmt.Fprintf(&b, "  %-12s %s\n", "ID kept", row(e.TS, forgotten, "─", " forgotten "+clockOf(forgotten)))
	} else {
		fmt.Fprintf(&b, "  %-12s SeenTTL %v: kept for ever\n", "ID kept", r.cfg.SeenTTL)
	}
	fmt.Fprintf(&b, "  %-12s %s▲ %s, when the redelivery arrived", "watermark", strings.Repeat("═", col(min(wm, hi))), clockOf(wm))
	switch {
	case ttl > 0 && wm < forgotten:
		b.WriteString("\n\nIts SeenTTL had not run out: the job forgot the ID some other way (clearing or evicting its seen\n" +
			"set, or a clock) while its window still took payments.")
	case ttl > 0:
		b.WriteString("\n\nThe watermark had passed stamp + SeenTTL, so the ID was forgotten, but not the window's expiry: the\n" +
			"window still took payments, and the redelivery was one.")
	}
	return b.String()
}

// peak returns the most IDs r's job reported remembering, and the delivery
// after which it first did.
func (r jobRun) peak() (n, at int) {
	for i, m := range r.remembered {
		if m > n {
			n, at = m, i
		}
	}
	return n, at
}

// checkRemembered fails t if r's job ever remembered more than limit IDs
// (limitName names the limit), with how its state grew and what the
// peak's span of event time was; why says what usually causes it.
func checkRemembered(t *testing.T, r jobRun, limit int, limitName, why string) bool {
	t.Helper()
	n, at := r.peak()
	if n <= limit {
		return true
	}
	over := slices.IndexFunc(r.remembered, func(m int) bool { return m > limit })
	t.Errorf("the job remembered %d payment IDs after delivery %d (at %s), more than %s, %d; it first went over at %s.\n"+
		"Its state, sampled every 10 minutes of processing time (the latest stamp then; the IDs remembered):\n%s\n\n"+
		"%d IDs are at least %v of event time at the peak rate (one payment per 100 ms), and the job then needed only\n"+
		"the IDs whose windows can still change: the last AllowedLateness + WindowSize, plus the watermark's delay.\n\n%s",
		n, at+1, r.fmtAt(r.sc.deliveries[at].At), limitName, limit, r.fmtAt(r.sc.deliveries[over].At), r.growth(over, at),
		n, msDur(int64(n)*minSpacing), why)
	return false
}

// growth renders r's remembered IDs every 10 minutes of processing time,
// and after the deliveries marked.
func (r jobRun) growth(marked ...int) string {
	var lines []string
	next := time.Duration(0)
	for i, d := range r.sc.deliveries {
		if d.At >= next || i == len(r.sc.deliveries)-1 || slices.Contains(marked, i) {
			lines = append(lines, fmt.Sprintf("  %s  latest stamp %s  %6d", r.fmtAt(d.At), clockOf(r.latest[i]), r.remembered[i]))
			next = d.At.Truncate(10*time.Minute) + 10*time.Minute
		}
	}
	return strings.Join(lines, "\n")
}

// committedLimit returns the most IDs the job may remember in a check of
// the fix: MaxRememberedIDs, or the budget where that is not a number in
// (0, budget] (TestMaxRememberedIDsIsWithinTheBudget says why).
func committedLimit() (limit int, name string) {
	if MaxRememberedIDs <= 0 || MaxRememberedIDs > budget {
		return budget, "the instance's budget"
	}
	return MaxRememberedIDs, "MaxRememberedIDs"
}

// configBound returns the most IDs the job's configuration lets it
// remember, and how that is made up: an ID is remembered while the
// watermark is below its stamp + SeenTTL, and the watermark is the latest
// stamp − WatermarkDelay, so every remembered ID is stamped in the last
// SeenTTL + WatermarkDelay of event time, which holds at most one payment
// per 100 ms. ok is false without a TTL, and so without a bound.
func configBound(cfg JobConfig) (bound int, sum string, ok bool) {
	ttl, delay := cfg.SeenTTL.Milliseconds(), cfg.Windows.WatermarkDelay
	if ttl <= 0 {
		return 0, "", false
	}
	span := ttl + delay
	bound = int((span + minSpacing - 1) / minSpacing)
	return bound, fmt.Sprintf("(SeenTTL %v + WatermarkDelay %v) at one payment per 100 ms = %d IDs", cfg.SeenTTL, msDur(delay), bound), true
}

// peakTraffic returns a replay at the payment API's limit, one payment
// every 100 ms, each delivered the instant it is stamped, from 13:00 for
// length: the most IDs any stretch of event time can hold, all of them
// there at once.
func peakTraffic(rnd *rand.Rand, length int64) scenario {
	return traffic{from: 13 * hour, until: 13*hour + length}.build(rnd)
}

// peakLength returns how long a peak replay must run for a job with cfg to
// reach its most remembered IDs, capped a little past the budget's span
// (a job that needs longer is over the budget there already), plus 2
// minutes.
func peakLength(cfg JobConfig) int64 {
	span := int64(budgetSpan + second)
	if ttl := cfg.SeenTTL.Milliseconds(); ttl > 0 {
		span = min(span, ttl+cfg.Windows.WatermarkDelay)
	}
	return span + 2*minute
}

// clockOf renders milliseconds since midnight as the clock reads it.
var clockOf = windowtest.TimeOfDay

// fmtAt renders a processing time since the epoch as the replay's time of
// day, e.g. "13:21:10 (+21m10s)".
func (r jobRun) fmtAt(d time.Duration) string {
	return fmt.Sprintf("%s (+%v)", clockOf(r.sc.epoch+d.Milliseconds()), d)
}
