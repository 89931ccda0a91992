//go:build lab || solution

package sessions

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

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// Event time in the capstone is milliseconds since midnight, so that
// timestamps read as a time of day: 2*hour is 02:00.
const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
)

// clockOf renders milliseconds since midnight as the clock reads it.
var clockOf = windowtest.TimeOfDay

// region is one source partition with data. The other partitions of the
// job never deliver anything: 8 partitions, 3 with data.
type region struct {
	name       string
	partition  int
	quietFrom  int64 // no event has a timestamp in [quietFrom, quietUntil)
	quietUntil int64
}

// regions are the partitions with data: EU is silent from 02:00 to 04:00
// (a maintenance window upstream, or a region asleep); US and APAC never.
var regions = []region{
	{"eu", 1, 2 * hour, 4 * hour},
	{"us", 4, 0, 0},
	{"apac", 6, 0, 0},
}

// scenario is a replay of the quiet-partition job's source: processing
// time tracks event time, each event delivered up to maxDelay after its
// timestamp, a few redelivered later (at-least-once).
type scenario struct {
	from, until int64         // event time of the replay, ms since midnight
	maxDelay    time.Duration // largest delay of a delivery behind its timestamp
	arrivals    []Arrival
}

// at returns the processing time (since the epoch) at which the replay's
// clock reads event time ts.
func (sc scenario) at(ts int64) time.Duration { return time.Duration(ts-sc.from) * time.Millisecond }

// lastFirstDelivery returns when the last event delivered for the first
// time arrives: the end of the data, redeliveries apart.
func (sc scenario) lastFirstDelivery() time.Duration {
	seen := map[string]bool{}
	var last time.Duration
	for _, a := range sc.arrivals {
		if !seen[a.Event.ID] {
			seen[a.Event.ID] = true
			last = a.At
		}
	}
	return last
}

// events returns the events of the arrivals, in arrival order.
func (sc scenario) events() []kit.Event {
	out := make([]kit.Event, len(sc.arrivals))
	for i, a := range sc.arrivals {
		out[i] = a.Event
	}
	return out
}

// newScenario generates the source of the sessions job from from to until
// (ms since midnight). Each region has regular users, who come in bursts
// of 1 to 5 events a few minutes apart and then stay away for 35 to 80
// minutes (longer than a 30-minute gap: a new session), and one-off
// visitors, one every 20 to 50 seconds, so that a partition with data is
// never silent for a minute, except EU in its quiet hours. Every event is
// delivered on its region's partition up to maxDelay after its timestamp;
// 2% are delivered a second time up to 5 minutes later.
func newScenario(rnd *rand.Rand, from, until int64, maxDelay time.Duration) scenario {
	sc := scenario{from: from, until: until, maxDelay: maxDelay}
	n := 0
	add := func(rg region, key string, ts int64) {
		if ts < from || ts >= until || (ts >= rg.quietFrom && ts < rg.quietUntil) {
			return
		}
		n++
		e := kit.Event{ID: fmt.Sprintf("%s-%d", rg.name, n), Key: key, TS: ts, Value: 1 + rnd.Int64N(10)}
		at := sc.at(ts) + time.Duration(rnd.Int64N(maxDelay.Milliseconds()+1))*time.Millisecond
		sc.arrivals = append(sc.arrivals, Arrival{Partition: rg.partition, At: at, Event: e})
		if rnd.IntN(50) == 0 {
			again := at + time.Duration(rnd.Int64N(5*minute))*time.Millisecond
			sc.arrivals = append(sc.arrivals, Arrival{Partition: rg.partition, At: again, Event: e})
		}
	}
	for _, rg := range regions {
		for u := range 6 {
			key := fmt.Sprintf("%s-user%d", rg.name, u)
			ts := from + rnd.Int64N(20*minute)
			for ts < until {
				for range 1 + rnd.IntN(5) { // a burst: one session
					add(rg, key, ts)
					ts += minute + rnd.Int64N(7*minute)
				}
				ts += 35*minute + rnd.Int64N(45*minute) // away: the next burst is a new session
			}
		}
		for ts, v := from+rnd.Int64N(20*second), 0; ts < until; ts, v = ts+20*second+rnd.Int64N(30*second), v+1 {
			add(rg, fmt.Sprintf("%s-visitor%d", rg.name, v), ts)
		}
	}
	slices.SortStableFunc(sc.arrivals, func(a, b Arrival) int { return cmp.Compare(a.At, b.At) })
	return sc
}

