//go:build lab || solution

package twophase

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/crashfs"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// jobSpec is one job: a processor config, a checkpoint interval and a
// replayable source. The crash tests hand it to child processes in a file.
type jobSpec struct {
	Processor Config
	Every     int
	Source    []kit.Event
}

func (s jobSpec) String() string {
	return fmt.Sprintf("%d source events, CheckpointEvery %d, processor %+v", len(s.Source), s.Every, s.Processor)
}

// config returns the JobConfig of s in dir with the given OnStep.
func (s jobSpec) config(dir string, onStep func(Step, int64)) JobConfig {
	return JobConfig{Processor: s.Processor, Dir: dir, CheckpointEvery: s.Every, OnStep: onStep}
}

// randomSpec returns a job over n seeded events: disordered by up to
// disorder (beyond the watermark delay, some events are late), with a tenth
// of them redelivered, checkpointing every `every` events.
func randomSpec(r *rand.Rand, cfg Config, n, every int, disorder int64) jobSpec {
	evs := kit.RandomEvents(r, n, []string{"a", "b", "c", "d"}, 0, int64(n)*20)
	evs = kit.BoundedShuffle(r, evs, disorder)
	evs = kit.WithDuplicates(r, evs, 0.1)
	return jobSpec{Processor: cfg, Every: every, Source: evs}
}

// crashSpecs returns the jobs the crash tests run, drawn from r: one
// without allowed lateness and one with it (so the output holds updates),
// both with late events and redeliveries, and a source length that is not a
// multiple of the checkpoint interval, so the final checkpoint is its own.
func crashSpecs(r *rand.Rand) []jobSpec {
	return []jobSpec{
		unevenSpec(r, Config{WindowSize: 100, WatermarkDelay: 40}, 80, 7, 80),
		unevenSpec(r, Config{WindowSize: 150, WatermarkDelay: 30, AllowedLateness: 200}, 80, 7, 120),
	}
}

// unevenSpec returns a randomSpec of n to 1.375·n events (before
// redeliveries), checkpointing every `every` to every+3 of them, drawn again
// until the source length is not a multiple of the interval.
func unevenSpec(r *rand.Rand, cfg Config, n, every int, disorder int64) jobSpec {
	for {
		s := randomSpec(r, cfg, n+r.IntN(n*3/8), every+r.IntN(4), disorder)
		if len(s.Source)%s.Every != 0 {
			return s
		}
	}
}

// oracle is what a correct job over a spec produces, computed with a plain
// Processor: the results of the events between two checkpoints, per
// checkpoint. Checkpoint c (1-based) holds the results of the events at
// offsets [(c-1)·Every, c·Every), and the last one those of the remaining
// events and of Flush.
type oracle struct {
	perCheckpoint [][]kit.Result
}

// newOracle runs spec's source through a new Processor. When the source
// length is a multiple of Every, the last "checkpoint" holds only Flush's
// results (a job may take one checkpoint or two at the end then), so the
// tests that count checkpoints use other lengths.
func newOracle(t *testing.T, spec jobSpec) oracle {
	t.Helper()
	p := windowtest.MustNew(t, NewProcessor, spec.Processor)
	o := oracle{perCheckpoint: make([][]kit.Result, len(spec.Source)/spec.Every+1)}
	for i, e := range spec.Source {
		c := i / spec.Every
		o.perCheckpoint[c] = append(o.perCheckpoint[c], p.Process(e)...)
	}
	last := len(o.perCheckpoint) - 1
	o.perCheckpoint[last] = append(o.perCheckpoint[last], p.Flush()...)
	return o
}

// checkpoints is the number of checkpoints of an uninterrupted run.
func (o oracle) checkpoints() int { return len(o.perCheckpoint) }

// all returns every result, in order.
func (o oracle) all() []kit.Result { return concat(o.perCheckpoint...) }

// through returns the results of checkpoints 1..c: what is visible once
// checkpoint c is committed.
func (o oracle) through(c int) []kit.Result { return concat(o.perCheckpoint[:c]...) }

// writesThrough returns the number of sink writes of checkpoints 1..c.
func (o oracle) writesThrough(c int) int { return len(o.through(c)) }

