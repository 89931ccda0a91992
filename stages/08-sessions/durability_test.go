//go:build lab || solution

package sessions

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/crashfs"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The tests in this file check what stage 05's "durable" and "atomic"
// promise for the sessions job, for any layout of files under Dir. A torn
// write comes from a file size limit (RLIMIT_FSIZE): the kernel kills the
// job in the middle of the write that outgrows it. A reader polling
// mid-commit and a power loss come from a trace of the job's file system
// calls: the job runs once under strace, as a child process that marks its
// protocol steps (see crash_helpers_test.go), and internal/crashfs replays
// what it did, one page of a write at a time for the reader, and keeping
// only what was fsynced for the power loss.

// TestSessionJobSurvivesTornWrites certifies that a sessions job killed in the middle of a write, its file left torn, in a checkpoint or a transaction, then restarted, commits a changelog that rebuilds to the batch oracle, with no session's first result committed twice.
//
// Each case gives the job's child process a file size limit: the first
// write that grows a file in Dir past it writes up to the limit, and the
// kernel kills the process there (SIGXFSZ). Until the first session closes
// the job writes no result, so a limit below the size its files reach by
// then tears what it stores at a checkpoint: a checkpoint written in place,
// instead of to a temporary file renamed into place, is torn this way, and
// the restart cannot read it. The restart comes ten minutes after the last
// arrival.
func TestSessionJobSurvivesTornWrites(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	rnd := suite.Rand(t)
	sc := durabilityScenario(rnd)
	want := batchSessions(sc.events(), capstoneGap)
	beforeResults, largest := fileSizes(t, sc, want)
	cases := []struct {
		name  string
		limit int64
	}{
		{"at its first write", 0},
		{"before the first session closes", 1 + rnd.Int64N(beforeResults-1)},
		{"anywhere", rnd.Int64N(largest)},
	}
	if !suite.FileSizeCrashes {
		suite.SkipUnsupported(t, "needs Linux (a file size limit that kills the process mid-write); CI runs it")
	}
	specFile := writeJobSpec(t, sc, capstoneIdle)
	test := t.Name()
	for _, c := range cases {
		t.Run(fmt.Sprintf("torn %s, past %d bytes", c.name, c.limit), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			dir := suite.TempDir(t)
			torn := fmt.Sprintf("%s=%s %d", crashEnv, tornWrite, c.limit)
			out, err := suite.RunChild(test, jobChildRole, append(childEnv(specFile, dir, 0), torn)...)
			switch {
			case err == nil:
				t.Fatalf("run 1 was to die in the first write that grew a file in Dir past %d bytes, but it ran to the end: an\n"+
					"uninterrupted run grew a file past it, so this run wrote other files.\nchild output:\n%s", c.limit, out)
			case !suite.DiedAtFileSize(err):
				t.Fatalf("run 1 was to die in the first write that grew a file in Dir past %d bytes, but the job failed first:\n"+
					"the child %s.\nchild output:\n%s", c.limit, suite.DescribeExit(err), out)
			}
			if out, err := suite.RunChild(test, jobChildRole, childEnv(specFile, dir, restartAt(sc))...); err != nil {
				t.Fatalf("run 2, restarted after run 1 died in a write past %d bytes and left it torn, failed: the child %s.\n%s\nchild output:\n%s",
					c.limit, suite.DescribeExit(err), tornWhy, out)
			}
			checkCommitted(t, jobView{sc: sc, cfg: capstoneConfig(dir, capstoneIdle)}, fmt.Sprintf("after a write torn past %d bytes and a restart", c.limit), want, tornWhy)
		})
	}
}

// TestSessionJobReaderSeesOnlyWholeCheckpoints certifies that a reader calling ReadCommitted at any moment of the sessions job's run, even in the middle of a write or a commit, sees the changelog of whole checkpoints only, in order, never less than before, none whose checkpoint is not stored, and each as soon as it is committed.
//
// The test replays the traced run's file operations into a mirror
// directory one at a time, each write one page at a time, and calls
// ReadCommitted on the mirror after each. Its answer must be what
// checkpoints 1..k of an uninterrupted run in this process committed, for
// some k.
func TestSessionJobReaderSeesOnlyWholeCheckpoints(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	job := durabilityJob(t, durabilityScenario(suite.Rand(t)))
	crashfs.CheckReaders(t, crashfs.RecordJob(t, job), job)
}

// TestSessionJobPowerLossLosesNothingCommitted certifies that a power loss at any moment of the sessions job's run, which keeps only what was fsynced (file data, and names once their folder is fsynced), loses no committed result, and that the job restarted on what is left commits exactly the changelog of an uninterrupted run.
//
// For each of a seeded selection of moments of the traced run (always
// right after checkpoints are stored and committed), the test builds what
// a power loss then leaves in a new directory, checks what ReadCommitted
// shows there and restarts the job on it in a child process, its clock ten
// minutes past the last arrival: the restart reads what is left at once,
// flushes and commits. A failure lists what survived and why.
func TestSessionJobPowerLossLosesNothingCommitted(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	t.Parallel() // its time goes to child processes and fsync: let the jobs of these tests wait together
	rnd := suite.Rand(t)
	job := durabilityJob(t, durabilityScenario(rnd))
	crashfs.CheckPowerLoss(t, crashfs.RecordJob(t, job), job, rnd, 10)
}

