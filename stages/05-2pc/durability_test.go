//go:build lab || solution

package twophase

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/crashfs"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The tests in this file check what "durable" and "atomic" promise, for
// any layout of files under Dir. A torn write comes from a file size limit
// (RLIMIT_FSIZE): the kernel kills the job in the middle of the write that
// outgrows it. A reader polling mid-commit and a power loss come from a
// trace of the job's file system calls (strace), which internal/crashfs
// replays: one page of a write at a time for the reader, and keeping only
// what was fsynced for the power loss.

// TestJobSurvivesTornWrites certifies that a job killed in the middle of a write, its file left torn, in a transaction or a checkpoint, then restarted, commits exactly the output of an uninterrupted run.
//
// Each case gives the job's child process a file size limit chosen from the
// sizes of the files an uninterrupted run left in its Dir: the first write
// that grows a file past it writes up to the limit, and the kernel kills the
// process there (SIGXFSZ). A checkpoint written in place instead of through
// a temporary file and a rename is torn this way, and the restart cannot
// read it.
func TestJobSurvivesTornWrites(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	type tornCase struct {
		name  string
		spec  jobSpec
		o     oracle
		clean []kit.Result
		plan  []crashPoint
	}
	var cases []tornCase
	for i, spec := range tornSpecs(rnd) {
		o := newOracle(t, spec)
		clean, dir := runClean(t, spec, o)
		sizes := fileSizes(t, dir)
		smallest, largest := int(sizes[0]), int(sizes[len(sizes)-1])
		add := func(name string, plan ...crashPoint) {
			cases = append(cases, tornCase{fmt.Sprintf("job %d torn %s", i+1, name), spec, o, clean, plan})
		}
		// Between the two largest sizes only the largest file grows past
		// the limit, late in the run: the checkpoint.
		second := 0 // the largest size below the largest
		for _, n := range sizes {
			if int(n) < largest {
				second = int(n)
			}
		}
		add("near the end of its largest file", crashPoint{tornWrite, second + rnd.IntN(largest-second)})
		if i == 0 {
			add("at its first write", crashPoint{tornWrite, 0})
			add("in a small file", crashPoint{tornWrite, 1 + rnd.IntN(max(1, smallest-1))})
			continue
		}
		add("anywhere", crashPoint{tornWrite, rnd.IntN(largest)})
		// After a restart the job takes at least its final checkpoint
		// again, a file no smaller than the smallest: the limit is reached.
		c := 1 + rnd.IntN(o.checkpoints()-1)
		add(fmt.Sprintf("after a restart from checkpoint %d", c), crashPoint{StepStored, c}, crashPoint{tornWrite, rnd.IntN(smallest)})
	}
	if !suite.FileSizeCrashes {
		suite.SkipUnsupported(t, "needs Linux (a file size limit that kills the process mid-write); CI runs it")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			cr := runWithCrashes(t, c.spec, c.o, c.plan)
			cr.expectExactlyOnce(c.clean, "a crash can come in the middle of a write and leave the file torn: only its first bytes "+
				"are there. A torn transaction was never pre-committed, so recovery aborts it; a torn checkpoint must never be "+
				"the latest complete one, so write it to a temporary file, fsync it and rename it into place: a rename is atomic, "+
				"a write is not")
		})
	}
}

// TestReaderSeesOnlyWholeTransactions certifies that a reader calling ReadCommitted at any moment of a job's run, even in the middle of a write or a commit, sees the results of whole checkpoints only, in order, never fewer than before, none whose checkpoint is not stored, and each as soon as it is committed.
//
// The job runs once under strace; the test replays its file operations
// into a mirror directory one at a time, each write one page at a time (a
// reader may see any part of a write done), and calls ReadCommitted on the
// mirror after each. Transactions span several pages, so a commit that
// copies bytes instead of renaming shows half done.
func TestReaderSeesOnlyWholeTransactions(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	spec, o := pagesSpec(t, suite.Rand(t))
	runClean(t, spec, o)
	job := durabilityJob(t, spec, o)
	crashfs.CheckReaders(t, crashfs.RecordJob(t, job), job)
}

