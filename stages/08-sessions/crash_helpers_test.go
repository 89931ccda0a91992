//go:build lab || solution

package sessions

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/crashfs"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The crash tests run the capstone job in child processes of the test
// binary (suite.RunChild) and kill them for real: the child sends itself
// SIGKILL (suite.KillSelf) the k-th time the job reaches a step, so no
// deferred call of the job runs and nothing it buffered is flushed. The
// ManualClock lives in the child. The parent hands each child the job (a
// file), its Dir, the clock's reading at start (the epoch on a fresh start,
// the restart time after a crash) and where to crash, and reads back a
// report the child appends to as it goes, one line per event:
//
//	start <at>          the job starts; the clock reads <at>
//	<step> <id> <at>    OnStep(step, id), the clock reading <at>
//	kill                the child kills itself right after the step above
//	done <at>           RunSessionJob returned nil
//
// <at> is nanoseconds since the job's epoch. Each line is one write(2) to
// a file opened for appending: the kernel has it before the kill, so it
// survives the kill (only a power loss could drop it, which is not this
// test). At every step but a write the child also calls crashfs.MarkStep,
// so that a trace of it (durability_test.go) shows the protocol's steps
// among its file operations; a traced child writes no report.
const (
	jobChildRole = "sessions-job"
	specEnv      = "FLK_SESSIONS_SPEC"   // the jobSpec file, gob-encoded
	dirEnv       = "FLK_SESSIONS_DIR"    // the job's Dir
	startEnv     = "FLK_SESSIONS_START"  // the clock's reading at start, ns since the epoch
	crashEnv     = "FLK_SESSIONS_CRASH"  // "<step> <k>": SIGKILL at the k-th time the run reaches step, or "torn-write <k>" (tornWrite); empty: run to the end
	reportEnv    = "FLK_SESSIONS_REPORT" // the report file; empty: no report
)

// jobSpec is the job a child runs: the capstone's config with the given
// idleness timeout, on these arrivals, with times measured from Epoch.
type jobSpec struct {
	Epoch    time.Time
	Idle     time.Duration
	Arrivals []Arrival
}

// isJobChild runs the child's side of a crash test (runJobChild) and
// reports true when this process is that child, so the test returns at
// once.
func isJobChild(t *testing.T) bool {
	if suite.ChildRole() != jobChildRole {
		return false
	}
	runJobChild(t)
	return true
}

// runJobChild runs the job of $FLK_SESSIONS_SPEC once, on a ManualClock
// that starts at $FLK_SESSIONS_START, reporting to $FLK_SESSIONS_REPORT (if
// set) and marking its steps (crashfs.MarkStep), and kills its own process
// where $FLK_SESSIONS_CRASH says (SIGKILL at a step), or has the kernel kill
// it in the first write past k bytes (tornWrite).
func runJobChild(t *testing.T) {
	var spec jobSpec
	if err := suite.ReadGob(os.Getenv(specEnv), &spec); err != nil {
		t.Fatalf("child: %v", err)
	}
	startNS, err := strconv.ParseInt(os.Getenv(startEnv), 10, 64)
	if err != nil {
		t.Fatalf("child: bad %s: %v", startEnv, err)
	}
	var crashStep Step
	crashAt := 0
	if c := os.Getenv(crashEnv); c != "" {
		step, k, _ := strings.Cut(c, " ")
		crashStep = Step(step)
		if crashAt, err = strconv.Atoi(k); err != nil || crashAt < 0 || crashAt == 0 && crashStep != tornWrite {
			t.Fatalf("child: bad %s=%q", crashEnv, c)
		}
	}
	if crashStep == tornWrite { // the kernel kills this run, not OnStep
		if os.Getenv(reportEnv) != "" {
			t.Fatalf("suite bug: the report would be the first file to grow past the limit")
		}
		if err := suite.CrashAtFileSize(int64(crashAt)); err != nil {
			t.Fatalf("child: %v", err)
		}
		crashStep = ""
	}
	line := func(format string, args ...any) {}
	if path := os.Getenv(reportEnv); path != "" {
		report, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatalf("child: open the report: %v", err)
		}
		line = func(format string, args ...any) {
			if _, err := report.WriteString(fmt.Sprintf(format, args...) + "\n"); err != nil {
				t.Fatalf("child: write the report: %v", err)
			}
		}
	}

	clock := kit.NewManualClock(spec.Epoch.Add(time.Duration(startNS)))
	since := func() int64 { return int64(clock.Now().Sub(spec.Epoch)) }
	cfg := capstoneConfig(os.Getenv(dirEnv), spec.Idle)
	reached := 0
	cfg.OnStep = func(step Step, id int64) {
		if step != StepWrite {
			crashfs.MarkStep(string(step), id)
		}
		line("%s %d %d", step, id, since())
		if step == crashStep {
			if reached++; reached == crashAt {
				line("kill")
				suite.KillSelf()
			}
		}
	}
	line("start %d", since())
	if err := RunSessionJob(cfg, spec.Arrivals, clock); err != nil {
		t.Fatalf("RunSessionJob = %v, want nil", err)
	}
	line("done %d", since())
}