// writes returns the number of sink writes of an uninterrupted run.
func (o oracle) writes() int { return o.writesThrough(o.checkpoints()) }

// visible returns k when ReadCommitted(dir) is exactly the output of
// checkpoints 1..k (the largest such k, when checkpoints without output make
// several fit), or an error that says what it returned instead: the reader's
// view that crashfs's checks need.
func (o oracle) visible(dir string) (int, error) {
	got, err := ReadCommitted(dir)
	if err != nil {
		return 0, fmt.Errorf("ReadCommitted = %v", err)
	}
	k, err := windowtest.WholeCheckpoints(got, o.perCheckpoint)
	if err != nil {
		return 0, fmt.Errorf("ReadCommitted returned %w", err)
	}
	return k, nil
}

// empty reports whether checkpoint c (1-based) has no results.
func (o oracle) empty(c int) bool { return len(o.perCheckpoint[c-1]) == 0 }

// checkpointOfWrite returns the checkpoint whose transaction holds the
// w-th write (1-based) of an uninterrupted run.
func (o oracle) checkpointOfWrite(w int) int {
	n := 0
	for c, rs := range o.perCheckpoint {
		n += len(rs)
		if w <= n {
			return c + 1
		}
	}
	panic(fmt.Sprintf("suite bug: write %d of %d", w, n))
}

// runClean runs spec without a crash in a new dir, in this process, and
// returns what it committed, and the dir. It stops the test unless that is
// exactly the oracle's output: the crash tests compare against it.
func runClean(t *testing.T, spec jobSpec, o oracle) ([]kit.Result, string) {
	t.Helper()
	dir := suite.TempDir(t)
	if err := RunJob(spec.config(dir, nil), spec.Source); err != nil {
		t.Fatalf("RunJob without a crash (%v) = %v, want nil", spec, err)
	}
	got, err := ReadCommitted(dir)
	if err != nil {
		t.Fatalf("ReadCommitted after RunJob without a crash = %v, want no error", err)
	}
	if !slices.Equal(got, o.all()) {
		t.Fatalf("even without a crash, the job's committed output is not the processor's output (%v):\n%s"+
			"fix TestJobCommitsEveryResultExactlyOnce first", spec, diffResults(got, o.all()))
	}
	return got, dir
}

// crashPoint is where a run of the job is killed: at step of checkpoint
// number At (1-based, counted from the start of the source, as in an
// uninterrupted run), or for StepWrite right after the At-th write of an
// uninterrupted run. For tornWrite, At is a file size in bytes: the run dies
// in the first write that grows any file past it (see suite.CrashAtFileSize),
// leaving that write torn.
type crashPoint struct {
	Step Step
	At   int
}

// tornWrite is the crash point of a torn write. It is not a step of the
// protocol: the kernel kills the job wherever it writes too much.
const tornWrite Step = "torn-write"

// restoredAfter returns the checkpoint a job killed at p resumes from:
// the latest one stored before the kill (0: none, a fresh start), or -1
// for a torn write, which may come anywhere.
func (p crashPoint) restoredAfter(o oracle) int {
	switch p.Step {
	case tornWrite:
		return -1
	case StepWrite:
		return o.checkpointOfWrite(p.At) - 1
	case StepBeforePreCommit, StepAfterPreCommit:
		return p.At - 1 // checkpoint At is not stored yet
	default: // StepStored, StepAfterCommit
		return p.At
	}
}

// local returns the count a run that resumed from checkpoint restored
// reaches p at: its k-th write or k-th checkpoint.
func (p crashPoint) local(o oracle, restored int) int {
	switch p.Step {
	case tornWrite:
		return p.At
	case StepWrite:
		return p.At - o.writesThrough(restored)
	}
	return p.At - restored
}

