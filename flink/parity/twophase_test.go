//go:build flink

package parity

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// TestTwoPhaseCommitMatchesFlink checks stage 05's TwoPhaseCommitSink
// against Flink's Sink V2 machinery (SinkWriterOperator and
// CommitterOperator, on a sink whose writer pre-commits one transaction per
// checkpoint and whose committer is idempotent): after every call, what a
// reader sees committed, in order, and which checkpoints' transactions wait
// for their commit. The random histories write results, take checkpoints,
// complete some of them (the others never do), deliver completion notices
// late, twice, out of order or never (a later one subsumes them), and crash,
// restoring from the latest completed checkpoint: before and after its
// notice, with a transaction pre-committed for a checkpoint that never
// completed, and with writes in the open transaction.
//
// Each side is driven the way it runs: the course's sink as stage 05's
// RunJob drives it (PreCommit at a checkpoint, which stores Pending() with
// it; Commit of each of those ids on its completion notice; after a crash,
// Abort, then RecoverTwoPhaseCommitSink with the latest stored checkpoint's
// list, and the next id after its own), Flink's operators as a task and the
// JobManager do. A restarted course job reuses the ids of checkpoints
// that never completed and Flink never reuses one (docs/PARITY.md, row 14),
// so the pending transactions are compared by the checkpoint call that
// pre-committed them, not by id.
func TestTwoPhaseCommitMatchesFlink(t *testing.T) {
	base := suite.TempDir(t)
	var seen twoPhaseCoverage
	check(t, "stage 05, two-phase commit", func(r *seeded) differential[twoPhaseOp] {
		return twoPhaseCase{ops: twoPhaseScenario(r), base: base, seen: &seen}
	})
	t.Logf("covered: %v", seen)
	if *scenarios >= 100 {
		seen.atLeast(t, *scenarios/20)
	}
}

// A twoPhaseOp is one call of a two-phase-commit history. A checkpoint is
// named by its tag, which is its id in Flink: tags increase along a
// history and are never reused, as Flink's checkpoint ids are not. The
// course's id for the same checkpoint is whatever its job would give it.
type twoPhaseOp struct {
	kind   string     // "write", "checkpoint", "complete", "notify" or "crash"
	result kit.Result // write's
	tag    int64      // checkpoint's, complete's, notify's
}

func (o twoPhaseOp) String() string {
	switch o.kind {
	case "write":
		return fmt.Sprintf("Write(%v)", o.result)
	case "checkpoint":
		return fmt.Sprintf("checkpoint #%d taken: PreCommit", o.tag)
	case "complete":
		return fmt.Sprintf("checkpoint #%d complete: stored, no notice yet", o.tag)
	case "notify":
		return fmt.Sprintf("notice: checkpoint #%d complete", o.tag)
	}
	return "crash, and restart from the latest completed checkpoint"
}

// valid returns the calls of ops a history can make, in order: a
// checkpoint completes only in the attempt that took it, after none later
// than it did (a completed checkpoint subsumes the earlier ones, which can
// no longer complete), and a notice comes only for a checkpoint completed
// in the same attempt. A shrunk history drops calls; valid drops those that
// lost their meaning with them.
func valid(ops []twoPhaseOp) []twoPhaseOp {
	taken, completed := map[int64]bool{}, map[int64]bool{}
	var out []twoPhaseOp
	for _, o := range ops {
		switch o.kind {
		case "checkpoint":
			taken[o.tag] = true
		case "complete":
			if !taken[o.tag] {
				continue
			}
			for t := range taken {
				if t <= o.tag {
					delete(taken, t)
				}
			}
			completed[o.tag] = true
		case "notify":
			if !completed[o.tag] {
				continue
			}
		case "crash":
			clear(taken)
			clear(completed)
		}
		out = append(out, o)
	}
	return out
}

// A twoPhaseCase is one random history of stage 05's sink.
type twoPhaseCase struct {
	ops  []twoPhaseOp
	base string // where each run's sink folder is made
	// seen, when set, counts what the histories Flink agreed on covered.
	seen *twoPhaseCoverage
}

func (c twoPhaseCase) describe() string    { return "TwoPhaseCommitSink" }
func (c twoPhaseCase) calls() []twoPhaseOp { return c.ops }
func (c twoPhaseCase) with(ops []twoPhaseOp) differential[twoPhaseOp] {
	c.ops = valid(ops)
	return c
}

