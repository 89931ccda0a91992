package crashfs

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// Job is a job under test as the durability checks drive it: any job that
// publishes its output per checkpoint, checkpoints numbered 1, 2, … in an
// uninterrupted run, through a protocol with a step at which checkpoint n
// is stored (complete) and a later one at which its output is committed.
// Stage 05's job and stage 08's sessions job are two.
type Job struct {
	// Command returns a command, not started, that runs the job on dir to
	// the end: a child process of the test (suite.ChildCommand) that calls
	// MarkStep at each step of each checkpoint.
	Command func(dir string) *exec.Cmd
	// Checkpoints is the number of checkpoints of an uninterrupted run.
	Checkpoints int
	// Visible returns k when a reader of dir sees exactly the output of
	// checkpoints 1..k (the stage's ReadCommitted, compared with the
	// output of an uninterrupted run), the largest such k if checkpoints
	// without output make several fit, or an error that says what the
	// reader saw instead. It is called from parallel subtests.
	Visible func(dir string) (int, error)
	// Empty reports whether checkpoint c has no output, so that seeing
	// 1..c is seeing 1..c-1; nil means that every checkpoint has output.
	Empty func(c int) bool
	// Stored and Committed are the names of the steps (MarkStep's step)
	// right after checkpoint n is stored and right after its output is
	// committed.
	Stored, Committed string
}

// noOutput reports whether checkpoints from..to all have no output.
func (job Job) noOutput(from, to int) bool {
	for c := from; c <= to; c++ {
		if job.Empty == nil || !job.Empty(c) {
			return false
		}
	}
	return true
}

// RecordJob runs job once, uninterrupted, under strace on a new, empty
// directory and returns the trace, after checking that the child marked the
// Stored and Committed steps of every checkpoint in order. It skips t where
// strace cannot run ("needs strace (Linux); CI runs it"), so call it after
// the checks that need no strace: a stage's tests must fail on an untouched
// skeleton, not skip.
func RecordJob(t *testing.T, job Job) *Trace {
	t.Helper()
	dir := suite.TempDir(t)
	tr, out, err := Record(job.Command(dir), dir)
	if errors.Is(err, ErrNoStrace) {
		suite.SkipUnsupported(t, err.Error())
	}
	if err != nil {
		t.Fatalf("the job's uninterrupted run under strace: %v\nchild output:\n%s", err, out)
	}
	var got, want []string
	for _, op := range tr.Ops {
		if op.Kind == Mark && (op.Step == job.Stored || op.Step == job.Committed) {
			got = append(got, stepName(op.Step, op.ID))
		}
	}
	for c := 1; c <= job.Checkpoints; c++ {
		want = append(want, stepName(job.Stored, int64(c)), stepName(job.Committed, int64(c)))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the traced run marked the steps %v, want %v: an uninterrupted run takes checkpoints 1..%d, "+
			"each through its steps in order (see TestJobFollowsCheckpointProtocol)", got, want, job.Checkpoints)
	}
	return tr
}

