//go:build lab || solution

package quietpartition

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

	"github.com/flk-byo/course/drills/01-quiet-partition/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// Event time is milliseconds since midnight, so that timestamps read as a
// time of day: 14*hour is 14:00.
const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
)

// The drill's facts, from its card: the business's definition of a session,
// the SLA, and what the source does. They are the suite's, not the job's:
// a job that changes them does not change what it is held to.
const (
	sessionGap  = 15 * minute       // a till's session ends after 15 minutes without a scan
	sla         = 240 * time.Second // from a session's end to its commit
	partitions  = 12                // the checkouts topic
	maxDelivery = 65 * time.Second  // the slowest record, LATAM's, reaches the job this long after its scan
)

// region is one source of scans: the partition it delivers on and how.
// Records come every minEvery to maxEvery of processing time, each delivered
// minDelay to maxDelay after its scan.
type region struct {
	name               string
	partition          int
	minEvery, maxEvery time.Duration
	minDelay, maxDelay time.Duration
	tills              int // the region's tills: keys that come back (the rest are one-off kiosk scans)
	tillShare, outOf   int // a record is a till's with probability tillShare/outOf
}

// The regions with data, and the new one that goes live on partition 2 in
// TestFixReadsEveryPartition. NA, EU and APAC are busy and quick; LATAM's
// store gateway is sparse (a record every 20 to 45 s) and slow (each 60 to
// 65 s after its scan). The other 8 partitions never carry data.
var (
	na    = region{"na", 0, 5 * time.Second, 15 * time.Second, 0, 2 * time.Second, 30, 2, 5}
	eu    = region{"eu", 4, 5 * time.Second, 15 * time.Second, 0, 2 * time.Second, 30, 2, 5}
	apac  = region{"apac", 7, 5 * time.Second, 15 * time.Second, 0, 2 * time.Second, 30, 2, 5}
	latam = region{"latam", 9, 20 * time.Second, 45 * time.Second, 60 * time.Second, 65 * time.Second, 4, 1, 2}
	mea   = region{"mea", 2, 5 * time.Second, 15 * time.Second, 0, 2 * time.Second, 30, 2, 5}
)

// todaysRegions are the regions that carry data today.
var todaysRegions = []region{na, eu, apac, latam}

// span is a range [from, until) of event time.
type span struct{ from, until int64 }

// has reports whether ts is in the span.
func (s span) has(ts int64) bool { return ts >= s.from && ts < s.until }

// plan describes a replay of the checkouts topic: event time from from to
// until, processing time tracking it (epoch = from), the regions that
// deliver, and when some of them are silent.
type plan struct {
	from, until int64
	regions     []region
	quiet       map[string]span // region name → event time with no scans
	// returns plants LATAM tills that come back just inside the gap after
	// a silence of LATAM's that is long but normal (latamLongestSilence): see
	// latamReturns.
	returns bool
}

// scenario is a replay built from a plan: the records in delivery order.
type scenario struct {
	plan
	arrivals []engine.Arrival
	returns  []returnPair // the planted LATAM returns, if any
}

// returnPair is a LATAM till that scans once and comes back returnInside
// before its session would end (see latamReturns).
type returnPair struct{ first, back engine.Arrival }

// build generates the replay from rnd.
func (p plan) build(rnd *rand.Rand) scenario {
	sc := scenario{plan: p}
	for _, rg := range p.regions {
		slots := rg.slots(rnd, p)
		if p.returns && rg.name == latam.name {
			slots, sc.returns = latamReturns(rnd, p, rg, slots)
		}
		sc.arrivals = append(sc.arrivals, slots...)
	}
	slices.SortStableFunc(sc.arrivals, func(a, b engine.Arrival) int { return cmp.Compare(a.At, b.At) })
	return sc
}