// describe says where p is, for the plan printed with a failure.
func (p crashPoint) describe(o oracle, restored int) string {
	k := p.local(o, restored)
	switch p.Step {
	case tornWrite:
		return fmt.Sprintf("by the kernel (SIGXFSZ) in the middle of the first write that grew a file in Dir past %d bytes, "+
			"which left that write torn: the file holds its first %d bytes", p.At, p.At)
	case StepWrite:
		return fmt.Sprintf("right after write %d of %d (this run's write %d, in checkpoint %d's transaction)",
			p.At, o.writes(), k, o.checkpointOfWrite(p.At))
	}
	return fmt.Sprintf("at %s of checkpoint %d of %d (this run's checkpoint %d)", p.Step, p.At, o.checkpoints(), k)
}

// The child process protocol: the test runs itself again (suite.RunChild)
// with these variables, and in the child role runs the job once, killing
// itself with SIGKILL at the k-th time it reaches the named step, or dying
// in a torn write past k bytes.
const (
	jobChildRole = "2pc-job"
	specEnv      = "FLK_2PC_SPEC"  // path of the jobSpec, gob-encoded
	dirEnv       = "FLK_2PC_DIR"   // the job's Dir
	crashEnv     = "FLK_2PC_CRASH" // "<step> <k>", or empty: run to the end
)

// isJobChild runs the child's side of a crash test (runJobChild) and
// reports true when this process is that child, so the test returns at once.
func isJobChild(t *testing.T) bool {
	if suite.ChildRole() != jobChildRole {
		return false
	}
	runJobChild(t)
	return true
}

// runJobChild is the child's side: it runs the job of $FLK_2PC_SPEC in
// $FLK_2PC_DIR and, if $FLK_2PC_CRASH says so, kills its own process with
// SIGKILL (no deferred function, no flush, no goodbye: a crash) when OnStep
// reports the named step for the k-th time, or has the kernel kill it in
// the first write past k bytes (tornWrite). At every step but a write it
// calls crashfs.MarkStep, so that a trace of the child shows the protocol's
// steps among its file operations.
func runJobChild(t *testing.T) {
	var spec jobSpec
	if err := suite.ReadGob(os.Getenv(specEnv), &spec); err != nil {
		t.Fatalf("child: %v", err)
	}
	var crashStep Step
	crashAt := 0
	if c := os.Getenv(crashEnv); c != "" {
		step, k, _ := strings.Cut(c, " ")
		crashStep = Step(step)
		var err error
		if crashAt, err = strconv.Atoi(k); err != nil {
			t.Fatalf("child: bad %s=%q", crashEnv, c)
		}
	}
	if crashStep == tornWrite { // the kernel kills this run, not OnStep
		if err := suite.CrashAtFileSize(int64(crashAt)); err != nil {
			t.Fatalf("child: %v", err)
		}
		crashStep = ""
	}
	seen := 0
	onStep := func(step Step, id int64) {
		if step != StepWrite {
			crashfs.MarkStep(string(step), id)
		}
		if step != crashStep {
			return
		}
		if seen++; seen == crashAt {
			fmt.Fprintf(os.Stderr, "child: SIGKILL at %s #%d (checkpoint id %d)\n", step, seen, id)
			suite.KillSelf()
		}
	}
	if err := RunJob(spec.config(os.Getenv(dirEnv), onStep), spec.Source); err != nil {
		t.Fatalf("RunJob = %v, want nil", err)
	}
}

// crashRun is a job run as child processes: one killed at each point of
// plan, in order, then one that runs to the end.
type crashRun struct {
	t     *testing.T
	test  string // the top-level test, which the children run again
	spec  jobSpec
	o     oracle
	plan  []crashPoint
	dir   string   // the job's Dir
	story []string // what happened, run by run, for failure messages
}

// writeSpec writes spec to a file for the child processes and returns the
// environment that hands it, and dir as the job's Dir, to a child.
func writeSpec(t *testing.T, spec jobSpec) func(dir string) []string {
	t.Helper()
	specFile := filepath.Join(suite.TempDir(t), "spec.gob")
	suite.WriteGob(t, specFile, spec)
	return func(dir string) []string { return []string{specEnv + "=" + specFile, dirEnv + "=" + dir} }
}

