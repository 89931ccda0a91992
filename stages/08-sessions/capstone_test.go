//go:build lab || solution

package sessions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The capstone job: 8 source partitions, 3 with data, EU quiet from 02:00
// to 04:00; a 30-minute session gap; watermarks with a 30 s bounded
// out-of-orderness and a 60 s idleness timeout, emitted (and committed)
// every 2 minutes; deliveries up to 20 s behind their timestamps.
const (
	capstonePartitions = 8
	capstoneGap        = 30 * minute
	capstoneOOO        = 30 * second
	capstoneIdle       = time.Minute
	capstoneEmit       = 2 * time.Minute
	capstoneMaxDelay   = 20 * time.Second
	latencyBudget      = 300 * time.Second
)

// capstoneConfig is the job's config in dir with the given idleness
// timeout. The minute of allowed lateness lets an event exactly at the
// watermark still merge with a session that fired there.
func capstoneConfig(dir string, idle time.Duration) SessionJobConfig {
	return SessionJobConfig{
		Watermarks:   WatermarkConfig{Partitions: capstonePartitions, OutOfOrderness: capstoneOOO, IdleTimeout: idle},
		Sessions:     SessionConfig{Gap: capstoneGap, AllowedLateness: minute},
		Dir:          dir,
		EmitInterval: capstoneEmit,
	}
}

// closingBound is the longest a session may take, in processing time, from
// the moment the replay's clock passes its end (the earliest any system
// could know it is over: no event of its key for a whole gap) to the
// commit that makes it visible. At any emission, every partition that is
// not idle delivered an event within IdleTimeout, with a timestamp at most
// maxDelay behind the clock, so its watermark is at most IdleTimeout +
// maxDelay + OutOfOrderness behind; silent partitions have dropped out. The
// next emission, at most EmitInterval later, fires and commits.
const closingBound = capstoneIdle + capstoneMaxDelay + time.Duration(capstoneOOO)*time.Millisecond + capstoneEmit

// checkCommitted fails t unless the committed output of job (in its
// cfg.Dir), applied downstream, is a valid changelog that rebuilds to want.
// why says what usually goes wrong in this situation.
func checkCommitted(t *testing.T, job jobView, what string, want []kit.Result, why string) bool {
	t.Helper()
	rs, err := ReadCommitted(job.cfg.Dir)
	if err != nil {
		t.Errorf("%s: ReadCommitted = %v, want the committed results", what, err)
		return false
	}
	d, problem := rebuild(rs)
	if problem != "" {
		msg := fmt.Sprintf("%s: the committed changelog (%d results) cannot be applied downstream:\n%s", what, len(rs), problem)
		t.Errorf("%s\n%s%s", msg, why, job.picture(t, msg, rs, unappliedKey(rs)))
		return false
	}
	if got := d.sessions(); !slices.Equal(got, want) {
		msg := fmt.Sprintf("%s: the committed changelog rebuilds to sessions that differ from the batch oracle (each key's events,\n"+
			"each ID once, split where two consecutive ones are more than the 30-minute gap apart):\n%s", what, diffSessions(got, want))
		first, _ := windowtest.FirstDifference(got, want)
		t.Errorf("%s%s%s", msg, why, job.picture(t, msg, rs, first.Key))
		return false
	}
	return true
}

// failCommits stops t: following the commits of job (of what, "the run"),
// which committed committed, found problem. The page draws the key of the
// first result downstream cannot apply, if there is one.
func failCommits(t *testing.T, job jobView, committed []kit.Result, what, problem string) {
	t.Helper()
	msg := fmt.Sprintf("following the commits of %s: %s", what, problem)
	link := ""
	if key := unappliedKey(committed); key != "" {
		link = job.picture(t, msg, committed, key)
	}
	t.Fatalf("%s%s", msg, link)
}

// unappliedKey returns the key of the first result of rs downstream cannot
// apply, or of the last result if only retractions are left over at the
// end; "" if rs applies.
func unappliedKey(rs []kit.Result) string {
	if _, problem := rebuild(rs); problem == "" {
		return ""
	}
	for k := range rs {
		if _, p := rebuild(rs[:k+1]); p != "" && !strings.Contains(p, "not followed by the session that replaces them") {
			return rs[k].Key
		}
	}
	return rs[len(rs)-1].Key
}

