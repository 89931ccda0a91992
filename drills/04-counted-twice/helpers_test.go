//go:build lab || solution

package countedtwice

import (
	"cmp"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/04-counted-twice/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The drill's facts, from its card: what the platform promises, what the
// dashboard promises its customers, and what the log does. They are the
// suite's, not the job's: a job that changes them does not change what it
// is held to.
const (
	restartWithin    = 30 * time.Second // a killed job runs again, backlog read, within this
	stalenessBudget  = 60 * time.Second // the dashboard: usage at most this far behind
	maxDisorder      = 5 * time.Second  // records arrive at most this far out of call order
	minuteMs         = int64(60_000)
	hourMs           = 60 * minuteMs
	replayLength     = 10 * time.Minute
	tornAfterWrite   = engine.Step("torn-after-write")     // the kernel tears the write after the k-th StepWrite
	tornAtFileSize   = engine.Step("torn-at-file-size")    // the kernel tears the first write past k bytes
	downStep         = engine.Step("(down, between runs)") // an observation of the parent's, while no job runs
	observationError = -2                                  // observation.m: the reader failed
	notAPrefix       = -1                                  // observation.m: the table is no prefix of the job's output
)

// replayStart is when the replays begin: the log's calls and its
// deliveries both start at 13:55 UTC, so that the replay spans the 13:00
// and 14:00 rows of the usage table.
var replayStart = time.Date(2026, 3, 17, 13, 55, 0, 0, time.UTC)

// customer is a source of calls: its share of the traffic, or for a poller
// one call a minute at a fixed second, always one unit.
type customer struct {
	name   string
	weight int
	poller bool
	second int // a poller's second of the minute
}

// The customers. The two pollers (a status page and an uptime probe) make
// one call a minute worth one unit each: within an hour, every minute of
// theirs adds the same increment (count 1, units 1) to their row, and each
// of those increments counts.
var customers = []customer{
	{name: "acme", weight: 6}, {name: "globex", weight: 5}, {name: "initech", weight: 4},
	{name: "umbrella", weight: 3}, {name: "hooli", weight: 3}, {name: "stark", weight: 2},
	{name: "wayne", weight: 2}, {name: "tyrell", weight: 1}, {name: "soylent", weight: 1},
	{name: "statuspage", poller: true, second: 20}, {name: "uptime-probe", poller: true, second: 41},
}

// scenario is one replay of the api-calls log, in delivery order.
type scenario struct {
	log []Record
}

// buildScenario generates a replay from rnd: from replayStart for
// replayLength, a call every 150 to 450 ms of the weighted customers and
// the pollers' calls, each delivered 0 to 2 s after it was made, and one in
// 25 delivered a second time 1 to 3 s after the first (the gateway's
// retries, same request ID).
func buildScenario(rnd *rand.Rand) scenario {
	total := 0
	for _, c := range customers {
		total += c.weight
	}
	var log []Record
	add := func(e kit.Event, delay time.Duration) {
		arrived := time.UnixMilli(e.TS).UTC().Add(delay)
		log = append(log, Record{Arrived: arrived, Event: e})
		if rnd.IntN(25) == 0 {
			log = append(log, Record{Arrived: arrived.Add(between(rnd, time.Second, 3*time.Second)), Event: e})
		}
	}
	from, until := replayStart.UnixMilli(), replayStart.Add(replayLength).UnixMilli()
	n := 0
	for ts := from + between(rnd, 0, 450*time.Millisecond).Milliseconds(); ts < until; ts += between(rnd, 150*time.Millisecond, 450*time.Millisecond).Milliseconds() {
		w := rnd.IntN(total)
		c := customers[0]
		for _, c = range customers {
			if w -= c.weight; w < 0 {
				break
			}
		}
		n++
		add(kit.Event{ID: fmt.Sprintf("req-%06d-%04x", n, rnd.IntN(1<<16)), Key: c.name, TS: ts, Value: 1 + rnd.Int64N(40)},
			between(rnd, 0, 2*time.Second))
	}
	for _, c := range customers {
		if !c.poller {
			continue
		}
		for m := from; m < until; m += minuteMs {
			ts := m + int64(c.second)*1000
			add(kit.Event{ID: fmt.Sprintf("%s-%d", c.name, ts), Key: c.name, TS: ts, Value: 1}, between(rnd, 0, 2*time.Second))
		}
	}
	slices.SortStableFunc(log, func(a, b Record) int { return a.Arrived.Compare(b.Arrived) })
	return scenario{log: log}
}

// between returns a random duration in [lo, hi], to the millisecond.
func between(rnd *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rnd.Int64N((hi-lo).Milliseconds()+1))*time.Millisecond
}