// runWithCrashes runs spec in a new dir as a sequence of child processes of
// the test binary: each killed at its point of plan (SIGKILL at a step, or
// the kernel's SIGXFSZ in a torn write; where a run resumes after a torn
// write is unknown, so only torn writes may follow one), then one without a
// crash. It stops the test if a child was not killed where planned, or the
// last one did not succeed, and returns the run.
func runWithCrashes(t *testing.T, spec jobSpec, o oracle, plan []crashPoint) *crashRun {
	t.Helper()
	cr := &crashRun{t: t, test: strings.SplitN(t.Name(), "/", 2)[0], spec: spec, o: o, plan: plan, dir: suite.TempDir(t)}
	env := writeSpec(t, spec)(cr.dir)

	restored := 0
	for i, p := range plan {
		k := p.local(o, restored)
		if p.Step != tornWrite && (k < 1 || restored < 0) {
			t.Fatalf("suite bug: crash point %+v is before the run resumed from checkpoint %d, or after a torn write", p, restored)
		}
		where := p.describe(o, restored)
		out, err := suite.RunChild(cr.test, jobChildRole, append(env, fmt.Sprintf("%s=%s %d", crashEnv, p.Step, k))...)
		switch {
		case p.Step != tornWrite && suite.KilledBySIGKILL(err), p.Step == tornWrite && suite.DiedAtFileSize(err):
		case err == nil && p.Step == tornWrite:
			t.Fatalf("run %d was to die in a write that grew a file in Dir past %d bytes, but it ran to the end: the uninterrupted run\n"+
				"left a larger file, so this run wrote other files than that one.\nrun so far:\n%s\nchild output:\n%s",
				i+1, p.At, cr.history(), out)
		case err == nil:
			t.Fatalf("run %d was to be killed %s, but it ran to the end calling OnStep(%q, …) fewer than %d times,\n"+
				"so it was never killed and this test proves nothing. RunJob must call OnStep at every step of the protocol\n"+
				"(see TestJobFollowsCheckpointProtocol).\nrun so far:\n%s\nchild output:\n%s",
				i+1, where, p.Step, k, cr.history(), out)
		default:
			t.Fatalf("run %d was to be killed %s, but the job failed first: the child %s.\nrun so far:\n%s\nchild output:\n%s",
				i+1, where, suite.DescribeExit(err), cr.history(), out)
		}
		cr.story = append(cr.story, fmt.Sprintf("run %d: killed %s", i+1, where))
		restored = p.restoredAfter(o)
	}
	out, err := suite.RunChild(cr.test, jobChildRole, env...)
	if err != nil {
		hint := ""
		if len(plan) > 0 && plan[len(plan)-1].Step == tornWrite {
			hint = "\nThe crash tore a write: a file holds only the first bytes of what was being written. A restart must never\n" +
				"depend on a file that can be torn: write a checkpoint to a temporary file, fsync it and rename it into place (a\n" +
				"rename is atomic, a write is not), keep the previous checkpoint until the new one is in place, and treat a\n" +
				"transaction that was never pre-committed as aborted, whatever is left of it."
		}
		t.Fatalf("run %d (restarted, no crash) failed: the child %s; a restart after a crash must recover and finish.%s\nrun so far:\n%s\nchild output:\n%s",
			len(plan)+1, suite.DescribeExit(err), hint, cr.history(), out)
	}
	cr.story = append(cr.story, fmt.Sprintf("run %d: restarted, no crash, ran to the end", len(plan)+1))
	t.Cleanup(func() {
		if !t.Failed() { // a failure message shows the plan already
			t.Logf("crash plan:\n%s", cr.history())
		}
	})
	return cr
}

// history renders the runs so far and the job, one line each.
func (cr *crashRun) history() string {
	lines := []string{"  job: " + cr.spec.String()}
	for _, s := range cr.story {
		lines = append(lines, "  "+s)
	}
	return strings.Join(lines, "\n")
}