// Why a committed changelog goes wrong, by situation.
const (
	cleanWhy = "Every result the session processor returns goes to the sink (late events are not results), and a final\n" +
		"checkpoint after Flush commits the last of them."
	crashWhy = "After a crash the job resumes from its latest checkpoint: the session processor restored from its snapshot\n" +
		"(with what downstream holds of each session, so that it retracts exactly what was committed), the sink\n" +
		"recovered with the checkpoint's pending ids, the arrivals replayed from its offset. A session missing here\n" +
		"was open at the checkpoint and lost; one counted twice, or a first result committed twice, was replayed\n" +
		"into a processor that did not remember it."
)

// TestSessionJobRejectsInvalidConfig certifies that RunSessionJob returns an error and commits nothing for a nil clock, an invalid config or an invalid source, whether it would start fresh or resume from a checkpoint.
//
// The source closes a's session and commits it (at the emission at 32 min)
// before its last two arrivals: a job that checks each arrival only as it
// reads it has committed output by the time it finds the last one invalid.
func TestSessionJobRejectsInvalidConfig(t *testing.T) {
	defer suite.Recover(t)
	// run is one call of RunSessionJob, for a case to spoil.
	type run struct {
		cfg      SessionJobConfig
		arrivals []Arrival
		clock    *kit.ManualClock
	}
	source := func() []Arrival {
		return []Arrival{
			{Partition: 0, At: time.Second, Event: ev("e1", "a", 1000, 1)},
			{Partition: 1, At: 2 * time.Second, Event: ev("e2", "a", 2000, 1)},
			// Partition 0's watermark passes a's end (2000 + the gap); the
			// others are idle by then: the emission at 32 min, before e4 is
			// read, fires a and commits it.
			{Partition: 0, At: 1900 * time.Second, Event: ev("e3", "b", 1_900_000, 1)},
			{Partition: 0, At: 1950 * time.Second, Event: ev("e4", "b", 1_950_000, 1)},
			{Partition: 0, At: 2000 * time.Second, Event: ev("e5", "b", 2_000_000, 1)},
		}
	}
	last := len(source()) - 1
	for _, c := range []struct {
		name  string
		spoil func(*run)
		why   string
	}{
		{"a nil clock", func(r *run) { r.clock = nil }, "the job reads and moves processing time on it"},
		{"EmitInterval 0", func(r *run) { r.cfg.EmitInterval = 0 }, "without an interval the watermark is never emitted"},
		{"EmitInterval −1s", func(r *run) { r.cfg.EmitInterval = -time.Second }, "processing time never runs backwards"},
		{"empty Dir", func(r *run) { r.cfg.Dir = "" }, "the job has nowhere to keep its checkpoints and output"},
		{"Gap 0", func(r *run) { r.cfg.Sessions.Gap = 0 }, "NewSessionProcessor rejects it"},
		{"AllowedLateness −1", func(r *run) { r.cfg.Sessions.AllowedLateness = -1 }, "NewSessionProcessor rejects it"},
		{"Partitions 0", func(r *run) { r.cfg.Watermarks.Partitions = 0 }, "NewWatermarks rejects it"},
		{"OutOfOrderness −1", func(r *run) { r.cfg.Watermarks.OutOfOrderness = -1 }, "NewWatermarks rejects it"},
		{"IdleTimeout −1s", func(r *run) { r.cfg.Watermarks.IdleTimeout = -time.Second }, "NewWatermarks rejects it"},
		{"an arrival on partition 8 of 8", func(r *run) { r.arrivals[1].Partition = capstonePartitions },
			"partitions are numbered 0 … 7: an event from a partition that does not exist is a wiring bug"},
		{"an arrival on partition −1", func(r *run) { r.arrivals[1].Partition = -1 },
			"partitions are numbered 0 … 7: an event from a partition that does not exist is a wiring bug"},
		{"an arrival earlier than the one before", func(r *run) { r.arrivals[1].At = 0 },
			"a source delivers in processing-time order"},
		{"the last arrival on partition 8 of 8", func(r *run) { r.arrivals[last].Partition = capstonePartitions },
			"partitions are numbered 0 … 7, and the source is checked before anything is written, not as it is read:\n" +
				"by the last arrival, a's session has been committed"},
		{"the last arrival earlier than the one before", func(r *run) { r.arrivals[last].At = time.Second },
			"a source delivers in processing-time order, and it is checked before anything is written, not as it is read:\n" +
				"by the last arrival, a's session has been committed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			dir := suite.TempDir(t)
			r := run{cfg: capstoneConfig(dir, capstoneIdle), arrivals: source(), clock: kit.NewManualClock(jobEpoch(0))}
			c.spoil(&r)
			if err := RunSessionJob(r.cfg, r.arrivals, r.clock); err == nil {
				t.Errorf("RunSessionJob(%s) = nil, want an error: %s", c.name, c.why)
			}
			if rs, err := ReadCommitted(dir); err == nil && len(rs) > 0 {
				t.Errorf("RunSessionJob(%s) committed %d results; a job that cannot start commits nothing: %s", c.name, len(rs), c.why)
			}
		})
	}

	// An invalid config on a Dir the job would resume from: a finished
	// run's. A check made only where the job starts fresh, next to
	// NewSessionProcessor, lets a restart run on with the snapshot's config.
	t.Run("resuming, Gap 0", func(t *testing.T) {
		defer suite.Recover(t)
		dir := suite.TempDir(t)
		if err := RunSessionJob(capstoneConfig(dir, capstoneIdle), source(), kit.NewManualClock(jobEpoch(0))); err != nil {
			t.Fatalf("RunSessionJob(a valid config and source) = %v, want nil", err)
		}
		done, err := ReadCommitted(dir)
		if err != nil || len(done) == 0 {
			t.Fatalf("ReadCommitted after a finished run = %v, %v; want its sessions", done, err)
		}
		cfg := capstoneConfig(dir, capstoneIdle)
		cfg.Sessions.Gap = 0
		if err := RunSessionJob(cfg, source(), kit.NewManualClock(jobEpoch(0).Add(time.Hour))); err == nil {
			t.Errorf("RunSessionJob(Gap 0) on a Dir whose run finished = nil, want an error: NewSessionProcessor rejects it, and\n" +
				"a resumed job is no exception. Check the config before you look for a checkpoint, not only on the path that\n" +
				"starts fresh: a restart is where a bad deploy shows.")
		}
		if rs, err := ReadCommitted(dir); err != nil || !slices.Equal(rs, done) {
			t.Errorf("ReadCommitted after RunSessionJob(Gap 0) on a finished Dir = %v, %v; want what the finished run committed,\n%v:\n"+
				"a job that cannot start commits nothing more", rs, err, done)
		}
	})
}

