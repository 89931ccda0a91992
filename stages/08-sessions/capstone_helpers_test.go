//go:build lab || solution

package sessions

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

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

// clockOf renders milliseconds since midnight as hh:mm:ss.
func clockOf(ms int64) string {
	return fmt.Sprintf("%02d:%02d:%02d", ms/hour, ms%hour/minute, ms%minute/second)
}

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

// commitLog watches a running job through OnStep: how often it reaches
// each step, how many results it writes into each checkpoint's
// transaction (StepWrite carries the id of the checkpoint the write will be
// committed with), and when each checkpoint commits. With ReadCommitted
// after the run, that tells when each result became visible, without
// reading the whole output at every commit.
type commitLog struct {
	dir         string
	clock       *kit.ManualClock
	epoch       time.Time
	steps       map[Step]int                   // how many times each step was reached
	writes      map[int64]int                  // StepWrite calls per checkpoint id
	ids         []int64                        // checkpoint ids, in commit order
	committedAt map[int64]time.Duration        // processing time (since the epoch) of each StepAfterCommit
	readAt      bool                           // also ReadCommitted at every commit, into counts
	counts      []int                          // with readAt: the number of committed results after each commit
	crash       func(step Step, id int64) bool // if it returns true, the job "crashes" there (a panic)
}

// crashed is the panic value of a crash injected by a commitLog.
type crashed struct{ step Step }

func newCommitLog(dir string, clock *kit.ManualClock, epoch time.Time) *commitLog {
	return &commitLog{dir: dir, clock: clock, epoch: epoch, steps: map[Step]int{}, writes: map[int64]int{}, committedAt: map[int64]time.Duration{}}
}

// step is the job's OnStep: it records, and crashes where told to.
func (l *commitLog) step(step Step, id int64) {
	l.steps[step]++
	switch step {
	case StepWrite:
		l.writes[id]++
	case StepAfterCommit:
		l.ids = append(l.ids, id)
		l.committedAt[id] = l.clock.Now().Sub(l.epoch)
		if l.readAt {
			rs, _ := ReadCommitted(l.dir)
			l.counts = append(l.counts, len(rs))
		}
	}
	if l.crash != nil && l.crash(step, id) {
		panic(crashed{step})
	}
}

// visibleSince splits the output committed by an uninterrupted run into
// its checkpoints' transactions (by the writes reported for each id, in
// commit order), applies them downstream one by one, and returns for each
// row downstream came to hold the processing time of the commit that made
// it visible. It returns a problem instead if the split does not add up.
func (l *commitLog) visibleSince(committed []kit.Result) (map[kit.Result]time.Duration, string) {
	total := 0
	for _, id := range l.ids {
		total += l.writes[id]
	}
	if total != len(committed) {
		return nil, fmt.Sprintf("OnStep reported %d writes for the %d committed checkpoints, but ReadCommitted returns %d results.\n"+
			"Report OnStep(StepWrite, n) after each sink Write, n being the checkpoint that write is committed with.",
			total, len(l.ids), len(committed))
	}
	d := newDownstream()
	since := map[kit.Result]time.Duration{}
	for _, id := range l.ids {
		txn := committed[:l.writes[id]]
		committed = committed[l.writes[id]:]
		if problem := d.apply(txn); problem != "" {
			return nil, fmt.Sprintf("checkpoint %d's transaction: %s", id, problem)
		}
		for _, r := range txn {
			if row, ok := d.row(sessionKey{r.Key, r.Start, r.End}); ok && r.Count > 0 {
				if _, seen := since[row]; !seen {
					since[row] = l.committedAt[id]
				}
			}
		}
	}
	return since, ""
}

// runJob runs RunSessionJob with the commit log's OnStep and returns its
// error, or the crash it injected (true) and nothing else.
func (l *commitLog) runJob(t *testing.T, cfg SessionJobConfig, arrivals []Arrival) (crash bool, err error) {
	t.Helper()
	cfg.OnStep = l.step
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crashed); !ok {
				panic(r)
			}
			crash = true
		}
	}()
	return false, RunSessionJob(cfg, arrivals, l.clock)
}

// fmtAt renders a processing time since the epoch as the replay's time of
// day (the epoch being the replay's start) with the offset, e.g.
// "02:13:05 (+43m5s)".
func fmtAt(from int64, at time.Duration) string {
	return fmt.Sprintf("%s (+%v)", clockOf(from+at.Milliseconds()), at)
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

// diffSessions describes how the sessions got differ from want, both
// sorted, with times of day: at most 10 missing and 10 unexpected.
func diffSessions(got, want []kit.Result) string {
	missing, extra := windowtest.Unmatched(got, want)
	var b strings.Builder
	list := func(title string, rs []kit.Result) {
		if len(rs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(rs))
		for i, r := range rs {
			if i == 10 {
				fmt.Fprintf(&b, "  … %d more\n", len(rs)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", fmtSession(r))
		}
	}
	list("missing (in the oracle, not downstream)", missing)
	list("unexpected (downstream, not in the oracle)", extra)
	return b.String()
}