// jobEpoch is the clock's reading when the capstone's jobs start: the
// replay's processing time starts at the same time of day as its event
// time, which makes the failure messages easy to read.
func jobEpoch(from int64) time.Time {
	return time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC).Add(time.Duration(from) * time.Millisecond)
}

// stepAt is one OnStep call of a run of the job, with the clock's reading
// at that moment, since the epoch.
type stepAt struct {
	step Step
	id   int64
	at   time.Duration
}

// jobRun is what one run of RunSessionJob showed through OnStep, in this
// process (runJob) or in a child process (crash_helpers_test.go). Times are
// the clock's readings since the job's epoch.
type jobRun struct {
	start  time.Duration // when the run started: 0 for a fresh start, the restart time after a crash
	steps  []stepAt      // every OnStep call, in order
	killed bool          // the run was killed with SIGKILL right after its last step
	end    time.Duration // when it was killed, or when RunSessionJob returned
}

// count returns how many times the run reached step.
func (r jobRun) count(step Step) int {
	n := 0
	for _, s := range r.steps {
		if s.step == step {
			n++
		}
	}
	return n
}

// runJob runs RunSessionJob in this process on clock, recording every
// OnStep call; times are since epoch.
func runJob(cfg SessionJobConfig, arrivals []Arrival, clock *kit.ManualClock, epoch time.Time) (jobRun, error) {
	run := jobRun{start: clock.Now().Sub(epoch)}
	cfg.OnStep = func(step Step, id int64) {
		run.steps = append(run.steps, stepAt{step, id, clock.Now().Sub(epoch)})
	}
	err := RunSessionJob(cfg, arrivals, clock)
	run.end = clock.Now().Sub(epoch)
	return run, err
}

// txn is one committed transaction of a job: the results written with one
// checkpoint, and when a reader could first see them.
type txn struct {
	id        int64
	run       int           // the run (0-based) that stored its checkpoint
	visibleAt time.Duration // since the epoch
	results   []kit.Result
}

// committedTxns splits what a job committed over its runs (the killed ones
// first, in order, then the one that finished) into its transactions, from
// what the runs reported to OnStep. A checkpoint's transaction is committed
// exactly when the checkpoint is stored (OnStep(StepStored, n)): it holds
// the writes that run reported with id n (OnStep(StepWrite, n)), and a
// reader sees it from the run's next OnStep(StepAfterCommit, m ≥ n) or, if
// the run was killed first, from the start of the next run, whose recovery
// commits the stored checkpoint's pending transactions before anything
// else. The writes of a checkpoint that was never stored were aborted. It
// returns a problem instead if the reports and the committed output do not
// add up.
func committedTxns(runs []jobRun, committed []kit.Result) ([]txn, string) {
	var txns []txn
	for j, run := range runs {
		writes := map[int64]int{}
		open := len(txns) // the first transaction of this run not yet visible
		for _, s := range run.steps {
			switch s.step {
			case StepWrite:
				writes[s.id]++
			case StepStored:
				if n := len(txns); n > 0 && s.id <= txns[n-1].id {
					return nil, fmt.Sprintf("run %d stored checkpoint %d after checkpoint %d was stored: checkpoint ids increase, across\n"+
						"restarts too, so that the sink's transactions (and ReadCommitted) follow the order of the output.", j+1, s.id, txns[n-1].id)
				}
				txns = append(txns, txn{id: s.id, run: j, visibleAt: -1, results: make([]kit.Result, writes[s.id])})
			case StepAfterCommit:
				for ; open < len(txns) && txns[open].id <= s.id; open++ {
					txns[open].visibleAt = s.at
				}
			}
		}
		for ; open < len(txns); open++ {
			if j+1 == len(runs) {
				return nil, fmt.Sprintf("the last run stored checkpoint %d but never reported OnStep(StepAfterCommit, n ≥ %d): RunSessionJob\n"+
					"returns when every result is committed, after the final checkpoint's commit.", txns[open].id, txns[open].id)
			}
			txns[open].visibleAt = runs[j+1].start // recovered and committed when the next run starts
		}
	}
	total := 0
	for _, x := range txns {
		total += len(x.results)
	}
	if total != len(committed) {
		return nil, fmt.Sprintf("OnStep reported %d writes for the %d stored checkpoints, but ReadCommitted returns %d results.\n"+
			"Report OnStep(StepWrite, n) after each sink Write, n being the checkpoint that write is committed with.",
			total, len(txns), len(committed))
	}
	for i := range txns {
		n := copy(txns[i].results, committed)
		committed = committed[n:]
	}
	return txns, ""
}