// oracle is what a correct job writes over a scenario: the increments in
// the order the job's processor closes their minutes, when each was
// closed, and the usage table they add up to.
type oracle struct {
	incs    []kit.Result // hourly increments, in write order
	closed  []time.Time  // when the record that closed each minute arrived; zero for the end of the log
	cum     []int64      // cum[m]: the calls in incs[:m]
	final   []kit.Result // the usage table after the whole log
	maxTime time.Time    // the last delivery

	mu     sync.Mutex           // guards tables: the subtests of a test share their oracle
	tables map[int][]kit.Result // table(m), once computed
}

// newOracle computes the oracle of sc under the job's processor
// configuration, and stops the test if that configuration loses calls: the
// table the card defines counts every call once.
func newOracle(t *testing.T, cfg JobConfig, sc scenario) *oracle {
	t.Helper()
	p, err := engine.NewProcessor(cfg.Processor)
	if err != nil {
		t.Fatalf("engine.NewProcessor(Config(dir).Processor = %+v) = %v, want a processor", cfg.Processor, err)
	}
	o := &oracle{cum: []int64{0}, tables: map[int][]kit.Result{}, maxTime: sc.log[len(sc.log)-1].Arrived}
	add := func(rs []kit.Result, at time.Time) {
		for _, r := range rs {
			h := r.Start - ((r.Start%hourMs)+hourMs)%hourMs
			o.incs = append(o.incs, kit.Result{Key: r.Key, Start: h, End: h + hourMs, Count: r.Count, Sum: r.Sum})
			o.closed = append(o.closed, at)
			o.cum = append(o.cum, o.cum[len(o.cum)-1]+r.Count)
		}
	}
	for _, rec := range sc.log {
		add(p.Process(rec.Event), rec.Arrived)
	}
	add(p.Flush(), time.Time{})
	o.final = o.table(len(o.incs))
	seen := map[string]bool{}
	var calls []kit.Result
	for _, rec := range sc.log {
		if e := rec.Event; !seen[e.ID] {
			seen[e.ID] = true
			h := e.TS - e.TS%hourMs
			calls = append(calls, kit.Result{Key: e.Key, Start: h, End: h + hourMs, Count: 1, Sum: e.Value})
		}
	}
	if want := sumRows(calls); !slices.Equal(o.final, want) {
		t.Fatalf("the job's processor (Config(dir).Processor = %+v) does not count every call of the log once, even without a crash:\n%s\n"+
			"The log delivers calls up to %v out of order (a retry comes 1 to 3 s after the first delivery) and repeats a request ID\n"+
			"on a retry: a minute must wait for its calls, and a retry must not count again.", cfg.Processor, diffTables(o.final, want), maxDisorder)
	}
	return o
}

// table returns the usage table after the first m increments.
func (o *oracle) table(m int) []kit.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	if tb, ok := o.tables[m]; ok {
		return tb
	}
	tb := sumRows(o.incs[:m])
	o.tables[m] = tb
	return tb
}

// match returns m when tb is exactly the table of the first m increments
// a correct job writes, or notAPrefix and what differs from the nearest
// such table.
func (o *oracle) match(tb []kit.Result) (int, string) {
	var calls int64
	for _, r := range tb {
		calls += r.Count
	}
	m, found := slices.BinarySearch(o.cum, calls)
	if found && slices.Equal(tb, o.table(m)) {
		return m, ""
	}
	if !found {
		m-- // the nearest prefix with no more calls
	}
	m = max(0, min(m, len(o.incs)))
	return notAPrefix, fmt.Sprintf("%d calls in the table, which is no prefix of the job's increments; against the first %d of them:\n%s",
		calls, m, diffTables(tb, o.table(m)))
}