// TestSessionJobFollowsItsEmissionSchedule certifies that the job emits the watermark at every epoch + k·EmitInterval before reading an arrival due at that moment, checkpoints (commits) right after each emission, writes what Process returns but never a late event, and ends with Flush and a final checkpoint.
//
// Two partitions that both speak, no idleness, EmitInterval 10 s, Gap 1 s,
// AllowedLateness 1 s; event time in milliseconds tracks processing time.
func TestSessionJobFollowsItsEmissionSchedule(t *testing.T) {
	defer suite.Recover(t)
	epoch := jobEpoch(0)
	cfg := SessionJobConfig{
		Watermarks:   WatermarkConfig{Partitions: 2},
		Sessions:     SessionConfig{Gap: 1000, AllowedLateness: 1000},
		Dir:          suite.TempDir(t),
		EmitInterval: 10 * time.Second,
	}
	at := func(partition int, at time.Duration, e kit.Event) Arrival {
		return Arrival{Partition: partition, At: at, Event: e}
	}
	arrivals := []Arrival{
		at(0, 1*time.Second, ev("e1", "a", 1000, 1)),
		at(1, 2*time.Second, ev("e2", "b", 2000, 2)),
		at(0, 10*time.Second, ev("e3", "c", 9000, 3)), // due at the first emission time: read after it
		at(1, 12*time.Second, ev("e4", "d", 11500, 4)),
		at(1, 13*time.Second, ev("e5", "h", -5000, 5)), // late at watermark 1000: side output, not written
		at(0, 15*time.Second, ev("e6", "e", 15000, 6)),
		at(0, 21*time.Second, ev("e7", "i", 10500, 7)), // behind watermark 11500, not expired: fires at once
		at(1, 21*time.Second, ev("e8", "f", 21000, 8)),
		at(0, 22*time.Second, ev("e9", "g", 22000, 9)),
	}
	want := []struct {
		at      time.Duration
		results []kit.Result
		why     string
	}{
		{10 * time.Second, nil,
			"At +10s the job emits before it reads e3, due at that same moment: the watermark is min(1000, 2000) = 1000,\n" +
				"and a's session [1000,2000) is still open. Reading e3 first would raise partition 0 to 9000, the watermark to\n" +
				"2000, and close a ten seconds early."},
		{20 * time.Second, []kit.Result{res("a", 1000, 2000, 1, 1), res("b", 2000, 3000, 1, 2), res("c", 9000, 10000, 1, 3)},
			"At +20s the watermark is min(15000, 11500) = 11500: a, b and c fire, and the checkpoint right after the\n" +
				"emission commits them. (A checkpoint taken before the emission would leave them to the next commit.)"},
		{22 * time.Second, []kit.Result{res("i", 10500, 11500, 1, 7),
			res("d", 11500, 12500, 1, 4), res("e", 15000, 16000, 1, 6), res("f", 21000, 22000, 1, 8), res("g", 22000, 23000, 1, 9)},
			"e7's session [10500,11500) ends at the watermark, 11500, and has not expired (11500 < 11500 + 1000): it fires\n" +
				"in Process, and the job writes what Process returns. After the last arrival, at +22s, Flush fires the rest\n" +
				"and a final checkpoint commits them. e5 was late (its session [-5000,-4000) expired at watermark 1000): side\n" +
				"output, never written."},
	}
	run, err := runJob(cfg, arrivals, kit.NewManualClock(epoch), epoch)
	if err != nil {
		t.Fatalf("RunSessionJob = %v, want nil", err)
	}
	committed, err := ReadCommitted(cfg.Dir)
	if err != nil {
		t.Fatalf("ReadCommitted after RunSessionJob = %v, want the committed results", err)
	}
	job := jobView{scenario{from: 0, until: 22 * second, arrivals: arrivals}, cfg, []jobRun{run}}
	txns, problem := committedTxns([]jobRun{run}, committed)
	if problem != "" {
		msg := "following the commits of the run: " + problem
		t.Fatalf("%s%s", msg, job.picture(t, msg, committed))
	}
	var got []string
	for _, x := range txns {
		got = append(got, fmt.Sprintf("  checkpoint %d, committed at +%v:\n%s", x.id, x.visibleAt, windowtest.FmtResults(x.results)))
	}
	for i, w := range want {
		if i >= len(txns) {
			msg := fmt.Sprintf("the job committed %d checkpoints, want %d: one per emission time up to the last arrival (+10s, +20s),\n"+
				"then the final one after Flush (+22s).", len(txns), len(want))
			t.Fatalf("%s It committed:\n%s%s", msg, strings.Join(got, "\n"), job.picture(t, msg, committed))
		}
		if x := txns[i]; x.visibleAt != w.at || !slices.Equal(x.results, w.results) {
			msg := fmt.Sprintf("checkpoint %d of the run committed at +%v\n%s\nwant a commit at +%v of\n%s\n%s",
				i+1, x.visibleAt, windowtest.FmtResults(x.results), w.at, windowtest.FmtResults(w.results), w.why)
			t.Fatalf("%s\n\nthe whole run committed:\n%s%s", msg, strings.Join(got, "\n"), job.picture(t, msg, committed))
		}
	}
	if len(txns) > len(want) {
		msg := fmt.Sprintf("the job committed %d checkpoints, want %d: one per emission time up to the last arrival (+10s, +20s),\n"+
			"then the final one after Flush (+22s).", len(txns), len(want))
		t.Fatalf("%s It committed:\n%s%s", msg, strings.Join(got, "\n"), job.picture(t, msg, committed))
	}
}