// visibleSince applies the transactions downstream, in order, and returns
// for each row downstream came to hold the time a reader could first see
// it. It returns a problem instead if a transaction cannot be applied.
func visibleSince(txns []txn) (map[kit.Result]time.Duration, string) {
	d := newDownstream()
	since := map[kit.Result]time.Duration{}
	for _, x := range txns {
		if problem := d.apply(x.results); problem != "" {
			return nil, fmt.Sprintf("checkpoint %d's transaction: %s", x.id, problem)
		}
		for _, r := range x.results {
			if row, ok := d.row(sessionKey{r.Key, r.Start, r.End}); ok && r.Count > 0 {
				if _, seen := since[row]; !seen {
					since[row] = x.visibleAt
				}
			}
		}
	}
	return since, ""
}

// fmtAt renders a processing time since the epoch as the replay's time of
// day (the epoch being the replay's start) with the offset, e.g.
// "02:13:05 (+43m5s)".
func fmtAt(from int64, at time.Duration) string {
	return fmt.Sprintf("%s (+%v)", clockOf(from+at.Milliseconds()), at)
}

// fmtEvent renders an event with its timestamp as a time of day.
func fmtEvent(e kit.Event) string {
	return fmt.Sprintf("%s (%s at %s, value %d)", e.ID, e.Key, clockOf(e.TS), e.Value)
}

// fmtSession renders a session with its bounds as times of day.
func fmtSession(r kit.Result) string {
	return fmt.Sprintf("%s [%s, %s) count=%d sum=%d", r.Key, clockOf(r.Start), clockOf(r.End), r.Count, r.Sum)
}