// parseReport reads a child's report back into a jobRun.
func parseReport(data []byte) (jobRun, error) {
	var run jobRun
	started := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		ns := func(s string) time.Duration { v, _ := strconv.ParseInt(s, 10, 64); return time.Duration(v) }
		switch {
		case len(f) == 2 && f[0] == "start":
			run.start, run.end, started = ns(f[1]), ns(f[1]), true
		case len(f) == 2 && f[0] == "done":
			run.end = ns(f[1])
		case len(f) == 1 && f[0] == "kill":
			run.killed = true
		case len(f) == 3 && started:
			id, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return run, fmt.Errorf("report line %q: %v", sc.Text(), err)
			}
			run.steps = append(run.steps, stepAt{Step(f[0]), id, ns(f[2])})
			run.end = ns(f[2])
		default:
			return run, fmt.Errorf("report line %q is not one the child writes", sc.Text())
		}
	}
	if !started {
		return run, fmt.Errorf("the report has no start line (%d bytes)", len(data))
	}
	return run, nil
}

// tornWrite is the crash of a child that dies in the first write that grows
// a file past k bytes (suite.CrashAtFileSize), leaving that write torn. It
// is not a step of the protocol: the kernel kills the job wherever it
// writes too much. Such a child writes no report, which would be the first
// file to grow past the limit.
const tornWrite Step = "torn-write"

// writeJobSpec writes the job the children run, sc's arrivals with the
// idleness timeout idle, to a file and returns its path.
func writeJobSpec(t *testing.T, sc scenario, idle time.Duration) string {
	t.Helper()
	path := filepath.Join(suite.TempDir(t), "job.gob")
	suite.WriteGob(t, path, jobSpec{Epoch: jobEpoch(sc.from), Idle: idle, Arrivals: sc.arrivals})
	return path
}

// childEnv returns the environment of a child that runs the job of
// specFile on dir, its clock reading start (since the epoch) when it
// starts, to the end and without a report; add crashEnv and reportEnv to
// crash it and hear from it.
func childEnv(specFile, dir string, start time.Duration) []string {
	return []string{specEnv + "=" + specFile, dirEnv + "=" + dir, fmt.Sprintf("%s=%d", startEnv, int64(start))}
}

// crash is where a run of the job is killed, and when the next run starts.
type crash struct {
	step    Step
	k       int                                    // the k-th time this run (counted from its own start) reaches step
	restart func(kill time.Duration) time.Duration // the next run's start, from the kill time
}

// restartAfter is a restart down after the kill.
func restartAfter(down time.Duration) func(time.Duration) time.Duration {
	return func(kill time.Duration) time.Duration { return kill + down }
}

// restartOnPhase is a restart at least down after the kill, phase after an
// emission time (epoch + k·EmitInterval): the restarted job's first
// emission comes EmitInterval − phase after it starts. With phase below
// EmitInterval − IdleTimeout that first emission already has the silent
// partitions idle again, and closes what came due while the job was down;
// above, it comes too early, and the second one does.
func restartOnPhase(down, phase time.Duration) func(time.Duration) time.Duration {
	return func(kill time.Duration) time.Duration {
		r := kill + down
		return r + ((phase-r%capstoneEmit)+capstoneEmit)%capstoneEmit
	}
}

// crashedJob is one capstone job run as child processes in one Dir: killed
// at each crash of its plan and restarted, then run to the end.
type crashedJob struct {
	sc    scenario
	dir   string
	idle  time.Duration // the job's IdleTimeout
	runs  []jobRun
	story []string // what happened, run by run, for failure messages
}