// TestQuietPartitionSessionJobMeetsLatencyBudget certifies that the quiet-partition sessions job (8 partitions, 3 with data, EU silent 02:00–04:00) commits every session once, within 3m50s of the replay passing its end: idleness + delivery delay + out-of-orderness + emit interval, inside the 300 s budget.
//
// The replay runs from 01:45 to 04:15, processing time tracking event time.
// A session [start, end) is "closable" when the replay's clock reaches its
// end: a whole gap without an event of its key. It is "closed" at the first
// commit after which downstream holds it with its final count and sum.
func TestQuietPartitionSessionJobMeetsLatencyBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to fsync: let the jobs of these tests wait together
	if closingBound > latencyBudget {
		t.Fatalf("suite bug: the closing bound %v exceeds the %v budget", closingBound, latencyBudget)
	}
	sc := newScenario(suite.Rand(t), 105*minute, 4*hour+15*minute, capstoneMaxDelay)
	cfg := capstoneConfig(suite.TempDir(t), capstoneIdle)
	run, err := runJob(cfg, sc.arrivals, kit.NewManualClock(jobEpoch(sc.from)), jobEpoch(sc.from))
	if err != nil {
		t.Fatalf("RunSessionJob (%d arrivals from 01:45 to 04:15) = %v, want nil", len(sc.arrivals), err)
	}
	want := batchSessions(sc.events(), capstoneGap)
	if !checkCommitted(t, jobView{sc, cfg, []jobRun{run}}, "after RunSessionJob", want, cleanWhy) {
		return
	}
	committed, _ := ReadCommitted(cfg.Dir)
	txns, problem := committedTxns([]jobRun{run}, committed)
	if problem != "" {
		failCommits(t, jobView{sc, cfg, []jobRun{run}}, committed, "the run", problem)
	}
	since, problem := visibleSince(txns)
	if problem != "" {
		failCommits(t, jobView{sc, cfg, []jobRun{run}}, committed, "the run", problem)
	}

	// The bound holds while data flows: at every emission some partition
	// is active. It ends with the last first delivery; redeliveries after
	// it carry old timestamps and may leave the watermark where it was.
	l := measureLatency(sc, want, []jobRun{run}, since)
	if l.checked < 100 || l.inQuiet < 20 {
		t.Fatalf("suite bug: only %d sessions close before the end of input, %d of them during EU's quiet hours", l.checked, l.inQuiet)
	}
	if l.lateCount > 0 {
		msg := fmt.Sprintf("%d of %d sessions were committed more than %v after the replay passed their end (the worst: %v):\n%s",
			l.lateCount, l.checked, closingBound, l.worst, strings.Join(l.late, "\n"))
		t.Errorf("%s\n\n"+
			"The bound is IdleTimeout %v + delivery delay %v + OutOfOrderness %v + EmitInterval %v: at each emission, every\n"+
			"partition that is not idle spoke within the idleness timeout, so its watermark trails the clock by at most the\n"+
			"other three; partitions that never speak (5 of 8) and EU in its quiet hours drop out once idle. Check that the job\n"+
			"hands Watermarks.Current() to AdvanceWatermark at every emission, and checkpoints (commits) right after it:\n"+
			"results become visible only at a commit.%s",
			msg, capstoneIdle, capstoneMaxDelay, time.Duration(capstoneOOO)*time.Millisecond, capstoneEmit,
			jobView{sc, cfg, []jobRun{run}}.picture(t, msg, committed, l.lateKeys[:1]...))
	}
}