// expectExactlyOnce fails the test unless the committed output of the
// crashed-and-restarted job equals want, the uninterrupted run's, and
// explains what a difference means.
func (cr *crashRun) expectExactlyOnce(want []kit.Result, why string) {
	cr.t.Helper()
	got, err := ReadCommitted(cr.dir)
	if err != nil {
		cr.t.Fatalf("ReadCommitted after the crashed job finished = %v, want no error\n%s", err, cr.history())
	}
	if slices.Equal(got, want) {
		return
	}
	changed, lost, extra := classifyDiff(got, want)
	var causes []string
	if changed > 0 {
		causes = append(causes, fmt.Sprintf("%d result(s) with a wrong count or sum: the restarted job did not process exactly the events "+
			"the uninterrupted one did. It must restore the processor from its latest checkpoint and replay the source from that "+
			"checkpoint's offset: skipping events undercounts, feeding events twice to a processor that has not seen them overcounts", changed))
	}
	if lost > 0 {
		causes = append(causes, fmt.Sprintf("%d result(s) lost. A lost result was in a transaction that was never committed, and no replay "+
			"produced it again: recovery aborted a transaction its stored checkpoint lists as pending, or the restarted job skipped "+
			"source events (it must replay from the checkpointed offset, with the processor restored from the same checkpoint)", lost))
	}
	if extra > 0 {
		causes = append(causes, fmt.Sprintf("%d result(s) duplicated or unexpected. A result visible twice was published before the crash "+
			"and again after the replay: something became visible before its checkpoint was stored, recovery committed a transaction "+
			"that is not pending, or the restarted job replayed events its restored state already covers (source offset or processor "+
			"not restored)", extra))
	}
	if len(causes) == 0 {
		causes = append(causes, "the same results in another order: transactions must be read in checkpoint order, "+
			"and a restarted job must continue with checkpoint ids greater than its restored one")
	}
	cr.t.Errorf("after the crash(es) and the restart, ReadCommitted returned %d results; the uninterrupted run committed %d.\n%s\n\n"+
		"what happened:\n%s\n\n%s\nwhy it matters: %s",
		len(got), len(want), "- "+strings.Join(causes, "\n- "), cr.history(), diffResults(got, want), why)
}

// classifyDiff compares got with want as multisets: changed counts the
// results of want that got holds for the same key and window but with
// another count or sum; lost those got lacks altogether; extra those got
// holds beyond want and not explained as changed.
func classifyDiff(got, want []kit.Result) (changed, lost, extra int) {
	missingResults, extras := windowtest.Unmatched(got, want)
	type window struct {
		key        string
		start, end int64
		update     bool
	}
	missing := map[window]int{}
	for _, r := range missingResults {
		missing[window{r.Key, r.Start, r.End, r.IsUpdate}]++
	}
	lost = len(missingResults)
	for _, r := range extras {
		if w := (window{r.Key, r.Start, r.End, r.IsUpdate}); missing[w] > 0 {
			missing[w]--
			changed++
			lost--
		} else {
			extra++
		}
	}
	return changed, lost, extra
}

// stepRecord is one OnStep call of a recorded run, with what a reader saw
// at that moment.
type stepRecord struct {
	step      Step
	id        int64
	committed []kit.Result // ReadCommitted at this step (checkpoint steps only)
	readErr   error
}

// runRecorded runs spec without a crash in dir, in this process, recording
// every OnStep call and, at each checkpoint step, what ReadCommitted shows.
func runRecorded(spec jobSpec, dir string) ([]stepRecord, error) {
	var recs []stepRecord
	onStep := func(step Step, id int64) {
		rec := stepRecord{step: step, id: id}
		if step != StepWrite {
			rec.committed, rec.readErr = ReadCommitted(dir)
		}
		recs = append(recs, rec)
	}
	err := RunJob(spec.config(dir, onStep), spec.Source)
	return recs, err
}

// fmtSteps renders recorded steps compactly: runs of writes as "write×n",
// at most limit entries.
func fmtSteps(recs []stepRecord, limit int) string {
	var parts []string
	for i := 0; i < len(recs); {
		if len(parts) == limit {
			parts = append(parts, "…")
			break
		}
		if recs[i].step == StepWrite {
			j := i
			for j < len(recs) && recs[j].step == StepWrite {
				j++
			}
			parts = append(parts, fmt.Sprintf("write×%d", j-i))
			i = j
			continue
		}
		parts = append(parts, fmt.Sprintf("%s(%d)", recs[i].step, recs[i].id))
		i++
	}
	if len(parts) == 0 {
		return "(no steps)"
	}
	return strings.Join(parts, " → ")
}