func (c twoPhaseCase) compare(t *testing.T) (int, func() string, error) {
	dir, err := os.MkdirTemp(c.base, "sink-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	course := c.replay(dir)
	fl, err := flink.RunTwoPhase(flinkTwoPhaseOps(c.ops))
	if err != nil {
		return 0, nil, err
	}
	visible := flinkVisible(fl)
	at := twoPhaseDiffers(course, fl, visible)
	if at < 0 && c.seen != nil {
		c.seen.add(c.ops, course, fl)
	}
	return at, func() string { return twoPhaseSideBySide(c.ops, course, fl, visible) }, nil
}

// A twoPhaseStep is the course's sink after one call.
type twoPhaseStep struct {
	committed []kit.Result // ReadCommitted(dir)
	pending   []int64      // Pending(), as the tags of the checkpoints that pre-committed them
	ids       []int64      // Pending() itself: the course's ids
	id        int64        // a checkpoint call's course id
	restored  int64        // a crash's: the tag of the checkpoint restored, 0 for none
	err       error
}

// replay makes the calls on the course's sink in dir, as RunJob would: a
// checkpoint is PreCommit(next id), which stores Pending() with it; a
// completed checkpoint is the latest stored one; its notice commits each id
// it stored; a crash aborts the open transaction, abandons the sink and
// recovers it from the latest stored checkpoint, whose id + 1 is the next
// (1 with none).
func (c twoPhaseCase) replay(dir string) []twoPhaseStep {
	type checkpoint struct {
		tag, id int64
		pending []int64
	}
	steps := make([]twoPhaseStep, len(c.ops))
	sink, err := solutions.RecoverTwoPhaseCommitSink(dir, nil) // RunJob's fresh start
	nextID := int64(1)
	taken := map[int64]checkpoint{} // by tag: this attempt's checkpoints
	var stored *checkpoint          // the latest stored checkpoint
	tagOf := map[int64]int64{}      // a course id's tag: the checkpoint that last pre-committed it
	for i, o := range c.ops {
		s := &steps[i]
		if err != nil {
			s.err = err
			continue
		}
		switch o.kind {
		case "write":
			err = sink.Write(o.result)
		case "checkpoint":
			s.id = nextID
			if err = sink.PreCommit(nextID); err == nil {
				tagOf[nextID] = o.tag
				taken[o.tag] = checkpoint{o.tag, nextID, sink.Pending()}
				nextID++
			}
		case "complete":
			k := taken[o.tag]
			s.id, stored = k.id, &k
		case "notify":
			k := taken[o.tag]
			s.id = k.id
			for _, p := range k.pending {
				if p > k.id {
					break
				}
				if err = sink.Commit(p); err != nil {
					break
				}
			}
		case "crash":
			// Flink closes the crashed writer, which drops its open
			// transaction: Abort, which must touch nothing pre-committed.
			if err = sink.Abort(); err != nil {
				break
			}
			var pending []int64
			nextID = 1
			if stored != nil {
				pending, nextID, s.restored = stored.pending, stored.id+1, stored.tag
			}
			sink, err = solutions.RecoverTwoPhaseCommitSink(dir, pending)
			clear(taken)
		}
		if err != nil {
			s.err = fmt.Errorf("%v: %w", o, err)
			continue
		}
		if s.committed, err = solutions.ReadCommitted(dir); err != nil {
			s.err = err
			continue
		}
		s.ids = sink.Pending()
		for _, id := range s.ids {
			s.pending = append(s.pending, tagOf[id])
		}
	}
	return steps
}

// flinkTwoPhaseOps says the calls in Flink's terms: a checkpoint's tag is
// its id.
func flinkTwoPhaseOps(ops []twoPhaseOp) []flinkrun.TwoPhaseOp {
	out := make([]flinkrun.TwoPhaseOp, len(ops))
	for i, o := range ops {
		switch o.kind {
		case "write":
			r := o.result
			out[i] = flinkrun.WriteOp(flinkrun.Result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, Update: r.IsUpdate})
		case "checkpoint":
			out[i] = flinkrun.CheckpointOp(o.tag)
		case "complete":
			out[i] = flinkrun.CompleteOp(o.tag)
		case "notify":
			out[i] = flinkrun.NotifyOp(o.tag)
		default:
			out[i] = flinkrun.CrashOp()
		}
	}
	return out
}

// flinkVisible returns what a reader of Flink's external system sees after
// each step: every result committed so far, in commit order.
func flinkVisible(fl []flinkrun.TwoPhaseStep) [][]kit.Result {
	out := make([][]kit.Result, len(fl))
	var seen []kit.Result
	for i, s := range fl {
		for _, r := range s.Committed {
			seen = append(seen, courseResult(r))
		}
		out[i] = slices.Clone(seen)
	}
	return out
}