// CheckReaders replays tr into a mirror directory and, after every change
// a reader could see (every page of every write, every name created, moved
// or removed), reads it with job.Visible, as a consumer polling the output
// would. The reader must only ever see the output of whole checkpoints
// 1..k: k never decreasing, never past the last checkpoint stored, and from
// the Committed step of checkpoint c on, at least c. It fails t at the
// first moment that breaks this, with the operations that led there.
func CheckReaders(t *testing.T, tr *Trace, job Job) {
	t.Helper()
	mirror := suite.TempDir(t)
	var seen, stored int
	h := history{tr: tr}
	fail := func(what, why string) error {
		return fmt.Errorf("%s\n%s\n\nthe job's operations on its Dir up to that moment (by op number):\n%s", what, why, &h)
	}
	err := tr.ReplayLive(mirror, func(i int, op Op) error {
		h.add(i, op)
		switch {
		case op.Kind == Mark && op.Step == job.Stored:
			stored = int(op.ID)
		case op.Kind == Mark && op.Step == job.Committed && seen < int(op.ID):
			return fail(fmt.Sprintf("at step %s a reader sees the output of checkpoints 1..%d only.", stepName(op.Step, op.ID), seen),
				fmt.Sprintf("Once checkpoint %d is committed its output must be visible: the commit is what publishes it.", op.ID))
		}
		if !op.mutates() {
			return nil
		}
		k, err := job.Visible(mirror)
		switch {
		case err != nil:
			return fail(fmt.Sprintf("a reader at %s saw something that is not the output of whole checkpoints: %v", h.now(), err),
				"A reader may read at any moment, also in the middle of a commit: it must see each checkpoint's output whole or not at all.\n"+
					"A rename is atomic for readers; writing or copying bytes into a file that readers read is not: a reader sees\n"+
					"the first pages before the last ones are written (the replay shows a write to a reader one page at a time).")
		case k < seen:
			return fail(fmt.Sprintf("a reader at %s sees the output of checkpoints 1..%d, after it had seen 1..%d.", h.now(), k, seen),
				"What a reader has seen committed must stay visible: a consumer may have acted on it already.")
		case k > stored && !job.noOutput(stored+1, k):
			return fail(fmt.Sprintf("a reader at %s sees the output of checkpoints 1..%d, but checkpoint %d is not stored yet.", h.now(), k, k),
				"Output may become visible only once its checkpoint is stored (complete): a crash before that restarts from an\n"+
					"earlier checkpoint and produces that output again, so a reader who saw it would see it twice.")
		}
		seen = k
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// CheckPowerLoss simulates a power loss at up to n moments of tr (see
// chooseCuts). For each, in a parallel subtest, it writes what survives
// into a new directory (see Trace.PowerLoss) and checks that
//
//   - a reader sees every checkpoint whose output was committed before the
//     power loss: nothing committed is lost, since a consumer may already
//     have read it;
//   - the job, restarted there (job.Command), finishes with exactly the
//     output of an uninterrupted run.
//
// A failure shows what survived and why, and the operations that led there.
func CheckPowerLoss(t *testing.T, tr *Trace, job Job, rnd *rand.Rand, n int) {
	t.Helper()
	for _, cut := range chooseCuts(tr, job, rnd, n) {
		pl := powerLoss{cut: cut, dir: suite.TempDir(t)}
		h := history{tr: tr}
		for i, op := range tr.Ops[:cut] {
			h.add(i, op)
			if op.Kind == Mark && op.Step == job.Committed {
				pl.committed = int(op.ID)
			}
		}
		report, err := tr.PowerLoss(cut, pl.dir)
		if err != nil {
			t.Fatalf("suite bug: %v", err)
		}
		pl.where = "at the end of the run"
		if cut < len(tr.Ops) {
			pl.where = fmt.Sprintf("right before op %d (%v)", cut, tr.Ops[cut])
		}
		if h.step != "" {
			pl.where += ", after step " + h.step
		}
		pl.story = fmt.Sprintf("what survived the power loss (only what was fsynced):\n%s\n"+
			"the job's operations on its Dir up to the power loss (by op number):\n%s", report, &h)
		t.Run(fmt.Sprintf("power loss at op %d of %d", cut, len(tr.Ops)), func(t *testing.T) {
			defer suite.Recover(t)
			t.Parallel()
			pl.check(t, job)
		})
	}
}

// chooseCuts returns up to n of tr.Cuts(), ascending, chosen with rnd but
// always including those right after checkpoint 1, the last checkpoint and
// one checkpoint between are stored, and right after each is committed:
// the moments a missing fsync shows most.
func chooseCuts(tr *Trace, job Job, rnd *rand.Rand, n int) []int {
	cuts := tr.Cuts()
	marked := []int{1, job.Checkpoints}
	if job.Checkpoints > 2 {
		marked = append(marked, 2+rnd.IntN(job.Checkpoints-2))
	}
	chosen := map[int]bool{}
	for i, op := range tr.Ops {
		if op.Kind == Mark && slices.Contains(marked, int(op.ID)) && (op.Step == job.Stored || op.Step == job.Committed) {
			// The next cut is the last moment that leaves the same files
			// as a power loss right after the step.
			j, _ := slices.BinarySearch(cuts, i+1)
			chosen[cuts[j]] = true
		}
	}
	others := slices.DeleteFunc(slices.Clone(cuts), func(c int) bool { return chosen[c] })
	rnd.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for _, c := range others {
		if len(chosen) >= n {
			break
		}
		chosen[c] = true
	}
	return slices.Sorted(maps.Keys(chosen))
}

// powerLoss is one moment CheckPowerLoss checks.
type powerLoss struct {
	cut       int    // the power fails right before tr.Ops[cut]
	dir       string // what survived
	committed int    // the last checkpoint committed before it
	where     string // the moment, for a message
	story     string // what survived and the operations before, for a message
}

// check checks what survived the power loss, then restarts the job on it.
func (pl powerLoss) check(t *testing.T, job Job) {
	t.Helper()
	k, err := job.Visible(pl.dir)
	switch {
	case err != nil:
		t.Fatalf("after a power loss %s, a reader saw something that is not the output of whole checkpoints: %v\n\n%s", pl.where, err, pl.story)
	case k < pl.committed:
		t.Fatalf("after a power loss %s, a reader sees the output of checkpoints 1..%d, but checkpoint %d was committed before it.\n"+
			"Once a commit returns, a consumer may read the output and act on it: a power loss must not take it back.\n"+
			"Durable means fsynced: a file's data, and the folder holding its name after a create or rename (a new folder\n"+
			"is a name in its parent too).\n\n%s", pl.where, k, pl.committed, pl.story)
	}
	out, err := job.Command(pl.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("after a power loss %s, the job restarted on what survived failed (%v): a restart must recover from any\n"+
			"state a power loss leaves, which is only what was fsynced.\n\n%s\nchild output:\n%s", pl.where, err, pl.story, out)
	}
	k, err = job.Visible(pl.dir)
	if err == nil && k != job.Checkpoints {
		err = fmt.Errorf("it shows the output of checkpoints 1..%d only, of %d", k, job.Checkpoints)
	}
	if err != nil {
		t.Fatalf("after a power loss %s and a restart of the job on what survived, the output is not the uninterrupted run's: %v\n"+
			"A restart must recover from any state a power loss leaves, which is only what was fsynced: the latest checkpoint\n"+
			"that survived, and the transactions it lists.\n\n%s", pl.where, err, pl.story)
	}
}

// history keeps the last operations of a replay, and its last step, for a
// failure message.
type history struct {
	tr    *Trace
	lines []string
	step  string // the last step marked, "" before any
	last  int    // the index of the last op
	piece string // how much of a write the last op is
}

// add records op, the i-th of the trace (a piece of it, for a write).
func (h *history) add(i int, op Op) {
	if op.Kind == Mark {
		h.step = stepName(op.Step, op.ID)
	}
	whole := h.tr.Ops[i]
	h.last, h.piece = i, ""
	if op.Kind == Write && len(op.Data) < len(whole.Data) {
		h.piece = fmt.Sprintf(" (page %d of %d of this write)", (op.Off-whole.Off)/PageSize+1, len(pages(whole)))
	}
	line := fmt.Sprintf("  #%-4d %s%s", i, op, h.piece)
	if n := len(h.lines); n > 0 && strings.HasPrefix(h.lines[n-1], fmt.Sprintf("  #%-4d ", i)) {
		h.lines[n-1] = line // the next page of the same write
		return
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > 10 {
		h.lines = h.lines[1:]
	}
}

// now says where the replay is, for a message.
func (h *history) now() string {
	s := fmt.Sprintf("op %d of %d%s", h.last, len(h.tr.Ops), h.piece)
	if h.step != "" {
		s += ", after step " + h.step
	}
	return s
}

func (h *history) String() string { return strings.Join(h.lines, "\n") }