// TestPowerLossLosesNothingCommitted certifies that a power loss at any moment of a job's run, which keeps only what was fsynced (file data, and names once their folder is fsynced), loses no committed result, and that the job restarted on what is left commits exactly the output of an uninterrupted run.
//
// The job runs once under strace; for each of a seeded selection of
// moments (always right after checkpoints are stored and committed), the
// test builds what a power loss then leaves in a new directory, checks what
// ReadCommitted shows there and restarts the job on it in a child process.
// A failure lists what survived and why.
//
// A second job takes exactly ten checkpoints. A checkpoint deleted after a
// newer one is stored is gone for good only once its folder is fsynced, so
// a power loss right after the last one can leave checkpoints 9 and 10 side
// by side: the job must resume from 10, which comes before 9 as text.
func TestPowerLossLosesNothingCommitted(t *testing.T) {
	defer suite.Recover(t)
	if isJobChild(t) {
		return
	}
	rnd := suite.Rand(t)
	spec, o := pagesSpec(t, rnd)
	runClean(t, spec, o)
	job := durabilityJob(t, spec, o)
	crashfs.CheckPowerLoss(t, crashfs.RecordJob(t, job), job, rnd, 10)

	spec = tenCheckpointsSpec(rnd)
	o = newOracle(t, spec)
	if o.checkpoints() != 10 {
		t.Fatalf("suite bug: a job of %d events, a checkpoint every %d, takes %d checkpoints, not 10", len(spec.Source), spec.Every, o.checkpoints())
	}
	runClean(t, spec, o)
	job = durabilityJob(t, spec, o)
	crashfs.CheckPowerLoss(t, crashfs.RecordJob(t, job), job, rnd, 4)
}

// tenCheckpointsSpec returns a small job that takes exactly ten
// checkpoints: nine every Every events, and the final one, after Flush,
// for the events left over.
func tenCheckpointsSpec(r *rand.Rand) jobSpec {
	spec := randomSpec(r, Config{WindowSize: 100, WatermarkDelay: 40, AllowedLateness: 100}, 120, 8+r.IntN(4), 80)
	spec.Source = spec.Source[:9*spec.Every+1+r.IntN(spec.Every-1)]
	return spec
}

// tornSpecs returns the jobs of the torn-write test, one without allowed
// lateness and one with it: about ten checkpoints over wide windows, so that
// results are few while a checkpoint, which holds the ID of every event seen
// (the processor's dedup state), grows to outweigh every transaction.
func tornSpecs(r *rand.Rand) []jobSpec {
	return []jobSpec{
		unevenSpec(r, Config{WindowSize: 400, WatermarkDelay: 40}, 200, 22, 120),
		unevenSpec(r, Config{WindowSize: 400, WatermarkDelay: 30, AllowedLateness: 400}, 200, 22, 120),
	}
}

// pagesSpec returns a job, and its oracle, whose every transaction spans
// more than a page in any format (over a hundred results, each with a key
// of 26 bytes), and whose source length is not a multiple of its interval.
func pagesSpec(t *testing.T, r *rand.Rand) (jobSpec, oracle) {
	t.Helper()
	keys := make([]string, 300)
	for i := range keys {
		keys[i] = fmt.Sprintf("customer-%04d-europe-west", i)
	}
	for {
		n := 800 + r.IntN(200)
		evs := kit.RandomEvents(r, n, keys, 0, int64(n)*3)
		evs = kit.WithDuplicates(r, kit.BoundedShuffle(r, evs, 60), 0.05)
		spec := jobSpec{Processor: Config{WindowSize: 100, WatermarkDelay: 40, AllowedLateness: 100}, Every: 180 + r.IntN(40), Source: evs}
		if len(evs)%spec.Every == 0 {
			continue
		}
		o := newOracle(t, spec)
		if !slices.ContainsFunc(o.perCheckpoint, func(rs []kit.Result) bool { return len(rs) < 120 }) {
			return spec, o
		}
	}
}

// durabilityJob describes spec's job to crashfs: a child process of this
// test that runs it on a dir, with o as the reader's oracle.
func durabilityJob(t *testing.T, spec jobSpec, o oracle) crashfs.Job {
	env := writeSpec(t, spec)
	test := strings.SplitN(t.Name(), "/", 2)[0]
	return crashfs.Job{
		Command:     func(dir string) *exec.Cmd { return suite.ChildCommand(test, jobChildRole, env(dir)...) },
		Checkpoints: o.checkpoints(),
		Visible:     o.visible,
		Empty:       o.empty,
		Stored:      string(StepStored),
		Committed:   string(StepAfterCommit),
	}
}

// fileSizes returns the sizes of the non-empty regular files under dir,
// ascending, whatever the layout; it stops the test if there are none.
func fileSizes(t *testing.T, dir string) []int64 {
	t.Helper()
	sizes, err := suite.FileSizes(dir)
	if err != nil {
		t.Fatalf("an uninterrupted run's Dir: %v", err)
	}
	if len(sizes) == 0 {
		t.Fatalf("an uninterrupted run left no file in its Dir: where are its checkpoints and its output?")
	}
	return sizes
}