// twoPhaseDiffers returns the first call after which the course and Flink
// differ, or −1: what a reader sees committed (ReadCommitted, in checkpoint
// order; Flink's external system, in commit order), the checkpoints whose
// transactions are pending, and the checkpoint a crash restored. A commit
// Flink's committer found neither prepared nor committed is a difference
// too: the course's would be an error.
func twoPhaseDiffers(course []twoPhaseStep, fl []flinkrun.TwoPhaseStep, visible [][]kit.Result) int {
	for i := range course {
		if course[i].err != nil || fl[i].Failed != 0 ||
			!slices.Equal(course[i].committed, visible[i]) ||
			!slices.Equal(course[i].pending, fl[i].Pending) ||
			course[i].restored != fl[i].Restored {
			return i
		}
	}
	return -1
}

// twoPhaseSideBySide renders both sides call by call: what became visible
// on the call (or all that is visible, if it is no longer what was), and
// the pending checkpoints.
func twoPhaseSideBySide(ops []twoPhaseOp, course []twoPhaseStep, fl []flinkrun.TwoPhaseStep, visible [][]kit.Result) string {
	calls := make([]string, len(ops))
	cl, fll := lane{name: "course"}, lane{name: "Flink"}
	var courseBefore, flinkBefore []kit.Result
	for i, o := range ops {
		calls[i] = o.String()
		c := course[i]
		line := fmtVisible(courseBefore, c.committed) + "   pending " + fmtTags(c.pending)
		if len(c.ids) > 0 {
			line += fmt.Sprintf(" (ids %v)", c.ids)
		}
		if c.id != 0 {
			line += fmt.Sprintf("   the course's id %d", c.id)
		}
		if o.kind == "crash" {
			line += "   restored " + fmtRestored(c.restored)
		}
		if c.err != nil {
			line += "   error: " + c.err.Error()
		}
		cl.lines = append(cl.lines, line)
		courseBefore = c.committed

		f := fl[i]
		line = fmtVisible(flinkBefore, visible[i]) + "   pending " + fmtTags(f.Pending)
		if f.AlreadyCommitted > 0 {
			line += fmt.Sprintf("   %d re-commits (signalAlreadyCommitted)", f.AlreadyCommitted)
		}
		if f.Failed > 0 {
			line += fmt.Sprintf("   %d commits of transactions neither prepared nor committed", f.Failed)
		}
		if o.kind == "crash" {
			line += "   restored " + fmtRestored(f.Restored)
		}
		fll.lines = append(fll.lines, line)
		flinkBefore = visible[i]
	}
	marks := func(i int) bool { return twoPhaseDiffers(course[i:i+1], fl[i:i+1], visible[i:i+1]) >= 0 }
	return showCalls(calls, marks, cl, fll)
}

// fmtVisible renders what a reader sees after a call, given what it saw
// before: the results that appeared, or the whole of it when it is not
// what it saw with more at the end.
func fmtVisible(before, after []kit.Result) string {
	if len(after) >= len(before) && slices.Equal(before, after[:len(before)]) {
		if len(after) == len(before) {
			return fmt.Sprintf("visible: %d results, none new", len(after))
		}
		return fmt.Sprintf("visible: %d results, new %s", len(after), fmtResults(after[len(before):]))
	}
	return fmt.Sprintf("visible now, not what was: %s", fmtResults(after))
}

// fmtTags renders checkpoint tags.
func fmtTags(tags []int64) string {
	if len(tags) == 0 {
		return "none"
	}
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = fmt.Sprintf("#%d", t)
	}
	return strings.Join(parts, " ")
}

func fmtRestored(tag int64) string {
	if tag == 0 {
		return "nothing (no checkpoint had completed)"
	}
	return fmt.Sprintf("checkpoint #%d", tag)
}