// TestQuietPartitionsHoldSessionsOpenWithoutIdleness certifies that without an idleness timeout the five partitions that never deliver pin the watermark, so the job commits no session before the end of input, and still the right ones then.
//
// This is the quiet-partition bug the idleness timeout fixes: a partition
// that has not spoken has no watermark, and the minimum over the
// partitions stays at math.MinInt64.
func TestQuietPartitionsHoldSessionsOpenWithoutIdleness(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to fsync: let the jobs of these tests wait together
	sc := newScenario(suite.Rand(t), 90*minute, 2*hour+15*minute, capstoneMaxDelay)
	cfg := capstoneConfig(suite.TempDir(t), 0)
	run, err := runJob(cfg, sc.arrivals, kit.NewManualClock(jobEpoch(sc.from)), jobEpoch(sc.from))
	if err != nil {
		t.Fatalf("RunSessionJob without idleness = %v, want nil", err)
	}
	if !checkCommitted(t, jobView{sc, cfg, []jobRun{run}}, "after RunSessionJob without idleness", batchSessions(sc.events(), capstoneGap), cleanWhy) {
		return
	}
	committed, _ := ReadCommitted(cfg.Dir)
	txns, problem := committedTxns([]jobRun{run}, committed)
	if problem != "" {
		failCommits(t, jobView{sc, cfg, []jobRun{run}}, committed, "the run", problem)
	}
	if len(txns) < 2 {
		t.Fatalf("the job committed %d times; it checkpoints (and commits) at every emission, every 2 minutes of processing time,\n"+
			"and once more at the end", len(txns))
	}
	for _, x := range txns[:len(txns)-1] {
		if len(x.results) > 0 {
			msg := fmt.Sprintf("the commit of checkpoint %d (at %s) made %d results visible, e.g. %v, before the end of input.\n"+
				"With IdleTimeout 0, partitions 0, 2, 3, 5 and 7 never deliver an event: they have no watermark and hold the\n"+
				"combined one at math.MinInt64, so no session can fire until the final Flush. A job that closes sessions\n"+
				"here is not taking its watermark from the partitions (Watermarks.Current()), or ignores the silent ones.",
				x.id, fmtAt(sc.from, x.visibleAt), len(x.results), x.results[0])
			t.Fatalf("%s%s", msg, jobView{sc, cfg, []jobRun{run}}.picture(t, msg, committed, x.results[0].Key))
		}
	}
}