// slots returns the region's records from p.from to p.until, in delivery
// order: one every minEvery to maxEvery of processing time, each stamped
// minDelay to maxDelay before its delivery, none stamped in the region's
// quiet span.
func (rg region) slots(rnd *rand.Rand, p plan) []engine.Arrival {
	var out []engine.Arrival
	end := time.Duration(p.until-p.from) * time.Millisecond
	for at := between(rnd, 0, rg.maxEvery); at < end; at += between(rnd, rg.minEvery, rg.maxEvery) {
		if a, ok := rg.record(rnd, p, at, between(rnd, rg.minDelay, rg.maxDelay)); ok {
			out = append(out, a)
		}
	}
	return out
}

// record returns the region's record delivered at at, stamped delay
// before, unless the region is quiet at that timestamp.
func (rg region) record(rnd *rand.Rand, p plan, at, delay time.Duration) (engine.Arrival, bool) {
	ts := p.from + (at - delay).Milliseconds()
	if q, ok := p.quiet[rg.name]; ok && q.has(ts) {
		return engine.Arrival{}, false
	}
	key := fmt.Sprintf("%s-kiosk-%d", rg.name, rnd.Uint32())
	if rnd.IntN(rg.outOf) < rg.tillShare {
		key = fmt.Sprintf("%s-till-%d", rg.name, rnd.IntN(rg.tills))
	}
	e := kit.Event{ID: fmt.Sprintf("%s-%d-%d", rg.name, at.Milliseconds(), rnd.Uint32()), Key: key, TS: ts, Value: 1 + rnd.Int64N(50)}
	return engine.Arrival{Partition: rg.partition, At: at, Event: e}, true
}

// returnInside is how long before its session would end a planted LATAM
// till comes back: well within the head start a watermark that runs ahead
// of LATAM gets over its records (see latamReturns).
const returnInside = 1 * second

// latamReturns plants, every 2 minutes of event time, a LATAM till that
// scans once and comes back returnInside before its session would end, its
// comeback delivered as late as the source allows (65 s after its scan,
// so its session ends 64 s before the comeback arrives), and a silence of
// LATAM's of just under 50 s (the longest the source allows a live LATAM,
// latamLongestSilence) before it. It returns the
// slots with the pairs in them, and the pairs. The pairs alternate between
// two shapes of silence:
//
//   - right before the comeback. With an idle timeout of 30 s LATAM is idle
//     at the last emission before the comeback (at least 34 s into the
//     silence): the watermark is then NA's, EU's and APAC's, at most 37 s
//     behind the clock (their records come every 15 s at most, 2 s late at
//     most, minus 20 s of out-of-orderness), 27 s past the session's end:
//     the session fires, and the comeback opens a second one.
//   - ending 26 s before the comeback, so that something the job does 30 to
//     50 s into a silence (a made-up heartbeat, say) has an emission after
//     it and before the comeback: a watermark for LATAM stamped "now" is
//     then 40 s past the session's end.
//
// With an idle timeout longer than LATAM's silences and no made-up
// records, LATAM holds the watermark at its own, a minute and 20 s behind
// the clock, and every comeback merges into its session.
func latamReturns(rnd *rand.Rand, p plan, rg region, slots []engine.Arrival) ([]engine.Arrival, []returnPair) {
	var pairs []returnPair
	planted := map[string]bool{} // IDs of the planted records: no later pair may move them
	for k := int64(1); ; k++ {
		i := slices.IndexFunc(slots, func(a engine.Arrival) bool { return a.Event.TS >= p.from+k*2*minute && !planted[a.Event.ID] })
		if i < 0 {
			return slots, pairs
		}
		first := slots[i]
		key := fmt.Sprintf("latam-till-back-%d", k)
		first.Event.Key = key
		backTS := first.Event.TS + sessionGap - returnInside
		if backTS >= p.until-5*minute {
			return slots, pairs
		}
		backAt := time.Duration(backTS-p.from)*time.Millisecond + rg.maxDelay
		back := engine.Arrival{Partition: rg.partition, At: backAt,
			Event: kit.Event{ID: key + "-back", Key: key, TS: backTS, Value: 1 + rnd.Int64N(50)}}
		// LATAM says nothing for latamLongestSilence, from quietFrom to quietUntil: drop
		// its records in that time, and deliver a kiosk scan at each end
		// (the comeback itself ends a silence right before it). The
		// silences next to it stay within 45 s: each record came within
		// 45 s of the one before. A pair whose silence would drop a planted
		// record is left out.
		quietUntil := backAt
		if k%2 == 0 {
			quietUntil = backAt - 26*time.Second
		}
		quietFrom := quietUntil - latamLongestSilence
		silenced := func(a engine.Arrival) bool { return a.At > quietFrom && a.At <= quietUntil }
		if slices.ContainsFunc(slots, func(a engine.Arrival) bool { return silenced(a) && planted[a.Event.ID] }) {
			continue
		}
		slots[i] = first
		slots = slices.DeleteFunc(slots, silenced)
		ends := []time.Duration{quietFrom}
		if quietUntil != backAt {
			ends = append(ends, quietUntil)
		}
		for n, at := range ends {
			if slices.ContainsFunc(slots, func(a engine.Arrival) bool { return a.At == at }) {
				continue
			}
			if a, ok := rg.record(rnd, p, at, between(rnd, rg.minDelay, rg.maxDelay)); ok {
				a.Event.Key = fmt.Sprintf("latam-kiosk-filler-%d-%d", k, n)
				slots = append(slots, a)
				planted[a.Event.ID] = true
			}
		}
		slots = append(slots, back)
		slices.SortStableFunc(slots, func(a, b engine.Arrival) int { return cmp.Compare(a.At, b.At) })
		planted[first.Event.ID], planted[back.Event.ID] = true, true
		pairs = append(pairs, returnPair{first, back})
	}
}