// twoPhaseScenario makes a random history of up to 60 calls: writes of
// random results (valid UTF-8 keys, awkward ones too), checkpoints, some of
// which complete (mostly the latest taken, now and then an earlier one,
// subsuming none or the ones before it), notices (mostly of the latest
// completed checkpoint, now and then of an earlier one: late; none at all
// for some: lost), and crashes.
func twoPhaseScenario(r *seeded) []twoPhaseOp {
	keys := r.keys()
	var ops []twoPhaseOp
	var tag int64
	var taken, completed []int64 // this attempt's, ascending; taken: not subsumed
	for range 1 + r.IntN(60) {
		switch x := r.IntN(100); {
		case x < 40:
			start := r.Int64N(200) - 100
			ops = append(ops, twoPhaseOp{kind: "write", result: kit.Result{
				Key: keys[r.IntN(len(keys))], Start: start, End: start + 1 + r.Int64N(60),
				Count: 1 + r.Int64N(5), Sum: r.Int64N(200) - 100, IsUpdate: r.IntN(4) == 0,
			}})
		case x < 58:
			tag++
			taken = append(taken, tag)
			ops = append(ops, twoPhaseOp{kind: "checkpoint", tag: tag})
		case x < 72 && len(taken) > 0:
			i := len(taken) - 1
			if r.IntN(3) == 0 {
				i = r.IntN(len(taken))
			}
			t := taken[i]
			taken = taken[i+1:]
			completed = append(completed, t)
			ops = append(ops, twoPhaseOp{kind: "complete", tag: t})
		case x < 90 && len(completed) > 0:
			t := completed[len(completed)-1]
			if r.IntN(3) == 0 {
				t = completed[r.IntN(len(completed))]
			}
			ops = append(ops, twoPhaseOp{kind: "notify", tag: t})
		case x >= 92:
			taken, completed = nil, nil
			ops = append(ops, twoPhaseOp{kind: "crash"})
		}
	}
	return ops
}

// twoPhaseCoverage counts the histories (that agreed) in which something
// worth comparing happened, so that a generator that stops making it fails
// the test rather than passing it emptily.
type twoPhaseCoverage struct {
	subsumed     int // a notice committed an earlier checkpoint's transaction too
	lateNotice   int // a notice came after a later checkpoint's completion
	recovered    int // a restart published a transaction whose notice never came
	recommitted  int // a restart committed a transaction committed already (idempotent)
	openDropped  int // a crash dropped writes of the open transaction
	strayDropped int // a crash left a transaction of a checkpoint that never completed
	idReused     int // the restarted course job reused the id of a checkpoint that never completed
}

// String says what the histories covered, for the test's log.
func (c twoPhaseCoverage) String() string {
	return fmt.Sprintf("%d histories with a notice that committed earlier checkpoints too, %d with a late notice, "+
		"%d where a restart published a transaction whose notice never came, %d where it re-committed one, "+
		"%d where a crash dropped the open transaction's writes, %d where it left a pre-committed transaction of a "+
		"checkpoint that never completed, %d where the course reused its id", c.subsumed, c.lateNotice, c.recovered,
		c.recommitted, c.openDropped, c.strayDropped, c.idReused)
}

// add counts what a history, whose steps on both sides are course and fl,
// covered.
func (cov *twoPhaseCoverage) add(ops []twoPhaseOp, course []twoPhaseStep, fl []flinkrun.TwoPhaseStep) {
	var subsumed, late, recovered, recommitted, open, stray, reused bool
	var pendingBefore []int64
	var maxCompleted, lastTaken int64 // in this attempt
	written := false                  // since the last checkpoint
	for i, o := range ops {
		switch o.kind {
		case "write":
			written = true
		case "checkpoint":
			written, lastTaken = false, o.tag
			reused = reused || course[i].id != o.tag
		case "complete":
			maxCompleted = max(maxCompleted, o.tag)
		case "notify":
			late = late || o.tag < maxCompleted
			for _, p := range pendingBefore {
				subsumed = subsumed || p < o.tag && !slices.Contains(fl[i].Pending, p)
			}
		case "crash":
			recovered = recovered || len(fl[i].Committed) > 0
			recommitted = recommitted || fl[i].AlreadyCommitted > 0
			open, stray = open || written, stray || lastTaken > maxCompleted
			written, lastTaken, maxCompleted = false, 0, 0
		}
		pendingBefore = fl[i].Pending
	}
	for _, f := range []struct {
		hit bool
		n   *int
	}{{subsumed, &cov.subsumed}, {late, &cov.lateNotice}, {recovered, &cov.recovered}, {recommitted, &cov.recommitted},
		{open, &cov.openDropped}, {stray, &cov.strayDropped}, {reused, &cov.idReused}} {
		if f.hit {
			*f.n++
		}
	}
}

// atLeast fails t if some kind of history was made fewer than n times.
func (cov twoPhaseCoverage) atLeast(t *testing.T, n int) {
	t.Helper()
	if min(cov.subsumed, cov.lateNotice, cov.recovered, cov.recommitted, cov.openDropped, cov.strayDropped, cov.idReused) < n {
		t.Errorf("test bug: the generator covers too little (want at least %d of each): %v", n, cov)
	}
}