// durabilityScenario returns the short replay the durability tests trace:
// an hour from 01:30, about thirty checkpoints, EU falling quiet at 02:00,
// sessions closing from 02:00 on and the rest at the final Flush. Each
// power loss costs a restart, and a reader's check reads the output after
// every operation: tens of checkpoints, not hundreds.
func durabilityScenario(rnd *rand.Rand) scenario {
	return newScenario(rnd, 90*minute, 2*hour+30*minute, capstoneMaxDelay)
}

// durabilityJob runs sc's job without a crash in this process first, so
// that the test fails (rather than skips) where the job is wrong and strace
// is missing, and describes it to crashfs: a child process of this test
// that runs it on a dir, with the clean run's checkpoints as the reader's
// oracle.
func durabilityJob(t *testing.T, sc scenario) crashfs.Job {
	t.Helper()
	_, txns := cleanRun(t, sc, batchSessions(sc.events(), capstoneGap))
	for i, x := range txns {
		if x.id != int64(i+1) {
			t.Fatalf("an uninterrupted run stored checkpoint %d as its checkpoint number %d: a fresh job numbers its checkpoints\n"+
				"1, 2, 3, …, as stage 05's does, and a restarted one goes on after the id it restored", x.id, i+1)
		}
	}
	specFile := writeJobSpec(t, sc, capstoneIdle)
	test := strings.SplitN(t.Name(), "/", 2)[0]
	return crashfs.Job{
		Command: func(dir string) *exec.Cmd {
			// An empty dir is the traced run, or a power loss that left
			// nothing: a fresh start at the epoch. Anything else is what a
			// power loss left, and the power comes back at restartAt.
			start := time.Duration(0)
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
				start = restartAt(sc)
			}
			return suite.ChildCommand(test, jobChildRole, childEnv(specFile, dir, start)...)
		},
		Checkpoints: len(txns),
		Visible:     func(dir string) (int, error) { return visibleCheckpoints(dir, txns) },
		Empty:       func(c int) bool { return len(txns[c-1].results) == 0 },
		Stored:      string(StepStored),
		Committed:   string(StepAfterCommit),
	}
}

// tornWhy says what a torn write asks of the job.
const tornWhy = "A crash can come in the middle of a write and leave the file torn: only its first bytes are there. A restart\n" +
	"must never depend on a file that can be torn. A torn transaction was never pre-committed, so recovery aborts it;\n" +
	"a checkpoint is written to a temporary file, fsynced and renamed into place (a rename is atomic, a write is not),\n" +
	"and the previous one is kept until the new one is in place."

// fileSizes runs the job on sc without a crash in this process and
// returns, whatever the layout under Dir, the size of the largest file
// there at the last checkpoint stored before the first result is written,
// and at any checkpoint or at the end. It stops the test if the job's
// output is not want.
func fileSizes(t *testing.T, sc scenario, want []kit.Result) (beforeResults, largest int64) {
	t.Helper()
	cfg := capstoneConfig(suite.TempDir(t), capstoneIdle)
	written := false
	cfg.OnStep = func(step Step, _ int64) {
		switch {
		case step == StepWrite:
			written = true
		case step == StepStored && !written:
			beforeResults = largestFile(t, cfg.Dir)
		case step == StepStored:
			largest = max(largest, largestFile(t, cfg.Dir))
		}
	}
	if err := RunSessionJob(cfg, sc.arrivals, kit.NewManualClock(jobEpoch(sc.from))); err != nil {
		t.Fatalf("RunSessionJob without a crash = %v, want nil", err)
	}
	if !checkCommitted(t, jobView{sc: sc, cfg: cfg}, "without a crash", want, cleanWhy+"\nFix TestQuietPartitionSessionJobMeetsLatencyBudget first.") {
		t.FailNow()
	}
	if beforeResults < 2 {
		t.Fatalf("the job stored no checkpoint with a file of 2 bytes or more before the first session closed (at 02:00 or later,\n"+
			"%v after the first events): it checkpoints at every emission, every %v, with the session processor's snapshot", capstoneGap, capstoneEmit)
	}
	return beforeResults, max(largest, beforeResults, largestFile(t, cfg.Dir))
}

// largestFile returns the size of the largest regular file under dir.
func largestFile(t *testing.T, dir string) int64 {
	t.Helper()
	sizes, err := suite.FileSizes(dir)
	if err != nil {
		t.Fatalf("the job's Dir: %v", err)
	}
	if len(sizes) == 0 {
		return 0
	}
	return sizes[len(sizes)-1]
}

// restartAt is when a durability test restarts the job on what a crash or
// a power loss left: ten minutes after sc's last arrival, later than any
// moment of the run, so that the restarted job reads what is left at once,
// flushes and commits.
func restartAt(sc scenario) time.Duration { return sc.arrivals[len(sc.arrivals)-1].At + 10*time.Minute }

// visibleCheckpoints returns k when ReadCommitted(dir) is exactly the
// changelog that checkpoints 1..k of txns, an uninterrupted run, committed
// (the largest such k: checkpoints that commit nothing make several fit),
// or an error that says what it returned instead. The changelog is
// cumulative, so a reader's view is a prefix of the transactions.
func visibleCheckpoints(dir string, txns []txn) (int, error) {
	got, err := ReadCommitted(dir)
	if err != nil {
		return 0, fmt.Errorf("ReadCommitted = %v", err)
	}
	per := make([][]kit.Result, len(txns))
	for i, tx := range txns {
		per[i] = tx.results
	}
	k, err := windowtest.WholeCheckpoints(got, per)
	if err != nil {
		return 0, fmt.Errorf("ReadCommitted returned %w", err)
	}
	return k, nil
}
