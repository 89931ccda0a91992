//go:build lab || solution

package rescalerestore

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// Event time and processing time are Unix milliseconds, so that the
// engine's daily windows are UTC days.
const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
	day    = 24 * hour
)

// friday is the start of Friday 27 November 2026, UTC: the day whose
// totals the incident is about.
var friday = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC).UnixMilli()

// The drill's facts, from its card: what the savepoint was taken with, what
// the topic keeps, the totals' definition, the peak and what one subtask
// can take. They are the suite's, not the job's: a job that changes them
// does not change what it is held to.
const (
	oldParallelism    = 4          // the deployment that took the 14:00 savepoint
	oldMaxParallelism = 128        // its maxParallelism, the platform default at parallelism 4 (the deploy log)
	retention         = 6 * hour   // the orders topic keeps six hours of orders
	disorder          = 5 * minute // the checkout service delivers an order at most this much out of order (mostly)
	peakRate          = 25600      // orders per second forecast at the evening peak, even over key groups
	subtaskBudget     = 2500       // orders per second one subtask keeps up with (the load test)
	merchants         = 400        // merchants in the replays
)

// The replays' timetable: the old deployment runs from Thursday 23:00 and
// stops with a savepoint at Friday 14:00; ops restore it at 14:06; the
// replay ends at Saturday 00:20, after Friday's totals have closed.
var (
	replayFrom  = friday - hour
	savepointAt = friday + 14*hour
	restoreAt   = savepointAt + 6*minute
	replayUntil = friday + day + 20*minute
)

// windows is the totals' definition (the card's): one UTC day per
// merchant, 5 minutes of disorder, no allowed lateness. The unrescaled run
// and the old deployment use it; the savepoint carries it.
var windows = engine.Config{WindowSize: day, WatermarkDelay: disorder}

// arrival is one record of the orders topic: when it was appended and the
// order.
type arrival struct {
	at int64 // processing time, Unix ms
	e  kit.Event
}

// scenario is a replay of the orders topic from Thursday 23:00 to Saturday
// 00:20, in offset order.
type scenario struct {
	arrivals []arrival
}

// build generates the replay from rnd: an order every 1 to 9 s, for one of
// 400 merchants, most delivered within 30 s of their timestamp, some up to
// 4m50s late, one in a hundred 6 to 9 minutes late (later than the
// disorder the watermark allows: near midnight such an order is too late
// for its day, in every run alike), and 3 in a hundred delivered twice,
// the copy 5 s to 4 minutes after the original (the checkout service
// retries).
func build(rnd *rand.Rand) scenario {
	var sc scenario
	for at := replayFrom; ; {
		at += between(rnd, second, 9*second)
		if at >= replayUntil {
			break
		}
		var delay int64
		switch r := rnd.IntN(100); {
		case r < 90:
			delay = between(rnd, 0, 30*second)
		case r < 99:
			delay = between(rnd, 30*second, disorder-10*second)
		default:
			delay = between(rnd, disorder+minute, disorder+4*minute)
		}
		e := kit.Event{ID: fmt.Sprintf("o-%d-%08x", at, rnd.Uint32()), Key: fmt.Sprintf("m-%04d", rnd.IntN(merchants)),
			TS: at - delay, Value: 100 + rnd.Int64N(50000)}
		sc.arrivals = append(sc.arrivals, arrival{at, e})
		if rnd.IntN(100) < 3 {
			sc.arrivals = append(sc.arrivals, arrival{at + between(rnd, 5*second, 4*minute), e})
		}
	}
	slices.SortStableFunc(sc.arrivals, func(a, b arrival) int { return cmp.Compare(a.at, b.at) })
	return sc
}

// between returns a random time in [lo, hi], to the millisecond.
func between(rnd *rand.Rand, lo, hi int64) int64 { return lo + rnd.Int64N(hi-lo+1) }

// offsetAt returns the offset of the first record appended at or after
// processing time at.
func (sc scenario) offsetAt(at int64) int {
	i, _ := slices.BinarySearchFunc(sc.arrivals, at, func(a arrival, at int64) int { return cmp.Compare(a.at, at) })
	return i
}

// records returns the orders from offset from on.
func (sc scenario) records(from int) []kit.Event {
	out := make([]kit.Event, 0, len(sc.arrivals)-from)
	for _, a := range sc.arrivals[from:] {
		out = append(out, a.e)
	}
	return out
}