// sumRows adds up increments per row (Key, Start, End), in
// kit.CompareResults order: the usage table they make.
func sumRows(incs []kit.Result) []kit.Result {
	type row struct {
		key        string
		start, end int64
	}
	sums := map[row]kit.Result{}
	for _, r := range incs {
		k := row{r.Key, r.Start, r.End}
		s := sums[k]
		s.Key, s.Start, s.End = r.Key, r.Start, r.End
		s.Count += r.Count
		s.Sum += r.Sum
		sums[k] = s
	}
	out := make([]kit.Result, 0, len(sums))
	for _, s := range sums {
		out = append(out, s)
	}
	return kit.SortResults(out)
}

// diffTables renders the rows in which got and want differ, at most 8,
// saying which are counted twice (or more) and which are short.
func diffTables(got, want []kit.Result) string {
	type row struct {
		key   string
		start int64
	}
	index := func(tb []kit.Result) map[row]kit.Result {
		m := map[row]kit.Result{}
		for _, r := range tb {
			m[row{r.Key, r.Start}] = r
		}
		return m
	}
	g, w := index(got), index(want)
	var rows []row
	for k := range g {
		rows = append(rows, k)
	}
	for k := range w {
		if _, ok := g[k]; !ok {
			rows = append(rows, k)
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.key, b.key)) })
	var lines []string
	for _, k := range rows {
		gr, wr := g[k], w[k]
		if gr.Count == wr.Count && gr.Sum == wr.Sum {
			continue
		}
		what := fmt.Sprintf("%d calls missing", wr.Count-gr.Count)
		switch {
		case gr.Count > wr.Count && wr.Count > 0 && gr.Count >= 2*wr.Count:
			what = fmt.Sprintf("counted %.1f times", float64(gr.Count)/float64(wr.Count))
		case gr.Count > wr.Count:
			what = fmt.Sprintf("%d calls too many", gr.Count-wr.Count)
		case gr.Count == wr.Count:
			what = "wrong units"
		}
		if len(lines) == 8 {
			lines = append(lines, "  …")
			break
		}
		lines = append(lines, fmt.Sprintf("  %-13s %s: got count=%d units=%d, want count=%d units=%d (%s)",
			k.key, hourName(k.start), gr.Count, gr.Sum, wr.Count, wr.Sum, what))
	}
	if len(lines) == 0 {
		return "  (the same rows)"
	}
	return strings.Join(lines, "\n")
}

// hourName renders an hour row's start, e.g. "13:00–14:00".
func hourName(start int64) string {
	t := time.UnixMilli(start).UTC()
	return t.Format("15:04") + "–" + t.Add(time.Hour).Format("15:04")
}

// clock renders a processing time of the replay's day, e.g. "13:58:21.312".
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// observation is one look of a reader at the usage table: during a run, at
// one of the job's steps, or between two runs while the job is down.
type observation struct {
	run  int         // 1-based
	step engine.Step // downStep between runs
	id   int64       // the step's checkpoint id
	at   time.Time   // processing time
	m    int         // the reader saw the table of the first m increments; notAPrefix, observationError
	note string      // what was wrong, for a bad observation
}

// observe reads the usage table with the job's reader and matches it
// against the oracle.
func observe(o *oracle, dir string) (int, string) {
	tb, err := ReadTotals(dir)
	if err != nil {
		return observationError, fmt.Sprintf("ReadTotals = %v", err)
	}
	return o.match(tb)
}