// TestSessionJobClosesSessionsWhenAllPartitionsAreIdle certifies that once every partition is idle the job's watermark jumps to the highest partition watermark: the sessions ending at or before it are committed within EmitInterval of that moment, those of the partition that went idle last, with the lowest watermark, included, not held until the final Flush; a session ending after it waits for the final checkpoint; and events that partition sends later behind the new watermark are late, a correction within AllowedLateness, side output beyond.
//
// APAC's data stops at 02:25, but its connector goes on redelivering its
// last event every 30 s until after US (data until 02:40) has stopped: APAC
// stays active with the lower watermark and holds the combined one at its
// own. A minute after its last redelivery every partition is idle. Holding
// the watermark then, where the last active partition left it, would keep
// every session between APAC's watermark and US's open until the end of the
// input: the answer would depend on the order in which the partitions
// stopped. The jump comes with the clock alone, at an emission with no
// event since the one before.
func TestSessionJobClosesSessionsWhenAllPartitionsAreIdle(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to fsync: let the jobs of these tests wait together
	ai := newAllIdle(suite.Rand(t))
	before, counted := ai.events()
	first := batchSessions(before, capstoneGap) // the sessions before the stragglers
	jumped := 0                                 // of those, the ones only the jump closes
	apacJumped := false
	for _, s := range first {
		if s.End > ai.wms[apacPartition] && s.End <= ai.highest {
			jumped++
			apacJumped = apacJumped || partitionOf(ai.sc, s.Key) == apacPartition
		}
	}
	last := ai.sc.arrivals[len(ai.sc.arrivals)-3] // the last before the stragglers
	if last.Partition != apacPartition || ai.wms[apacPartition] >= ai.highest || jumped < 10 || !apacJumped {
		t.Fatalf("suite bug: the last arrival before the stragglers is on partition %d, APAC's watermark is %s and the highest %s,\n"+
			"and %d sessions end between them (APAC's among them: %v)", last.Partition, clockOf(ai.wms[apacPartition]),
			clockOf(ai.highest), jumped, apacJumped)
	}

	cfg := capstoneConfig(suite.TempDir(t), capstoneIdle)
	run, err := runJob(cfg, ai.sc.arrivals, kit.NewManualClock(jobEpoch(ai.sc.from)), jobEpoch(ai.sc.from))
	if err != nil {
		t.Fatalf("RunSessionJob = %v, want nil\n%s", err, ai.timeline())
	}
	committed, err := ReadCommitted(cfg.Dir)
	if err != nil {
		t.Fatalf("ReadCommitted after RunSessionJob = %v, want the committed results", err)
	}
	txns, problem := committedTxns([]jobRun{run}, committed)
	if problem == "" && len(txns) == 0 {
		problem = "the run stored no checkpoint; the job checkpoints at every emission and after Flush"
	}
	if problem == "" {
		var since map[kit.Result]time.Duration
		if since, problem = visibleSince(txns); problem == "" {
			checkAllIdleCommits(t, jobView{ai.sc, cfg, []jobRun{run}}, committed, ai, first, since, txns[len(txns)-1].visibleAt)
		}
	}
	if problem != "" {
		failCommits(t, jobView{ai.sc, cfg, []jobRun{run}}, committed, "the run", problem)
	}
	why := "Every partition idle, the watermark is the highest partition watermark (stage 7), so an event behind it is\n" +
		"judged against it: one that extends a fired session within AllowedLateness corrects it (a retraction, then\n" +
		"the update), one whose session expired goes to the side output and is never written.\n\n" + ai.timeline()
	checkCommitted(t, jobView{ai.sc, cfg, []jobRun{run}}, "after the stragglers and the final Flush", batchSessions(counted, capstoneGap), why)
}