// between returns a random duration in [lo, hi], to the millisecond.
func between(rnd *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rnd.Int64N((hi-lo).Milliseconds()+1))*time.Millisecond
}

// at returns the processing time since the epoch at which the replay's
// clock reads event time ts.
func (sc scenario) at(ts int64) time.Duration { return time.Duration(ts-sc.from) * time.Millisecond }

// dataEnd returns the processing time of the last delivery.
func (sc scenario) dataEnd() time.Duration { return sc.arrivals[len(sc.arrivals)-1].At }

// events returns the scans in delivery order.
func (sc scenario) events() []kit.Event {
	out := make([]kit.Event, len(sc.arrivals))
	for i, a := range sc.arrivals {
		out[i] = a.Event
	}
	return out
}

// epochOf is the clock's reading when a replay from from starts: the
// processing time of day matches event time, so messages read naturally.
func epochOf(from int64) time.Time {
	return time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC).Add(time.Duration(from) * time.Millisecond)
}

// commit is one commit of the job: when a reader could first see it, and
// the results it made visible.
type commit struct {
	at      time.Duration // since the epoch
	results []kit.Result
}

// jobRun is one run of the job over a scenario: its config, its commits in
// order, and what downstream (summing per (Key, Start, End)) held after
// each.
type jobRun struct {
	sc        scenario
	cfg       engine.SessionJobConfig
	commits   []commit
	held      []kit.Result                 // the rows downstream holds at the end
	lastTouch map[sessionKey]time.Duration // when each row last changed
}

// sessionKey identifies a row downstream.
type sessionKey struct {
	key        string
	start, end int64
}

func keyOf(r kit.Result) sessionKey { return sessionKey{r.Key, r.Start, r.End} }