// topic returns the orders topic as it holds them from offset earliest on.
func (sc scenario) topic(earliest int) Topic {
	return Topic{Earliest: int64(earliest), Records: sc.records(earliest)}
}

// incident is the replay with what happened before the restore: the old
// deployment's savepoint and the rows it appended, and the rows a run
// that was never rescaled appends.
type incident struct {
	sc        scenario
	savepoint Savepoint    // the old deployment's, at Friday 14:00
	maxP      int          // the maxParallelism it was taken with
	before    []kit.Result // the rows the old deployment appended (Thursday's totals)
	want      []kit.Result // the rows of the unrescaled run, sorted
}

// newIncident builds a replay from rnd and runs the old deployment on it,
// at parallelism 4 with maxParallelism maxP, up to the savepoint; and the
// unrescaled run, at parallelism 4 and maxParallelism 128 throughout.
func newIncident(t *testing.T, rnd *rand.Rand, maxP int) incident {
	t.Helper()
	in := incident{sc: build(rnd), maxP: maxP}
	cut := in.sc.offsetAt(savepointAt)
	old := newProcessor(t, maxP)
	for _, e := range in.sc.records(0)[:cut] {
		in.before = append(in.before, old.Process(e)...)
	}
	state, err := old.Snapshot()
	if err != nil {
		t.Fatalf("suite bug: the old deployment's Snapshot = %v", err)
	}
	in.savepoint = Savepoint{Offset: int64(cut), State: state}
	unrescaled := newProcessor(t, oldMaxParallelism)
	for _, e := range in.sc.records(0) {
		in.want = append(in.want, unrescaled.Process(e)...)
	}
	in.want = kit.SortResults(in.want)
	if len(in.before) < merchants*3/4 || len(in.want)-len(in.before) < merchants-5 {
		t.Fatalf("suite bug: the replay closed %d totals before the savepoint and %d after it", len(in.before), len(in.want)-len(in.before))
	}
	return in
}

// newProcessor returns the engine's windows as the old deployment ran
// them: at parallelism 4, with maxParallelism maxP.
func newProcessor(t *testing.T, maxP int) *engine.ParallelProcessor {
	t.Helper()
	pp, err := engine.NewParallelProcessor(engine.ParallelConfig{Processor: windows, Parallelism: oldParallelism, MaxParallelism: maxP})
	if err != nil {
		t.Fatalf("suite bug: NewParallelProcessor = %v", err)
	}
	return pp
}

// restoreRun is the job restored from the incident's savepoint: its config,
// the topic's earliest offset when it started, and the rollups table after
// it (the old deployment's rows, then its own), or the error Run returned.
type restoreRun struct {
	in       incident
	cfg      engine.ParallelConfig
	earliest int
	rows     []kit.Result // sorted
	err      error
}

// restore runs the job with cfg from the incident's savepoint over the
// topic as it was at 14:06, when ops restored it: the orders of the last
// keep (6 hours, or the whole replay when keep is longer), up to the end of
// the replay.
func (in incident) restore(cfg engine.ParallelConfig, keep int64) restoreRun {
	r := restoreRun{in: in, cfg: cfg, earliest: in.sc.offsetAt(restoreAt - keep)}
	rows := slices.Clone(in.before)
	sp := Savepoint{Offset: in.savepoint.Offset, State: slices.Clone(in.savepoint.State)}
	_, r.err = Run(cfg, &sp, in.sc.topic(r.earliest), int64(len(in.sc.arrivals)), func(res kit.Result) { rows = append(rows, res) })
	r.rows = kit.SortResults(rows)
	return r
}

// restored reports whether the run restored every total: no error, and
// the rollups table of the unrescaled run.
func (r restoreRun) restored() bool { return r.err == nil && slices.Equal(r.rows, r.in.want) }

// checkTotals fails t unless the run restored every total. call names the
// run as Go (Run(Config(12), …)); why says what usually goes wrong in the
// test's situation.
func checkTotals(t *testing.T, r restoreRun, call, why string) bool {
	t.Helper()
	if r.err != nil {
		t.Errorf("%s = %v,\nwant the savepoint restored and every merchant's Friday total appended, whole.\n\n%s", call, r.err, why)
		return false
	}
	if r.restored() {
		return true
	}
	first, _ := windowtest.FirstDifference(r.rows, r.in.want)
	missing, extra := windowtest.Unmatched(r.rows, r.in.want)
	t.Errorf("after %s, the rollups table (the rows the job appended, with the old deployment's) differs from a run\n"+
		"that was never rescaled (parallelism 4, maxParallelism 128, no savepoint): %d rows missing, %d unexpected.\n\n%s\n\n%s\n\n"+
		"All the differences:\n%s", call, len(missing), len(extra), r.timeline(first.Key, first.Start), why,
		windowtest.DiffResultsAs(r.rows, r.in.want, fmtRow))
	return false
}