// checkAllIdleCommits fails t for every session of first, the sessions
// before ai's stragglers, that the job did not commit when it should have:
// by ai.allIdleAt + EmitInterval if it ends at or before the highest
// partition watermark, at the final checkpoint (final) if it ends after.
// since says when each became visible; job and committed are the run, for
// its picture.
func checkAllIdleCommits(t *testing.T, job jobView, committed []kit.Result, ai allIdle, first []kit.Result, since map[kit.Result]time.Duration, final time.Duration) {
	t.Helper()
	by := ai.allIdleAt + capstoneEmit
	var late, keys []string
	for _, s := range first {
		at, ok := since[s]
		committed := "never committed as such"
		if ok {
			committed = "committed at " + fmtAt(ai.sc.from, at)
		}
		switch {
		case s.End <= ai.highest && (!ok || at > by):
			keys = append(keys, s.Key)
			late = append(late, fmt.Sprintf("  %s (partition %d): %s, want by %s", fmtSession(s), partitionOf(ai.sc, s.Key),
				committed, fmtAt(ai.sc.from, by)))
		case s.End > ai.highest && at != final:
			keys = append(keys, s.Key)
			late = append(late, fmt.Sprintf("  %s (partition %d): %s, want it only at the final checkpoint, at %s",
				fmtSession(s), partitionOf(ai.sc, s.Key), committed, fmtAt(ai.sc.from, final)))
		}
	}
	if len(late) > 0 {
		msg := fmt.Sprintf("%d sessions were committed at the wrong time, for example:\n%s", len(late), strings.Join(late[:min(len(late), 8)], "\n"))
		t.Errorf("%s\n\n"+
			"Once every partition is idle, the combined watermark is the highest partition watermark, here US's %s,\n"+
			"whatever the order in which the partitions stopped: each has promised no event at or below its own\n"+
			"watermark, and none is coming. The next emission hands it to AdvanceWatermark and the checkpoint after it\n"+
			"commits every session that ends at or before it, APAC's included. Idleness is processing time: the jump\n"+
			"comes with the clock, at an emission when no event arrived, so the job hands Watermarks.Current() on at\n"+
			"every emission. A session that ends after it has no promise behind it: only Flush closes it.\n\n%s%s",
			msg, clockOf(ai.highest), ai.timeline(), job.picture(t, msg, committed, keys[0]))
	}
}