// runJob runs the job (Config and Run) over sc in a new directory, on a
// manual clock starting at sc's epoch, and follows its commits through
// OnStep: each checkpoint's writes (StepWrite with its id) become visible
// at the StepAfterCommit that covers its id. It stops the test if the job
// fails or its commits do not add up.
func runJob(t *testing.T, sc scenario) jobRun {
	t.Helper()
	dir := suite.TempDir(t)
	r := jobRun{sc: sc, cfg: Config(dir), lastTouch: map[sessionKey]time.Duration{}}
	clock := kit.NewManualClock(epochOf(sc.from))
	type stored struct {
		id, writes int64
	}
	writes := map[int64]int64{}
	var pending []stored
	var visible []commit
	cfg := r.cfg
	cfg.OnStep = func(step engine.Step, id int64) {
		switch step {
		case engine.StepWrite:
			writes[id]++
		case engine.StepStored:
			pending = append(pending, stored{id, writes[id]})
		case engine.StepAfterCommit:
			at := clock.Now().Sub(epochOf(sc.from))
			for len(pending) > 0 && pending[0].id <= id {
				visible = append(visible, commit{at: at, results: make([]kit.Result, pending[0].writes)})
				pending = pending[1:]
			}
		}
	}
	if err := Run(cfg, sc.arrivals, clock); err != nil {
		t.Fatalf("Run(Config(dir), %d records from %s to %s) = %v, want nil", len(sc.arrivals), clockOf(sc.from), clockOf(sc.until), err)
	}
	rs, err := engine.ReadCommitted(dir)
	if err != nil {
		t.Fatalf("ReadCommitted after Run = %v, want the committed results", err)
	}
	total := 0
	for _, c := range visible {
		total += len(c.results)
	}
	if total != len(rs) || len(pending) > 0 {
		t.Fatalf("the job's checkpoints do not add up: OnStep reported %d writes in %d commits (%d checkpoints stored but not\n"+
			"committed), ReadCommitted returns %d results. Run must run the engine with the config it is given (its OnStep\n"+
			"is how this suite sees commits) and return only when everything is committed.", total, len(visible), len(pending), len(rs))
	}
	rows := map[sessionKey]kit.Result{}
	for _, c := range visible {
		n := copy(c.results, rs)
		rs = rs[n:]
		for _, res := range c.results {
			k := keyOf(res)
			row := rows[k]
			row.Key, row.Start, row.End = res.Key, res.Start, res.End
			row.Count += res.Count
			row.Sum += res.Sum
			if row.Count == 0 {
				delete(rows, k)
			} else {
				rows[k] = row
			}
			r.lastTouch[k] = c.at
		}
	}
	r.commits = visible
	r.held = kit.SortResults(slices.Collect(maps.Values(rows)))
	return r
}

// oracle returns the sessions of sc's scans computed in one pass, as if
// they had all arrived in order at once: per key, scans sorted by
// timestamp form one session while each is at most the gap after the one
// before ([a, a+gap) and [b, b+gap) touch when b = a+gap). Each ID counts
// once.
func oracle(sc scenario) []kit.Result {
	seen := map[string]bool{}
	byKey := map[string][]kit.Event{}
	for _, e := range sc.events() {
		if !seen[e.ID] {
			seen[e.ID] = true
			byKey[e.Key] = append(byKey[e.Key], e)
		}
	}
	var out []kit.Result
	for key, es := range byKey {
		slices.SortFunc(es, func(a, b kit.Event) int { return cmp.Compare(a.TS, b.TS) })
		cur := kit.Result{Key: key, Start: es[0].TS}
		last := es[0].TS
		for _, e := range es {
			if e.TS > last+sessionGap {
				out = append(out, cur)
				cur = kit.Result{Key: key, Start: e.TS}
			}
			last = e.TS
			cur.End = last + sessionGap
			cur.Count++
			cur.Sum += e.Value
		}
		out = append(out, cur)
	}
	return kit.SortResults(out)
}