// arrivalsOf returns the arrivals of key, rendered one a line, at most n.
func arrivalsOf(sc scenario, key string, n int) string {
	var lines []string
	for _, a := range sc.arrivals {
		if a.Event.Key == key {
			lines = append(lines, fmt.Sprintf("    partition %d at %s: %v (event time %s)", a.Partition, fmtAt(sc.from, a.At), a.Event, clockOf(a.Event.TS)))
		}
	}
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("    … %d more", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

// diffSessions describes how the sessions got differ from want, with
// times of day.
func diffSessions(got, want []kit.Result) string {
	return windowtest.DiffResultsAs(got, want, fmtSession)
}

// deadline is when a session must be visible downstream at the latest.
//
// A run that starts at R (0 for a fresh start) has new Watermarks: the five
// partitions that never deliver have no watermark and pin the combined one
// at math.MinInt64 until they are idle again, which the first emission
// after R + IdleTimeout sees, at most R + IdleTimeout + EmitInterval. From
// that emission on, the run closes a session within closingBound of the
// moment it became closable, as an uninterrupted run does. So a session
// closable at c is visible by max(c + closingBound, R + IdleTimeout +
// EmitInterval), in the first run that is not killed before that moment
// (the run that is killed before its deadline passes the session on to the
// next run, whose later start gives it a later deadline).
type deadline struct {
	at      time.Duration // since the epoch
	run     int           // the run (0-based) the deadline counts from
	restart bool          // the restart term is the later one: the session waited for the run to start and its partitions to go idle
}

// deadlineOf returns the deadline of a session closable at c, over runs.
func deadlineOf(c time.Duration, runs []jobRun) deadline {
	for j, run := range runs {
		d := max(c+closingBound, run.start+capstoneIdle+capstoneEmit)
		if !run.killed || run.end > d {
			return deadline{at: d, run: j, restart: d > c+closingBound}
		}
	}
	panic("suite bug: the last run of a job was killed")
}

// latency is how a job's runs kept the capstone's commitment on the
// sessions that close while data flows.
type latency struct {
	checked      int           // sessions whose deadline comes before the end of the data
	afterRestart int           // of those, the ones whose deadline counts from a restart
	inQuiet      int           // of those, the ones that end during EU's quiet hours
	worst        time.Duration // the largest visible − closable
	late         []string      // the sessions visible after their deadline (at most 5), described
	lateKeys     []string      // their keys
	lateCount    int
}

// measureLatency checks every session of want against its deadline over
// runs, from the times since says each became visible. It checks only the
// sessions whose deadline comes before the last first delivery of sc: the
// bound holds while data flows, with some partition active at every
// emission. (Redeliveries after that carry old timestamps, and once every
// partition is idle the watermark follows stage 07's rule, not this
// bound.)
func measureLatency(sc scenario, want []kit.Result, runs []jobRun, since map[kit.Result]time.Duration) latency {
	var l latency
	dataUntil := sc.lastFirstDelivery()
	for _, s := range want {
		closable := sc.at(s.End)
		d := deadlineOf(closable, runs)
		if d.at > dataUntil {
			continue // closes after the data stops, or with the final Flush
		}
		l.checked++
		if d.restart {
			l.afterRestart++
		}
		if s.End >= 2*hour && s.End < 4*hour {
			l.inQuiet++
		}
		at := since[s] // downstream ends holding exactly want, so every s is there
		l.worst = max(l.worst, at-closable)
		if at <= d.at {
			continue
		}
		if l.lateCount++; len(l.late) < 5 {
			l.lateKeys = append(l.lateKeys, s.Key)
			due := fmt.Sprintf("closable + %v", closingBound)
			if d.restart {
				due = fmt.Sprintf("run %d's start %s + IdleTimeout %v + EmitInterval %v", d.run+1, fmtAt(sc.from, runs[d.run].start), capstoneIdle, capstoneEmit)
			}
			l.late = append(l.late, fmt.Sprintf("  %s (partition %d): closable at %s, due by %s (%s), visible at %s: %v late\n%s",
				fmtSession(s), partitionOf(sc, s.Key), fmtAt(sc.from, closable), fmtAt(sc.from, d.at), due, fmtAt(sc.from, at),
				at-d.at, arrivalsOf(sc, s.Key, 8)))
		}
	}
	return l
}

// partitionOf returns the partition that delivers key's events.
func partitionOf(sc scenario, key string) int {
	for _, a := range sc.arrivals {
		if a.Event.Key == key {
			return a.Partition
		}
	}
	return -1
}

// allIdle is the replay of the all-idle test: the capstone's source from
// 01:30 to 02:40 in which APAC's data stops at 02:25, while its connector,
// stuck, goes on redelivering its last event every 30 s (at-least-once
// retries) until after US has stopped. So APAC stays active with the lower
// watermark and holds the combined one at its own. Its last redelivery is
// 30 s or so before an emission time: at that emission APAC is still
// active; at the next every partition is idle, and the watermark jumps to
// US's. Twenty minutes later two stragglers come on APAC, behind the new
// watermark.
type allIdle struct {
	sc         scenario
	wms        map[int]int64 // each partition's final watermark, stragglers apart
	highest    int64         // the highest of them, US's
	resendFrom time.Duration // APAC's first redelivery of its last event
	allIdleAt  time.Duration // every partition is idle after this moment: APAC's last redelivery + IdleTimeout
	stragglers time.Duration // when the stragglers arrive: the last arrivals, then Flush
	lastCall   kit.Event     // an APAC event whose session ends 30 s before highest
	correction kit.Event     // a straggler that merges with lastCall's session, fired but within lateness: a correction
	late       kit.Event     // a straggler whose own session expired at highest: side output
}

// The all-idle replay's timing: APAC's last event (event time), its
// connector's retry interval, and the wait for the stragglers (processing
// time).
const (
	apacStops     = 2*hour + 25*minute
	resendEvery   = 30 * time.Second
	stragglerWait = 20 * time.Minute
)

// apacPartition is APAC's partition.
var apacPartition = regions[2].partition

// newAllIdle builds the all-idle replay from rnd.
func newAllIdle(rnd *rand.Rand) allIdle {
	base := newScenario(rnd, 90*minute, 2*hour+40*minute, capstoneMaxDelay)
	ai := allIdle{sc: scenario{from: base.from, until: base.until, maxDelay: base.maxDelay}, wms: map[int]int64{}}
	for _, a := range base.arrivals {
		if a.Partition == apacPartition && a.Event.TS >= apacStops {
			continue
		}
		ai.sc.arrivals = append(ai.sc.arrivals, a)
		ai.wms[a.Partition] = max(ai.wms[a.Partition], a.Event.TS-capstoneOOO)
	}
	ai.highest = slices.Max(slices.Collect(maps.Values(ai.wms)))
	ts := ai.highest - capstoneGap - 30*second
	ai.lastCall = kit.Event{ID: "apac-last-call", Key: "apac-last-call", TS: ts, Value: 1 + rnd.Int64N(10)}
	ai.sc.arrivals = append(ai.sc.arrivals, Arrival{Partition: apacPartition, At: ai.sc.at(ts), Event: ai.lastCall})
	slices.SortStableFunc(ai.sc.arrivals, func(a, b Arrival) int { return cmp.Compare(a.At, b.At) })

	// From the first delivery of APAC's last event on, the connector
	// redelivers it every resendEvery, until a redelivery after everything
	// else comes 15 to 45 s before an emission time (a multiple of
	// EmitInterval since the epoch): four retries span an interval, so one
	// of them does.
	lastAt := ai.sc.arrivals[len(ai.sc.arrivals)-1].At
	var apacLast Arrival
	seen := map[string]bool{}
	for _, a := range ai.sc.arrivals {
		if a.Partition == apacPartition && !seen[a.Event.ID] {
			apacLast = a
		}
		seen[a.Event.ID] = true
	}
	ai.resendFrom = apacLast.At + resendEvery
	for at := ai.resendFrom; ; at += resendEvery {
		ai.sc.arrivals = append(ai.sc.arrivals, Arrival{Partition: apacPartition, At: at, Event: apacLast.Event})
		if toTick := capstoneEmit - at%capstoneEmit; at > lastAt && toTick >= 15*time.Second && toTick <= 45*time.Second {
			ai.allIdleAt = at + capstoneIdle
			break
		}
	}
	slices.SortStableFunc(ai.sc.arrivals, func(a, b Arrival) int { return cmp.Compare(a.At, b.At) })

	ai.stragglers = ai.allIdleAt + stragglerWait
	ai.correction = kit.Event{ID: "apac-straggler-1", Key: ai.lastCall.Key, TS: ts - minute, Value: 1 + rnd.Int64N(10)}
	ai.late = kit.Event{ID: "apac-straggler-2", Key: "apac-straggler", TS: ai.highest - capstoneGap - 5*minute, Value: 1 + rnd.Int64N(10)}
	for _, e := range []kit.Event{ai.correction, ai.late} {
		ai.sc.arrivals = append(ai.sc.arrivals, Arrival{Partition: apacPartition, At: ai.stragglers, Event: e})
	}
	return ai
}

// events returns the events of the replay up to the stragglers, and with
// them all but the late one: what the sessions are made of before the
// stragglers, and at the end.
func (ai allIdle) events() (beforeStragglers, counted []kit.Event) {
	all := ai.sc.events()
	n := len(all) - 2
	return all[:n], append(slices.Clone(all[:n]), ai.correction)
}

// timeline renders what the replay does around the jump: each partition
// with data, its last arrival and watermark, when every partition is idle,
// and the stragglers.
func (ai allIdle) timeline() string {
	var lines []string
	for _, rg := range regions {
		var last Arrival
		for _, a := range ai.sc.arrivals[:len(ai.sc.arrivals)-2] {
			if a.Partition == rg.partition {
				last = a
			}
		}
		line := fmt.Sprintf("  %-4s (partition %d): last arrival at %s, watermark %s (its latest event − 30 s)",
			rg.name, rg.partition, fmtAt(ai.sc.from, last.At), clockOf(ai.wms[rg.partition]))
		if rg.partition == apacPartition {
			line += fmt.Sprintf(";\n       no event after %s, but from %s on its connector redelivers %s every %v",
				clockOf(apacStops), fmtAt(ai.sc.from, ai.resendFrom), last.Event.ID, resendEvery)
		}
		lines = append(lines, line)
	}
	lines = append(lines,
		"  the five other partitions never deliver: idle after the first minute",
		fmt.Sprintf("  every partition idle after %s: the watermark jumps from apac's %s to the highest,\n"+
			"       us's %s, at the first emission after that, by %s", fmtAt(ai.sc.from, ai.allIdleAt),
			clockOf(ai.wms[apacPartition]), clockOf(ai.highest), fmtAt(ai.sc.from, ai.allIdleAt+capstoneEmit)),
		fmt.Sprintf("  at %s two stragglers on apac, the last arrivals, then Flush and the final checkpoint:\n"+
			"       %s: it extends %s's session [%s, %s),\n"+
			"           fired and within the minute of lateness: a correction\n"+
			"       %s: its own session [%s, %s) expired at\n"+
			"           watermark %s: side output",
			fmtAt(ai.sc.from, ai.stragglers), fmtEvent(ai.correction), ai.lastCall.Key, clockOf(ai.lastCall.TS),
			clockOf(ai.lastCall.TS+capstoneGap), fmtEvent(ai.late), clockOf(ai.late.TS), clockOf(ai.late.TS+capstoneGap),
			clockOf(ai.highest)))
	return strings.Join(lines, "\n")
}

// jobView is what a picture of the capstone job draws from: its source,
// its config and what its runs reported to OnStep (none for a run that
// reported nothing: a child process, or a run that used OnStep otherwise).
type jobView struct {
	sc   scenario
	cfg  SessionJobConfig
	runs []jobRun
}

// picture draws, with pictures on, a run of the job as a page for test t
// (picture.Save) and returns the line that links it, or "": the arrivals of
// the keys of focus (of every key when focus is empty), each on the row of
// its arrival with its partition; each restart; and each commit (when the
// runs reported them; else one row at the end) with what it made visible
// of those keys. The job's own watermarks are not observable: each row
// shows each partition's watermark and idleness, and the combined
// watermark, as the card's rules make them from the source. committed is
// what ReadCommitted returned; note is the failure's message.
func (v jobView) picture(t testing.TB, note string, committed []kit.Result, focus ...string) string {
	if !picture.Enabled() {
		return ""
	}
	inFocus := func(key string) bool { return len(focus) == 0 || slices.Contains(focus, key) }
	only := func(rs []kit.Result) []kit.Result {
		var out []kit.Result
		for _, r := range rs {
			if inFocus(r.Key) {
				out = append(out, r)
			}
		}
		return out
	}
	clock := func(at time.Duration) string { return clockOf(v.sc.from + at.Milliseconds()) }
	type row struct {
		at    time.Duration
		order int // at one moment: a restart, then arrivals, then a commit
		step  picture.Step
	}
	var rows []row
	for _, a := range v.sc.arrivals {
		if inFocus(a.Event.Key) {
			e := a.Event
			rows = append(rows, row{a.At, 1, picture.Step{Op: picture.OpEvent, Event: e, Partition: a.Partition,
				Label: fmt.Sprintf("%s  p%d %s@%s=%d", clock(a.At), a.Partition, e.Key, clockOf(e.TS), e.Value)}})
		}
	}
	for j, run := range v.runs[min(1, len(v.runs)):] {
		rows = append(rows, row{run.start, 0, picture.Step{Op: picture.OpRestore, Partition: -1,
			Label: fmt.Sprintf("%s  run %d restarts from its latest checkpoint", clock(run.start), j+2)}})
	}
	txns, problem := committedTxns(v.runs, committed)
	if len(v.runs) > 0 && problem == "" {
		for _, x := range txns {
			rows = append(rows, row{x.visibleAt, 2, picture.Step{Op: picture.OpCall, Partition: -1, Emitted: only(x.results),
				Label: fmt.Sprintf("%s  checkpoint %d committed", clock(x.visibleAt), x.id)}})
		}
	} else if len(v.sc.arrivals) > 0 {
		end := v.sc.arrivals[len(v.sc.arrivals)-1].At
		rows = append(rows, row{end, 2, picture.Step{Op: picture.OpCall, Partition: -1, Emitted: only(committed), Label: "committed by the end"}})
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order)) })

	// Each partition's watermark and idleness, and the combined watermark,
	// by the rules of stage 07: a restart starts new Watermarks, while the
	// restored session processor's watermark never goes back.
	w := v.cfg.Watermarks
	maxTS := make([]int64, w.Partitions)
	lastAt := make([]time.Duration, w.Partitions)
	restart := func(at time.Duration) {
		for p := range maxTS {
			maxTS[p], lastAt[p] = math.MinInt64, at
		}
	}
	restart(0)
	combined, next := int64(math.MinInt64), 0
	steps := make([]picture.Step, len(rows))
	for i, r := range rows {
		if r.step.Op == picture.OpRestore {
			restart(r.at)
		}
		for ; next < len(v.sc.arrivals) && v.sc.arrivals[next].At <= r.at; next++ {
			a := v.sc.arrivals[next]
			maxTS[a.Partition], lastAt[a.Partition] = max(maxTS[a.Partition], a.Event.TS), a.At
		}
		s := r.step
		low, highest, active := int64(math.MaxInt64), int64(math.MinInt64), 0
		for p := range maxTS {
			m := picture.PartitionMark{Watermark: math.MinInt64, Idle: w.IdleTimeout > 0 && r.at-lastAt[p] > w.IdleTimeout}
			if maxTS[p] != math.MinInt64 {
				m.Watermark = maxTS[p] - w.OutOfOrderness
			}
			s.Partitions = append(s.Partitions, m)
			highest = max(highest, m.Watermark)
			if !m.Idle {
				low, active = min(low, m.Watermark), active+1
			}
		}
		if active == 0 {
			low = highest
		}
		combined = max(combined, low)
		s.Watermark = combined
		steps[i] = s
	}
	return "\n" + picture.Save(t, picture.Run{
		Title: t.Name(),
		Note: note + "\n\nThe job's watermarks are its own: the page draws each partition's, and the combined one, as the card's " +
			"rules make them from the source.",
		Windows: picture.Windows{Gap: v.cfg.Sessions.Gap, Lateness: v.cfg.Sessions.AllowedLateness},
		Steps:   steps,
		Time:    clockOf,
		Span:    func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
	})
}