// runCrashed runs the capstone job on sc with the given idleness timeout,
// in a new Dir, as a sequence of child processes: each killed at its crash
// of plan and restarted when it says, then one that runs to the end. It
// stops the test if a child was not killed where planned or the last one
// failed.
func runCrashed(t *testing.T, sc scenario, idle time.Duration, plan []crash) *crashedJob {
	t.Helper()
	cj := &crashedJob{sc: sc, dir: suite.TempDir(t), idle: idle}
	tmp := suite.TempDir(t)
	specFile := writeJobSpec(t, sc, idle)
	test := strings.SplitN(t.Name(), "/", 2)[0]
	start := time.Duration(0)
	for i := 0; i <= len(plan); i++ {
		report := filepath.Join(tmp, fmt.Sprintf("run%d.report", i+1))
		env := append(childEnv(specFile, cj.dir, start), reportEnv+"="+report)
		where := "no crash: run to the end"
		if i < len(plan) {
			env = append(env, fmt.Sprintf("%s=%s %d", crashEnv, plan[i].step, plan[i].k))
			where = fmt.Sprintf("to be killed at %s #%d", plan[i].step, plan[i].k)
		}
		out, err := suite.RunChild(test, jobChildRole, env...)
		data, _ := os.ReadFile(report)
		run, perr := parseReport(data)
		if perr != nil {
			t.Fatalf("run %d (%s, started at %s) %s, and its report cannot be read: %v\nso far:\n%s\nchild output:\n%s",
				i+1, where, fmtAt(sc.from, start), suite.DescribeExit(err), perr, cj.history(), out)
		}
		switch {
		case i < len(plan) && err == nil:
			t.Fatalf("run %d (started at %s) was %s, but it ran to the end reaching %s only %d times, so it was never\n"+
				"killed and this test proves nothing. The job reports stage 05's steps to OnStep: StepWrite after each sink\n"+
				"write and the four checkpoint steps at every checkpoint, one per emission. Does it resume from the latest\n"+
				"checkpoint (with the epoch it stored) and keep emitting every EmitInterval?\nso far:\n%s",
				i+1, fmtAt(sc.from, start), where, plan[i].step, run.count(plan[i].step), cj.history())
		case i < len(plan) && !suite.KilledBySIGKILL(err):
			t.Fatalf("run %d (started at %s) was %s, but the job failed first: the child %s.\nso far:\n%s\nchild output:\n%s",
				i+1, fmtAt(sc.from, start), where, suite.DescribeExit(err), cj.history(), out)
		case i == len(plan) && err != nil:
			t.Fatalf("run %d (restarted at %s, no crash) %s: a restart after a crash must recover from the latest completed\n"+
				"checkpoint and finish.\nso far:\n%s\nchild output:\n%s", i+1, fmtAt(sc.from, start), suite.DescribeExit(err), cj.history(), out)
		}
		cj.runs = append(cj.runs, run)
		if i == len(plan) {
			cj.story = append(cj.story, fmt.Sprintf("run %d: started at %s, ran to the end at %s", i+1, fmtAt(sc.from, start), fmtAt(sc.from, run.end)))
			break
		}
		next := plan[i].restart(run.end)
		last := run.steps[len(run.steps)-1]
		cj.story = append(cj.story, fmt.Sprintf("run %d: started at %s, killed with SIGKILL at %s #%d (checkpoint %d) at %s; down for %v",
			i+1, fmtAt(sc.from, start), last.step, plan[i].k, last.id, fmtAt(sc.from, run.end), next-run.end))
		start = next
	}
	t.Cleanup(func() {
		if !t.Failed() { // a failure message shows what happened already
			t.Logf("what happened:\n%s", cj.history())
		}
	})
	return cj
}

// view is what a picture of the crashed job draws from.
func (cj *crashedJob) view() jobView {
	return jobView{cj.sc, capstoneConfig(cj.dir, cj.idle), cj.runs}
}

// writesPicture draws, with pictures on, the crashed job about the key of
// the first result written with checkpoint id, when ReadCommitted shows
// it, and returns the line that links it, or "".
func (cj *crashedJob) writesPicture(t testing.TB, note string, id int64) string {
	committed, err := ReadCommitted(cj.dir)
	if err != nil {
		return ""
	}
	txns, problem := committedTxns(cj.runs, committed)
	i := slices.IndexFunc(txns, func(x txn) bool { return x.id == id && len(x.results) > 0 })
	if problem != "" || i < 0 {
		return ""
	}
	return cj.view().picture(t, note, committed, txns[i].results[0].Key)
}

// history renders the runs so far, one line each.
func (cj *crashedJob) history() string {
	if len(cj.story) == 0 {
		return "  (no run finished yet)"
	}
	return "  " + strings.Join(cj.story, "\n  ")
}

// checkExactlyOnce fails t unless the crashed job's committed changelog
// rebuilds to want, with no session's first result committed twice. It
// returns what was committed.
func (cj *crashedJob) checkExactlyOnce(t *testing.T, want []kit.Result) ([]kit.Result, bool) {
	t.Helper()
	if !checkCommitted(t, cj.view(), "after the crashes and a run to the end", want, crashWhy+"\n\nwhat happened:\n"+cj.history()) {
		return nil, false
	}
	rs, _ := ReadCommitted(cj.dir)
	return rs, true
}