// The child process protocol: the test runs itself again (suite.RunChild)
// with these variables, and in the child role runs the job once, from the
// given processing time, writing a report line at each step (one write per
// line, so that what reached the kernel before a kill is complete), and
// killing itself as told.
const (
	childRole = "counted-twice-job"
	logEnv    = "FLK_D04_LOG"    // path of the log, gob-encoded
	dirEnv    = "FLK_D04_DIR"    // the job's Dir
	startEnv  = "FLK_D04_START"  // the clock's start, Unix milliseconds
	crashEnv  = "FLK_D04_CRASH"  // "<step> <k>", or empty: run to the end
	reportEnv = "FLK_D04_REPORT" // the report file
)

// isChild runs the child's side (runChild) and reports true when this
// process is that child, so the test returns at once.
func isChild(t *testing.T) bool {
	if suite.ChildRole() != childRole {
		return false
	}
	runChild(t)
	return true
}

// runChild is the child's side: it runs the job over the log in the
// directory it is given, from the clock reading it is given; at every
// OnStep it reads the usage table as a reader would and reports what it saw;
// and it dies as $FLK_D04_CRASH says: SIGKILL at the k-th time OnStep reports
// the named step (no deferred function, no flush: a crash), or in the
// middle of a write (tornAtFileSize: the first write past k bytes;
// tornAfterWrite: the first write after the k-th StepWrite that grows a
// file, see tearNextWrite).
func runChild(t *testing.T) {
	var sc scenario
	if err := suite.ReadGob(os.Getenv(logEnv), &sc.log); err != nil {
		t.Fatalf("child: %v", err)
	}
	dir := os.Getenv(dirEnv)
	startMs, err := strconv.ParseInt(os.Getenv(startEnv), 10, 64)
	if err != nil {
		t.Fatalf("child: bad %s: %v", startEnv, err)
	}
	var crashStep engine.Step
	crashAt := 0
	if c := os.Getenv(crashEnv); c != "" {
		step, k, _ := strings.Cut(c, " ")
		crashStep = engine.Step(step)
		if crashAt, err = strconv.Atoi(k); err != nil {
			t.Fatalf("child: bad %s=%q", crashEnv, c)
		}
	}
	if crashStep == tornAtFileSize {
		if err := suite.CrashAtFileSize(int64(crashAt)); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	report, err := os.OpenFile(os.Getenv(reportEnv), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	cfg := Config(dir)
	o := newOracle(t, cfg, sc)
	clk := kit.NewManualClock(time.UnixMilli(startMs).UTC())
	counts := map[engine.Step]int{}
	var sizes map[string]int64
	cfg.OnStep = func(step engine.Step, id int64) {
		m, note := observe(o, dir)
		line := fmt.Sprintf("%s %d %d %d %s\n", step, id, clk.Now().UnixMilli(), m, strconv.Quote(note))
		if _, err := report.WriteString(line); err != nil {
			t.Fatalf("child: report: %v", err)
		}
		counts[step]++
		switch {
		case step == crashStep && counts[step] == crashAt:
			fmt.Fprintf(os.Stderr, "child: SIGKILL at %s #%d (checkpoint id %d)\n", step, crashAt, id)
			suite.KillSelf()
		case crashStep == tornAfterWrite && step == engine.StepWrite:
			prev := sizes
			sizes = fileSizes(t, dir)
			if counts[step] == crashAt {
				tearNextWrite(t, prev, sizes)
			}
		}
	}
	if err := Run(cfg, sc.log, clk); err != nil {
		t.Fatalf("Run(Config(dir), %d records, clock at %s) = %v, want nil", len(sc.log), clock(clk.Now()), err)
	}
}

// fileSizes returns the size of every regular file under dir, by path.
func fileSizes(t *testing.T, dir string) map[string]int64 {
	sizes := map[string]int64{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			sizes[path] = info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	return sizes
}

// tearNextWrite has the kernel kill this process 20 bytes into the next
// write that grows the file the last write grew (a job that appends its
// output: that file), or, if the last write grew no file (a job that
// buffers its open transaction), 20 bytes past the largest file's size, in
// whatever write first gets there.
func tearNextWrite(t *testing.T, before, after map[string]int64) {
	limit := int64(0)
	for path, n := range after {
		if n > before[path] {
			limit = n + 20
			break
		}
		limit = max(limit, n+20)
	}
	if err := suite.CrashAtFileSize(limit); err != nil {
		t.Fatalf("child: %v", err)
	}
}

// crashPoint is where a run of the job is killed: at the At-th time (of
// that run) the job reports Step; for tornAfterWrite in the first write
// after its At-th StepWrite; for tornAtFileSize in the first write past At
// bytes.
type crashPoint struct {
	Step engine.Step
	At   int
}

// describe says where p is, in words.
func (p crashPoint) describe() string {
	switch p.Step {
	case tornAfterWrite:
		return fmt.Sprintf("by the kernel (SIGXFSZ) in the middle of the write after its write #%d, which it left torn", p.At)
	case tornAtFileSize:
		return fmt.Sprintf("by the kernel (SIGXFSZ) in the middle of the first write that grew a file past %d bytes, which it left torn", p.At)
	}
	return fmt.Sprintf("by SIGKILL at %s #%d of the run", p.Step, p.At)
}

// history is a job's life over a scenario: a run killed at each point of a
// plan, each restarted restartWithin after the kill, then a run to the end;
// with every look a reader had at the table.
type history struct {
	sc    scenario
	o     *oracle
	dir   string
	obs   []observation
	story []string // what happened, run by run
}

// runJob runs sc in a new directory as child processes of the test binary:
// one killed at each point of plan, in order, then one to the end, each
// starting restartWithin after the kill before it (the first at the first
// delivery). After each kill the test reads the table too, as a reader
// would while the job is down. It stops the test if a child was not killed
// where planned or the last did not finish.
func runJob(t *testing.T, sc scenario, o *oracle, plan ...crashPoint) *history {
	t.Helper()
	for _, p := range plan {
		if (p.Step == tornAfterWrite || p.Step == tornAtFileSize) && !suite.FileSizeCrashes {
			suite.SkipUnsupported(t, "a torn write needs the kernel's file size limit (Linux): skipped here, and graded where it runs (CI)")
		}
	}
	h := &history{sc: sc, o: o, dir: suite.TempDir(t)}
	tmp := suite.TempDir(t)
	logFile := filepath.Join(tmp, "log.gob")
	suite.WriteGob(t, logFile, sc.log)
	test := strings.SplitN(t.Name(), "/", 2)[0]
	start := sc.log[0].Arrived
	for run := 1; run <= len(plan)+1; run++ {
		report := filepath.Join(tmp, fmt.Sprintf("report-%d.txt", run))
		env := []string{logEnv + "=" + logFile, dirEnv + "=" + h.dir, reportEnv + "=" + report,
			startEnv + "=" + strconv.FormatInt(start.UnixMilli(), 10)}
		var p crashPoint
		if run <= len(plan) {
			p = plan[run-1]
			env = append(env, fmt.Sprintf("%s=%s %d", crashEnv, p.Step, p.At))
		}
		out, err := suite.RunChild(test, childRole, env...)
		h.readReport(t, run, report)
		torn := p.Step == tornAfterWrite || p.Step == tornAtFileSize
		switch {
		case run > len(plan) && err == nil:
			h.story = append(h.story, fmt.Sprintf("run %d: started at %s, ran to the end", run, clock(start)))
			return h
		case run > len(plan):
			t.Fatalf("run %d (restarted, no crash) failed: the child %s; a restart after a crash must recover and finish.\n"+
				"what happened:\n%s\nchild output:\n%s", run, suite.DescribeExit(err), h.fmtStory(), out)
		case !torn && suite.KilledBySIGKILL(err), torn && suite.DiedAtFileSize(err):
		case err == nil:
			t.Fatalf("run %d was to be killed %s, but it ran to the end: it reported %s fewer than %d times, so this\n"+
				"test proves nothing. The job must call OnStep at every step of stage 05's protocol, as RunJob does: StepWrite after\n"+
				"each write to the usage table, then StepBeforePreCommit, StepAfterPreCommit, StepStored and StepAfterCommit at each\n"+
				"checkpoint.\nwhat happened:\n%s\nchild output:\n%s", run, p.describe(), p.Step, p.At, h.fmtStory(), out)
		default:
			t.Fatalf("run %d was to be killed %s, but the job failed first: the child %s.\nwhat happened:\n%s\nchild output:\n%s",
				run, p.describe(), suite.DescribeExit(err), h.fmtStory(), out)
		}
		last := start
		if n := len(h.obs); n > 0 && h.obs[n-1].run == run {
			last = h.obs[n-1].at
		}
		m, note := observe(o, h.dir)
		h.obs = append(h.obs, observation{run: run, step: downStep, at: last, m: m, note: note})
		h.story = append(h.story, fmt.Sprintf("run %d: started at %s, killed at %s %s", run, clock(start), clock(last), p.describe()))
		start = last.Add(restartWithin)
	}
	return h
}

// readReport adds the observations a run reported.
func (h *history) readReport(t *testing.T, run int, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("suite bug: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, " ", 5)
		if len(f) != 5 {
			t.Fatalf("suite bug: report line %q", line)
		}
		id, _ := strconv.ParseInt(f[1], 10, 64)
		ms, _ := strconv.ParseInt(f[2], 10, 64)
		m, _ := strconv.Atoi(f[3])
		note, err := strconv.Unquote(f[4])
		if err != nil {
			t.Fatalf("suite bug: report line %q: %v", line, err)
		}
		h.obs = append(h.obs, observation{run: run, step: engine.Step(f[0]), id: id, at: time.UnixMilli(ms).UTC(), m: m, note: note})
	}
}

// fmtStory renders the runs, one line each.
func (h *history) fmtStory() string {
	log := fmt.Sprintf("  the log: %d records from %s to %s", len(h.sc.log), clock(h.sc.log[0].Arrived), clock(h.o.maxTime))
	if len(h.story) > 1 {
		log += fmt.Sprintf("; every restart %v after the kill", restartWithin)
	}
	lines := []string{log}
	for _, s := range h.story {
		lines = append(lines, "  "+s)
	}
	return strings.Join(lines, "\n")
}

// count returns how many times run reported step.
func (h *history) count(run int, step engine.Step) int {
	n := 0
	for _, ob := range h.obs {
		if ob.run == run && ob.step == step {
			n++
		}
	}
	return n
}

// checkTable fails t unless the usage table after the last run is exactly
// the one the log makes: every call counted once. why says what the test's
// crash does to a job that gets it wrong.
func (h *history) checkTable(t *testing.T, why string) bool {
	t.Helper()
	got, err := ReadTotals(h.dir)
	if err != nil {
		t.Errorf("ReadTotals after the job finished = %v, want the usage table\nwhat happened:\n%s", err, h.fmtStory())
		return false
	}
	if slices.Equal(got, h.o.final) {
		return true
	}
	when := "after a run without a crash"
	if len(h.story) > 1 {
		when = "after the kill and the restart"
	}
	t.Errorf("%s, the usage table is not the one the log makes (each call counted once, in its customer's row\n"+
		"for its hour):\n%s\n\nwhat happened:\n%s\n\n%s\n\nwhy: %s",
		when, diffTables(got, h.o.final), h.fmtStory(), h.timeline(h.firstKill(), -1), why)
	return false
}

// firstKill returns the index of the observation made while the job was
// down after its first kill, or the last observation's if it never was.
func (h *history) firstKill() int {
	for i, ob := range h.obs {
		if ob.step == downStep {
			return i
		}
	}
	return len(h.obs) - 1
}

// checkReader fails t unless every look a reader had at the table, during
// the runs and between them, showed what completed checkpoints committed:
// a read that succeeds, a table that is a prefix of the job's increments
// (none counted twice, none dropped), that never goes back, and that
// changes during a run only when a checkpoint commits (between its
// StepStored and StepAfterCommit) and otherwise only while the job is down
// (a restart's recovery).
func (h *history) checkReader(t *testing.T, why string) bool {
	t.Helper()
	prev := observation{run: 1, step: "(start)"}
	for i, ob := range h.obs {
		var wrong string
		switch {
		case ob.m == observationError:
			wrong = "the reader failed: " + ob.note + "\n" +
				"A reader may read at any moment, even right after a kill in the middle of a write: it must never see a torn line."
		case ob.m == notAPrefix:
			wrong = "the reader saw a table that no run of the job without a crash ever shows: " + ob.note
		case ob.m < prev.m:
			wrong = fmt.Sprintf("the reader saw %d increments, then only %d: usage it had already read (and billed) was taken back.",
				prev.m, ob.m)
		case ob.m != prev.m && ob.run == prev.run && ob.step != downStep &&
			!(prev.step == engine.StepStored && ob.step == engine.StepAfterCommit):
			wrong = fmt.Sprintf("the table changed from %d to %d increments between %s and %s, outside a commit: the reader saw\n"+
				"increments no completed checkpoint had committed. A crash now would replay them, and they would count again\n"+
				"(or, if the restart takes them back, the reader has seen usage that never was).", prev.m, ob.m, fmtStep(prev), fmtStep(ob))
		case ob.m != prev.m && ob.step == downStep && prev.step != engine.StepStored:
			wrong = fmt.Sprintf("the table changed from %d to %d increments after %s, as the job was killed: the reader saw\n"+
				"a part of a write, or output no checkpoint had committed.", prev.m, ob.m, fmtStep(prev))
		}
		if wrong != "" {
			t.Errorf("at %s (run %d, %s), %s\n\nwhat happened:\n%s\n\n%s\n\nwhy: %s",
				clock(ob.at), ob.run, fmtStep(ob), wrong, h.fmtStory(), h.timeline(i, -1), why)
			return false
		}
		prev = ob
	}
	return true
}

// fmtStep names the step of an observation.
func fmtStep(ob observation) string {
	if ob.step == downStep {
		return "while the job was down"
	}
	return fmt.Sprintf("%s of checkpoint %d", ob.step, ob.id)
}

// stalest returns the increment whose minute a reader waited longest for,
// from the arrival of the record that closed it to the first look that
// showed it, and that wait. Minutes the end of the log closes are left out.
// ok is false if some increment was never seen.
func (h *history) stalest() (inc int, wait time.Duration, ok bool) {
	inc = -1
	next := 0 // the first increment not yet seen
	for _, ob := range h.obs {
		for ; next < ob.m; next++ {
			if c := h.o.closed[next]; !c.IsZero() {
				if w := ob.at.Sub(c); w > wait || inc < 0 {
					inc, wait = next, w
				}
			}
		}
	}
	return inc, wait, next >= len(h.o.incs)
}

// seenAt returns the index of the first observation that shows increment
// inc, or the last observation's.
func (h *history) seenAt(inc int) int {
	for i, ob := range h.obs {
		if ob.m > inc {
			return i
		}
	}
	return len(h.obs) - 1
}

// lastSeen says what the last observation of a table that was a prefix
// showed.
func (h *history) lastSeen() string {
	for i := len(h.obs) - 1; i >= 0; i-- {
		if ob := h.obs[i]; ob.m >= 0 {
			return fmt.Sprintf("%d of %d increments, at %s", ob.m, len(h.o.incs), clock(ob.at))
		}
	}
	return "nothing"
}

// timeline draws the observations around index i: each checkpoint step
// with what a reader saw, runs of writes in one line, the kills and the
// restarts; with inc ≥ 0 it marks when that increment's minute closed and
// when a reader first saw it.
func (h *history) timeline(i, inc int) string {
	from, until := max(0, i-14), min(len(h.obs), i+6)
	if inc >= 0 { // from a little before the minute closed
		c := h.o.closed[inc]
		for from > 0 && !h.obs[from].at.Before(c.Add(-15*time.Second)) {
			from--
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "timeline (processing time; \"sees m\": a reader sees the table of the first m of the %d increments a run without a\ncrash writes):\n",
		len(h.o.incs))
	marked, seen, pointed := false, false, false
	for k := from; k < until; k++ {
		ob := h.obs[k]
		if inc >= 0 && !marked && !h.o.closed[inc].After(ob.at) {
			fmt.Fprintf(&b, "  %s         the record closing %s arrives (increment #%d)\n", clock(h.o.closed[inc]), h.incName(inc), inc+1)
			marked = true
		}
		if k > 0 && h.obs[k-1].run != ob.run {
			fmt.Fprintf(&b, "  %s  run %d  restarted, %v after the kill\n", clock(h.obs[k-1].at.Add(restartWithin)), ob.run, restartWithin)
		}
		what, last := fmtStep(ob), ob
		j := k // the observations this line stands for: a run of writes, or one checkpoint's steps at one instant
		same := func(a, b observation) bool {
			if a.run != b.run || a.step == downStep || b.step == downStep {
				return false
			}
			if a.step == engine.StepWrite {
				return b.step == engine.StepWrite
			}
			return b.step != engine.StepWrite && a.id == b.id && a.at.Equal(b.at) && (b.m == a.m || b.step == engine.StepAfterCommit)
		}
		for j+1 < until && j+1 != i && same(ob, h.obs[j+1]) {
			j++
		}
		switch {
		case ob.step == engine.StepWrite:
			what = fmt.Sprintf("%d write(s) to the table, the last at %s", j-k+1, clock(h.obs[j].at))
		case j > k:
			what = fmt.Sprintf("checkpoint %d, %s … %s", ob.id, ob.step, h.obs[j].step)
		}
		last = h.obs[j]
		if last.m != ob.m && ob.step != engine.StepWrite {
			what += fmt.Sprintf(" (sees %s before)", fmtM(ob.m))
		}
		k = j
		run := fmt.Sprintf("run %d", ob.run)
		if ob.step == downStep {
			run = "down "
		}
		fmt.Fprintf(&b, "  %s  %s  %-52s sees %s", clock(ob.at), run, what, fmtM(last.m))
		if inc >= 0 && !seen && last.m > inc {
			fmt.Fprintf(&b, "   ← %s visible, %v after it closed", h.incName(inc), last.at.Sub(h.o.closed[inc]))
			seen = true
		}
		b.WriteString("\n")
		if k >= i && i >= from && !pointed {
			b.WriteString("  ^ here\n")
			pointed = true
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// fmtM renders an observation's m.
func fmtM(m int) string {
	switch m {
	case notAPrefix:
		return "a table no correct run shows"
	case observationError:
		return "an error"
	}
	return strconv.Itoa(m)
}

// incName names increment i: its customer and minute.
func (h *history) incName(i int) string {
	return fmt.Sprintf("a minute of %s's %s row", h.o.incs[i].Key, hourName(h.o.incs[i].Start))
}

// replay is a test's seeded replay: its randomness, the log, the oracle
// under the job's configuration, and a run of the job over the log without
// a crash, which the test chooses its crash points from.
type replay struct {
	rnd   *rand.Rand
	sc    scenario
	o     *oracle
	clean *history
}

// newReplay builds a test's seeded replay and runs the job over it once,
// without a crash.
func newReplay(t *testing.T) replay {
	t.Helper()
	rnd := suite.Rand(t)
	sc := buildScenario(rnd)
	o := newOracle(t, Config(suite.TempDir(t)), sc)
	return replay{rnd: rnd, sc: sc, o: o, clean: runJob(t, sc, o)}
}

// crashCase is one subtest of crashes: a plan of kills, and why it matters.
type crashCase struct {
	name string
	plan []crashPoint
	why  string
}

// runCases runs each case as a parallel subtest: the job over the replay,
// killed as the case plans, then check of what happened.
// check is (*history).checkTable or (*history).checkReader.
func (r replay) runCases(t *testing.T, cases []crashCase, check func(h *history, t *testing.T, why string) bool) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			check(runJob(t, r.sc, r.o, c.plan...), t, c.why)
		})
	}
}

// checkpointSteps are the steps of stage 05's protocol at a checkpoint, in
// order.
var checkpointSteps = []engine.Step{engine.StepBeforePreCommit, engine.StepAfterPreCommit, engine.StepStored, engine.StepAfterCommit}