// checkResults fails t unless what downstream holds after r is exactly the
// oracle's sessions: every scan counted, once, in the right session, none
// lost as late. why says what usually goes wrong in the test's situation.
func checkResults(t *testing.T, r jobRun, why string) bool {
	t.Helper()
	want := oracle(r.sc)
	if slices.Equal(r.held, want) {
		return true
	}
	t.Errorf("the rollups table (the committed results, summed per till and session) differs from the sessions of the scans\n"+
		"computed in one pass (each till's scans, each once, split where two are more than 15 minutes apart):\n%s\n%s",
		windowtest.DiffResultsAs(r.held, want, r.fmtSession), why)
	return false
}

// lateSession is a session committed later than it should have been.
type lateSession struct {
	s        kit.Result
	closable time.Duration // when the replay's clock passed its end
	visible  time.Duration // when a reader first saw its final row; -1 if never
}

func (l lateSession) latency() time.Duration { return l.visible - l.closable }

// latencies returns, for every session of the oracle that ends (the
// replay's clock passes its end) while data still flows and that keep
// selects, its latency: from its end to the commit that made its final row
// visible. Sessions that end after the last delivery close with the final
// Flush and have no latency to speak of.
func (r jobRun) latencies(keep func(kit.Result) bool) []lateSession {
	var out []lateSession
	for _, s := range oracle(r.sc) {
		c := r.sc.at(s.End)
		if c > r.sc.dataEnd() || (keep != nil && !keep(s)) {
			continue
		}
		v, ok := r.lastTouch[keyOf(s)]
		if !ok {
			v = -1
		}
		out = append(out, lateSession{s, c, v})
	}
	return out
}

// overSLA returns the sessions of ls committed more than the SLA after
// their end (or never), worst first.
func overSLA(ls []lateSession) []lateSession {
	var out []lateSession
	for _, l := range ls {
		if l.visible < 0 || l.latency() > sla {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b lateSession) int { return cmp.Compare(b.latency(), a.latency()) })
	return out
}

// checkSLA fails t for every session of ls committed more than the SLA
// after its end, with the first's timeline; what names the sessions
// checked, why says what usually causes it.
func checkSLA(t *testing.T, r jobRun, ls []lateSession, what, why string) bool {
	t.Helper()
	late := overSLA(ls)
	if len(late) == 0 {
		return true
	}
	t.Errorf("%d of the %d sessions %s were committed more than the SLA (%v) after they ended; the worst, %s,\n"+
		"%s\n\n%s\n\n%s", len(late), len(ls), what, sla, r.fmtSession(late[0].s), r.describeLatency(late[0]),
		r.sessionTimeline(late[0], late[0].closable+sla, "when it was due"), why)
	return false
}

// describeLatency says when a session ended and when it was committed.
func (r jobRun) describeLatency(l lateSession) string {
	if l.visible < 0 {
		return fmt.Sprintf("ended at %s and was never committed with its final count and sum", r.fmtAt(l.closable))
	}
	return fmt.Sprintf("ended at %s and was committed at %s: %v after its end", r.fmtAt(l.closable), r.fmtAt(l.visible), l.latency())
}