// timeline draws a merchant's day as the topic delivered it: the orders
// the topic no longer held at the restore, those before the savepoint, the
// savepoint, the restore and its config, those after; then the rows the
// table holds for that day, and the row it should hold.
func (r restoreRun) timeline(key string, start int64) string {
	var b strings.Builder
	cut := int(r.in.savepoint.Offset)
	type segment struct {
		what           string
		from, until    int // offsets
		orders, copies int
		first, last    int64 // when the first and the last of them were delivered
	}
	segs := []segment{
		{what: "before the topic's earliest offset at the restore (retention 6 h): in the savepoint only", until: min(r.earliest, cut)},
		{what: "before the savepoint: in its state, and still in the topic", from: min(r.earliest, cut), until: cut},
		{what: "after the savepoint: read by the restored job", from: cut, until: len(r.in.sc.arrivals)},
	}
	seen := map[string]bool{}
	for i := range segs {
		s := &segs[i]
		for _, a := range r.in.sc.arrivals[s.from:s.until] {
			if a.e.Key != key || a.e.TS < start || a.e.TS >= start+day {
				continue
			}
			if s.orders+s.copies == 0 {
				s.first = a.at
			}
			s.last = a.at
			if seen[a.e.ID] {
				s.copies++
			} else {
				seen[a.e.ID] = true
				s.orders++
			}
		}
	}
	fmt.Fprintf(&b, "timeline of %s's %s (UTC), in the order the topic delivered it:\n", key, dayOf(start))
	fmt.Fprintf(&b, "  %-22s the day opens\n", clockOf(start))
	for i, s := range segs {
		if i == 2 {
			fmt.Fprintf(&b, "  %-22s savepoint at offset %d (parallelism %d, maxParallelism %d)\n", clockOf(savepointAt), cut, oldParallelism, r.in.maxP)
			fmt.Fprintf(&b, "  %-22s restored with parallelism %d, maxParallelism %d, the topic holding offsets %d on\n",
				clockOf(restoreAt), r.cfg.Parallelism, r.cfg.MaxParallelism, r.earliest)
		}
		if s.orders+s.copies == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %-22s %d orders (and %d redelivered), offsets %d–%d: %s\n", clockOf(s.first)+"–"+hhmm(s.last),
			s.orders, s.copies, s.from, s.until-1, s.what)
	}
	fmt.Fprintf(&b, "  %-22s the day closes (the watermark, the latest order − 5 min, passes its end)\n", clockOf(start+day+disorder))
	b.WriteString("the rollups table's rows for that day:\n")
	match := func(res kit.Result) bool { return res.Key == key && res.Start == start }
	got := slices.DeleteFunc(slices.Clone(r.rows), func(res kit.Result) bool { return !match(res) })
	if len(got) == 0 {
		b.WriteString("  none\n")
	}
	for _, res := range got {
		fmt.Fprintf(&b, "  %s\n", fmtRow(res))
	}
	b.WriteString("want:\n")
	for _, res := range r.in.want {
		if match(res) {
			fmt.Fprintf(&b, "  %s\n", fmtRow(res))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// clockOf renders a Unix-ms time as its UTC weekday and time of day.
func clockOf(ms int64) string { return time.UnixMilli(ms).UTC().Format("Mon 15:04:05") }

// hhmm renders a Unix-ms time as its UTC time of day.
func hhmm(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05") }

// dayOf renders the UTC day that starts at ms.
func dayOf(ms int64) string { return time.UnixMilli(ms).UTC().Format("Monday 2 January") }

// fmtRow renders a row of the rollups table: a merchant's total for a day.
func fmtRow(r kit.Result) string {
	s := fmt.Sprintf("%s %s count=%d sum=%d", r.Key, time.UnixMilli(r.Start).UTC().Format("Mon 2 Jan"), r.Count, r.Sum)
	if r.End-r.Start != day {
		s += fmt.Sprintf(" (a window of %v, not a day)", time.Duration(r.End-r.Start)*time.Millisecond)
	}
	return s
}

// load is where the forecast peak lands on the job's subtasks.
type load struct {
	cfg       engine.ParallelConfig
	keyGroups []int // per subtask, the key groups it owns (that hold state)
	rates     []int // per subtask, orders per second at the peak, rounded up
}

// busiest returns the subtask that takes the most orders at the peak.
func (l load) busiest() int {
	b := 0
	for i, r := range l.rates {
		if r > l.rates[b] {
			b = i
		}
	}
	return b
}

// measureLoad runs the job with cfg, as a new job, over a second of the
// forecast peak (scaled down: the same orders, one in a hundred of
// them), spread evenly over its key groups as the card says the traffic
// is (perGroup orders in each, for one merchant each); then restores its
// savepoint with the engine, at cfg, and counts the orders whose
// merchants' state each subtask holds: where the job keeps, and so
// processes, each merchant.
func measureLoad(t *testing.T, rnd *rand.Rand, cfg engine.ParallelConfig) load {
	t.Helper()
	const perGroup = 4
	maxP := cfg.MaxParallelism
	if maxP < 1 || maxP > 1<<15 {
		t.Fatalf("Config(%d).MaxParallelism = %d: the engine takes 1 to 32768 key groups", cfg.Parallelism, maxP)
	}
	owner := make([]string, maxP) // key group → the merchant the peak puts in it
	for n, left := 0, maxP; left > 0; n++ {
		key := fmt.Sprintf("m-peak-%06d", n)
		if kg := engine.KeyGroup(key, maxP); owner[kg] == "" {
			owner[kg], left = key, left-1
		}
	}
	var orders []kit.Event
	at := friday + 20*hour
	for kg, key := range owner {
		for i := range perGroup {
			orders = append(orders, kit.Event{ID: fmt.Sprintf("peak-%d-%d", kg, i), Key: key, TS: at + rnd.Int64N(second), Value: 100 + rnd.Int64N(50000)})
		}
	}
	rnd.Shuffle(len(orders), func(i, j int) { orders[i], orders[j] = orders[j], orders[i] })
	sp, err := Run(cfg, nil, Topic{Records: orders}, int64(len(orders)), func(kit.Result) {})
	if err != nil {
		t.Fatalf("Run(Config(%d), a new job, a second of the peak) = %v, want it run: parallelism %d, maxParallelism %d",
			cfg.Parallelism, err, cfg.Parallelism, maxP)
	}
	pp, err := engine.RestoreParallelProcessor(sp.State, cfg.Parallelism, maxP)
	if err != nil {
		t.Fatalf("the job's savepoint after a second of the peak does not restore at its own config (parallelism %d, "+
			"maxParallelism %d): %v", cfg.Parallelism, maxP, err)
	}
	l := load{cfg: cfg, keyGroups: make([]int, cfg.Parallelism), rates: make([]int, cfg.Parallelism)}
	total := 0
	for i := range cfg.Parallelism {
		keys := pp.KeysOn(i)
		l.keyGroups[i] = len(keys) // one merchant per key group
		n := len(keys) * perGroup
		total += n
		l.rates[i] = (n*peakRate + maxP*perGroup - 1) / (maxP * perGroup)
	}
	if total != len(orders) {
		t.Fatalf("the job's state after a second of the peak holds %d merchants' orders over its %d subtasks, want all %d "+
			"(%d merchants): Run must count every order", total/perGroup, cfg.Parallelism, len(orders)/perGroup, maxP)
	}
	return l
}

// picture draws the load: the subtasks, grouped where they own as many key
// groups, with their key groups and orders per second at the peak.
func (l load) picture() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the forecast peak (%d orders/s, even over %d key groups: %d/s each) on %d subtasks:\n",
		peakRate, l.cfg.MaxParallelism, peakRate/max(l.cfg.MaxParallelism, 1), l.cfg.Parallelism)
	b.WriteString("  subtasks   key groups each   orders/s each\n")
	for i := 0; i < len(l.rates); {
		j := i
		for j+1 < len(l.rates) && l.keyGroups[j+1] == l.keyGroups[i] {
			j++
		}
		mark := ""
		if l.rates[i] == l.rates[l.busiest()] {
			mark = "   ← busiest"
		}
		if l.rates[i] > subtaskBudget {
			mark += " (over the budget of 2,500)"
		}
		fmt.Fprintf(&b, "  %-10s %-17d %d%s\n", fmt.Sprintf("%d–%d", i, j), l.keyGroups[i], l.rates[i], mark)
		i = j + 1
	}
	return strings.TrimRight(b.String(), "\n")
}

// configBound returns the orders per second the busiest subtask takes at
// the peak by the job's settings, and how it is made up: traffic is even
// over key groups; the busiest subtask owns ⌈maxParallelism / parallelism⌉
// of them. ok is false when the settings cannot run.
func configBound(cfg engine.ParallelConfig) (bound int, sum string, ok bool) {
	p, maxP := cfg.Parallelism, cfg.MaxParallelism
	if p < 1 || maxP < p {
		return 0, "", false
	}
	kg := (maxP + p - 1) / p
	bound = (kg*peakRate + maxP - 1) / maxP
	return bound, fmt.Sprintf("⌈%d key groups / %d subtasks⌉ = %d key groups × %d orders/s / %d key groups = %d orders/s",
		maxP, p, kg, peakRate, maxP, bound), true
}

// fixture is what most checks start from: the incident with the 14:00
// savepoint taken at maxParallelism 128, as the deploy log says.
func fixture(t *testing.T) incident {
	t.Helper()
	return newIncident(t, suite.Rand(t), oldMaxParallelism)
}

// The environment variables that give the child process of
// restoreInFreshProcess its folder and the retention of the topic it
// restores over.
const (
	childDirEnv  = "FLK_DRILL06_DIR"
	childKeepEnv = "FLK_DRILL06_KEEP"
)

// freshInput is what the parent hands the child: the seed of the replay
// (the child builds the same one) and the savepoint, as the old deployment
// wrote it.
type freshInput struct {
	Seed      uint64
	Savepoint Savepoint
}

// freshOutput is what the child hands back: the rollups table after the
// restored job, and Run's error, if any.
type freshOutput struct {
	Rows []kit.Result
	Err  string
}

// freshIncident returns the incident of the fresh-process test, made from
// seed alone, so that parent and child make the same one.
func freshIncident(t *testing.T, seed uint64) incident {
	t.Helper()
	return newIncident(t, kit.NewRand(seed), oldMaxParallelism)
}

// restoreInFreshProcess is restore(Config(Parallelism), keep), run in a
// fresh process of this test binary (suite.RunChild), as a redeployment
// runs: the child knows only the savepoint's bytes and the topic, nothing
// the old deployment's process held. test is the calling test's name; its
// child side calls restoreChild.
func restoreInFreshProcess(t *testing.T, test string, keep int64) restoreRun {
	t.Helper()
	seed := suite.Seed(t)
	in := freshIncident(t, seed)
	dir := t.TempDir()
	suite.WriteGob(t, dir+"/input.gob", freshInput{Seed: seed, Savepoint: in.savepoint})
	out, err := suite.RunChild(test, "restore", childDirEnv+"="+dir, fmt.Sprintf("%s=%d", childKeepEnv, keep))
	if err != nil {
		t.Fatalf("the child process that restores the savepoint failed (%v):\n%s", err, out)
	}
	var res freshOutput
	if err := suite.ReadGob(dir+"/output.gob", &res); err != nil {
		t.Fatalf("the child process wrote no rollups table: %v\n%s", err, out)
	}
	r := restoreRun{in: in, cfg: Config(Parallelism), earliest: in.sc.offsetAt(restoreAt - keep), rows: res.Rows}
	if res.Err != "" {
		r.err = errors.New(res.Err)
	}
	return r
}

// restoreChild is the child's side of restoreInFreshProcess: build the
// replay from the parent's seed, restore the parent's savepoint with
// Config(Parallelism), and write the rollups table to the folder.
func restoreChild(t *testing.T) {
	t.Helper()
	dir := os.Getenv(childDirEnv)
	var fi freshInput
	if err := suite.ReadGob(dir+"/input.gob", &fi); err != nil {
		t.Fatal(err)
	}
	keep, err := strconv.ParseInt(os.Getenv(childKeepEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	in := freshIncident(t, fi.Seed)
	in.savepoint = fi.Savepoint
	r := in.restore(Config(Parallelism), keep)
	res := freshOutput{Rows: r.rows}
	if r.err != nil {
		res.Err = r.err.Error()
	}
	suite.WriteGob(t, dir+"/output.gob", res)
}