// sessionTimeline draws what a late session's key and the partitions were
// doing: the session's scans, its end, when it was due, and each
// partition's state (last delivery, watermark, idle or not under the job's
// config) at processing time at, which moment says what it is.
func (r jobRun) sessionTimeline(l lateSession, at time.Duration, moment string) string {
	var b strings.Builder
	s := l.s
	fmt.Fprintf(&b, "timeline of %s (partition %d):\n", s.Key, r.partitionOf(s.Key))
	n := 0
	for _, a := range r.sc.arrivals {
		if a.Event.Key == s.Key && s.Start <= a.Event.TS && a.Event.TS < s.End {
			if n++; n <= 6 {
				fmt.Fprintf(&b, "  scan %-28s stamped %s, delivered %s\n", a.Event.ID, clockOf(a.Event.TS), r.fmtAt(a.At))
			}
		}
	}
	if n > 6 {
		fmt.Fprintf(&b, "  … %d more scans\n", n-6)
	}
	due := l.closable + sla
	fmt.Fprintf(&b, "  session end   %s (last scan + 15 min)\n", clockOf(s.End))
	fmt.Fprintf(&b, "  due by        %s (end + SLA %v)\n", r.fmtAt(due), sla)
	if l.visible >= 0 {
		fmt.Fprintf(&b, "  committed     %s\n", r.fmtAt(l.visible))
	} else {
		b.WriteString("  committed     never\n")
	}
	fmt.Fprintf(&b, "the partitions at %s, %s (watermark = latest stamp − OutOfOrderness %v; IdleTimeout %v):\n%s",
		r.fmtAt(at), moment, time.Duration(r.cfg.Watermarks.OutOfOrderness)*time.Millisecond, r.cfg.Watermarks.IdleTimeout, r.partitionStates(at))
	return b.String()
}

// partitionStates renders each partition's state at processing time now:
// its last delivery and watermark, and whether the job's config counts it
// idle (and so out of the min).
func (r jobRun) partitionStates(now time.Duration) string {
	last := make([]time.Duration, partitions)
	wm := make([]int64, partitions)
	for i := range wm {
		wm[i] = math.MinInt64
	}
	for _, a := range r.sc.arrivals {
		if a.At > now {
			break
		}
		last[a.Partition] = a.At
		wm[a.Partition] = max(wm[a.Partition], a.Event.TS-r.cfg.Watermarks.OutOfOrderness)
	}
	idle := r.cfg.Watermarks.IdleTimeout
	var lines []string
	for p := range partitions {
		state := "active"
		if idle > 0 && now-last[p] > idle {
			state = "idle"
		}
		name := r.sc.regionName(p)
		if wm[p] == math.MinInt64 {
			pins := "not idle: pins the min at −∞"
			if state == "idle" {
				pins = "idle: out of the min"
			}
			lines = append(lines, fmt.Sprintf("  %2d %-6s never delivered: no watermark, %s", p, name, pins))
			continue
		}
		lines = append(lines, fmt.Sprintf("  %2d %-6s last delivery %s, watermark %s, %s", p, name, r.fmtAt(last[p]), clockOf(wm[p]), state))
	}
	return strings.Join(lines, "\n")
}

// regionName names the region of the scenario that delivers on partition
// p, if any.
func (sc scenario) regionName(p int) string {
	for _, rg := range sc.regions {
		if rg.partition == p {
			return rg.name
		}
	}
	return ""
}

// partitionOf returns the partition that delivers key's scans.
func (r jobRun) partitionOf(key string) int {
	for _, a := range r.sc.arrivals {
		if a.Event.Key == key {
			return a.Partition
		}
	}
	return -1
}

// clockOf renders milliseconds since midnight as the clock reads it.
var clockOf = windowtest.TimeOfDay

// fmtAt renders a processing time since the epoch as the replay's time of
// day, e.g. "13:21:10 (+21m10s)".
func (r jobRun) fmtAt(d time.Duration) string {
	return fmt.Sprintf("%s (+%v)", clockOf(r.sc.from+d.Milliseconds()), d)
}

// fmtSession renders a session with its bounds as times of day.
func (r jobRun) fmtSession(s kit.Result) string {
	return fmt.Sprintf("%s [%s, %s) count=%d sum=%d", s.Key, clockOf(s.Start), clockOf(s.End), s.Count, s.Sum)
}

// latamLongestSilence is the longest LATAM may deliver nothing while live,
// by the card's facts: two scans 45 s apart, the first delivered 60 s after
// its scan and the next 65 s after, arrive 50 s apart. The planted
// silences are 1 ms shorter, so an idle timeout that a live LATAM can
// outlast is caught, however near the edge it is.
const latamLongestSilence = 50*time.Second - time.Millisecond
