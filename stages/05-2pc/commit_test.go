//go:build lab || solution

package twophase

import (
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestNothingVisibleBeforeCommit certifies that written results stay invisible to ReadCommitted after Write and after PreCommit, and become visible exactly once at Commit.
func TestNothingVisibleBeforeCommit(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	first, second := randomResults(rnd, 5+rnd.IntN(10)), randomResults(rnd, 3+rnd.IntN(10))
	s := newSink(t, dir)

	write(t, s, first)
	expectCommitted(t, dir, "after Write, before PreCommit", nil,
		"written results belong to the open transaction: a reader must not see them before their checkpoint\n"+
			"completes, because a crash now would replay the source and write them again (duplicates downstream)")
	preCommit(t, s, 1)
	expectCommitted(t, dir, "after PreCommit(1), before Commit(1)", nil,
		"PreCommit makes the transaction durable, not visible: checkpoint 1 is not complete yet, and if it never\n"+
			"completes, recovery discards this transaction and the replay produces its results again")
	write(t, s, second)
	expectCommitted(t, dir, "after PreCommit(1) and more writes", nil,
		"nothing is committed yet: neither the pre-committed transaction nor the open one is visible")
	commit(t, s, 1, "checkpoint 1 was pre-committed")
	expectCommitted(t, dir, "after Commit(1)", first,
		"Commit(1) publishes exactly the results written before PreCommit(1), once, in write order;\n"+
			"those written after PreCommit(1) belong to the next transaction and stay invisible")
	preCommit(t, s, 2)
	expectCommitted(t, dir, "after PreCommit(2)", first, "checkpoint 2 is pre-committed, not committed")
	commit(t, s, 2, "checkpoint 2 was pre-committed")
	expectCommitted(t, dir, "after Commit(2)", concat(first, second), "both transactions are committed, in checkpoint order")
}

// TestReadCommittedKeepsCheckpointAndWriteOrder certifies that ReadCommitted returns transactions in ascending checkpoint id, each in write order, whatever order they were committed in.
func TestReadCommittedKeepsCheckpointAndWriteOrder(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	s := newSink(t, dir)
	// Ids 2, 3, …, 12: id 10 must sort after id 9 (as numbers, not as text),
	// and one transaction is empty.
	ids := []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	txns := make([][]kit.Result, len(ids))
	for i, id := range ids {
		if id != 5 {
			txns[i] = randomResults(rnd, 1+rnd.IntN(6))
		}
		write(t, s, txns[i])
		preCommit(t, s, id)
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	var committedIDs []int64
	for _, i := range order {
		commit(t, s, ids[i], "every id was pre-committed")
		committedIDs = append(committedIDs, ids[i])
	}
	expectCommitted(t, dir, "after committing in the order "+fmtIDs(committedIDs), concat(txns...),
		"ReadCommitted returns the transactions in ascending checkpoint id (2, 3, …, 9, 10, 11, 12: ids compare as numbers),\n"+
			"each in write order, however they were committed: that is the order a replay reproduces")
}

// TestCommitIsIdempotent certifies that committing a committed checkpoint again, in the same sink or after recovery, returns no error and publishes nothing twice.
func TestCommitIsIdempotent(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	txn := randomResults(rnd, 4+rnd.IntN(8))
	s := newSink(t, dir)
	write(t, s, txn)
	preCommit(t, s, 1)
	commit(t, s, 1, "checkpoint 1 was pre-committed")
	if err := s.Commit(1); err != nil {
		t.Fatalf("a second Commit(1) = %v, want nil: commit must be idempotent. A completion notice can arrive twice,\n"+
			"and recovery commits every pending transaction again without knowing whether the crash came before or after its commit", err)
	}
	expectCommitted(t, dir, "after Commit(1) twice", txn,
		"the second commit is a no-op: each result is visible once")
	expectPending(t, s, "after Commit(1) twice", nil, "checkpoint 1 is committed")

	// The crash came after the commit, but the stored checkpoint still lists
	// 1 as pending: recovery commits it again.
	r, err := RecoverTwoPhaseCommitSink(dir, []int64{1})
	if err != nil || r == nil {
		t.Fatalf("RecoverTwoPhaseCommitSink(dir, [1]) with checkpoint 1 already committed = %v, %v; want a sink and no error:\n"+
			"a crash between Commit and the next checkpoint leaves 1 in the stored pending list, so recovery commits it again,\n"+
			"and that second commit must be a no-op", r, err)
	}
	expectCommitted(t, dir, "after recovery committed checkpoint 1 again", txn,
		"committing again after recovery must not publish the transaction twice")
	if err := r.Commit(1); err != nil {
		t.Errorf("Commit(1) on the recovered sink = %v, want nil: checkpoint 1 is committed, so committing it again is a no-op", err)
	}
	expectCommitted(t, dir, "after a third commit of checkpoint 1", txn, "each result is visible once")
}

// TestCommitOfUnknownCheckpointFails certifies that Commit of a checkpoint id that was never pre-committed returns an error and publishes nothing.
func TestCommitOfUnknownCheckpointFails(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	s := newSink(t, dir)
	if err := s.Commit(1); err == nil {
		t.Errorf("Commit(1) on a new sink = nil, want an error: no transaction was pre-committed for checkpoint 1.\n" +
			"A silent success here would hide a job that commits the wrong id, and its output would never appear")
	}
	open := randomResults(rnd, 3+rnd.IntN(5))
	write(t, s, open)
	if err := s.Commit(1); err == nil {
		t.Errorf("Commit(1) with only an open transaction = nil, want an error: the open transaction is not pre-committed;\n" +
			"committing it would publish results of a checkpoint that was never taken")
	}
	expectCommitted(t, dir, "after Commit(1) of an open, not pre-committed transaction", nil,
		"the open transaction must stay invisible: only PreCommit then Commit publishes")
	preCommit(t, s, 2)
	if err := s.Commit(3); err == nil {
		t.Errorf("Commit(3) with only checkpoint 2 pre-committed = nil, want an error: 3 is unknown")
	}
	expectCommitted(t, dir, "after Commit(3) of an unknown id", nil, "a failed commit publishes nothing")
	expectPending(t, s, "after a failed Commit(3)", []int64{2}, "checkpoint 2 is still pre-committed and waiting for its commit")
	commit(t, s, 2, "checkpoint 2 was pre-committed; an earlier failed commit of another id must not break the sink")
	expectCommitted(t, dir, "after Commit(2)", open, "checkpoint 2's transaction holds the results written before PreCommit(2)")
}

// TestPreCommitOfExistingIDFails certifies that PreCommit of a checkpoint id that is already pre-committed or already committed returns an error and changes nothing: not the staged transaction, not the open one, not Pending, not what ReadCommitted shows.
//
// Overwriting would replace a transaction a stored checkpoint may list as
// pending; publishing a second transaction under a committed id would be
// skipped by an idempotent Commit, losing its results. Either is a job
// reusing an id, which must fail loudly.
func TestPreCommitOfExistingIDFails(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	t.Run("staged", func(t *testing.T) {
		defer suite.Recover(t)
		dir := suite.TempDir(t)
		first, second := randomResults(rnd, 3+rnd.IntN(6)), randomResults(rnd, 3+rnd.IntN(6))
		s := newSink(t, dir)
		write(t, s, first)
		preCommit(t, s, 1)
		write(t, s, second)
		if err := s.PreCommit(1); err == nil {
			t.Fatalf("a second PreCommit(1) while checkpoint 1 is pre-committed = nil, want an error: it would overwrite a transaction " +
				"that a stored checkpoint may list as pending")
		}
		expectPending(t, s, "after a failed PreCommit(1)", []int64{1}, "the failed PreCommit changes nothing")
		expectCommitted(t, dir, "after a failed PreCommit(1)", nil, "nothing is committed")
		commit(t, s, 1, "checkpoint 1 is still pre-committed")
		expectCommitted(t, dir, "after Commit(1)", first,
			"checkpoint 1's transaction is the one pre-committed first: the failed PreCommit must not have touched it")
		preCommit(t, s, 2)
		commit(t, s, 2, "checkpoint 2 was pre-committed")
		expectCommitted(t, dir, "after PreCommit(2) and Commit(2)", concat(first, second),
			"the results written before the failed PreCommit(1) stayed in the open transaction, which PreCommit(2) ended")
	})
	t.Run("committed", func(t *testing.T) {
		defer suite.Recover(t)
		dir := suite.TempDir(t)
		first, second := randomResults(rnd, 3+rnd.IntN(6)), randomResults(rnd, 3+rnd.IntN(6))
		s := newSink(t, dir)
		write(t, s, first)
		preCommit(t, s, 1)
		commit(t, s, 1, "checkpoint 1 was pre-committed")
		write(t, s, second)
		if err := s.PreCommit(1); err == nil {
			t.Fatalf("PreCommit(1) after checkpoint 1 was committed = nil, want an error: Commit(1) would then find checkpoint 1 " +
				"committed and do nothing, and the new transaction's results would never be published")
		}
		expectPending(t, s, "after a failed PreCommit(1)", nil, "the failed PreCommit changes nothing")
		expectCommitted(t, dir, "after a failed PreCommit(1)", first, "checkpoint 1's committed transaction is untouched")
		preCommit(t, s, 2)
		commit(t, s, 2, "checkpoint 2 was pre-committed")
		expectCommitted(t, dir, "after PreCommit(2) and Commit(2)", concat(first, second),
			"the results written before the failed PreCommit(1) stayed in the open transaction, which PreCommit(2) ended")
	})
}

// TestPendingReturnsACopy certifies that the slice Pending returns belongs to the caller: editing it changes nothing in the sink, and later PreCommits and Commits do not change it.
//
// The job stores Pending() in its checkpoint: if the sink kept writing into
// that slice, the checkpoint would list other ids than the ones pending
// when it was taken.
func TestPendingReturnsACopy(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	s := newSink(t, suite.TempDir(t))
	for id := int64(1); id <= 3; id++ {
		write(t, s, randomResults(rnd, 1+rnd.IntN(3)))
		preCommit(t, s, id)
	}
	got := s.Pending()
	if len(got) != 3 {
		t.Fatalf("Pending() after PreCommit(1…3) = %v, want [1 2 3]", got)
	}
	for i := range got {
		got[i] = 99
	}
	expectPending(t, s, "after the caller overwrote the slice an earlier Pending() returned", []int64{1, 2, 3},
		"Pending returns a copy: what the caller does with it is not the sink's state")
	held := s.Pending()
	commit(t, s, 1, "checkpoint 1 was pre-committed")
	write(t, s, randomResults(rnd, 2))
	preCommit(t, s, 4)
	if want := []int64{1, 2, 3}; !slices.Equal(held, want) {
		t.Errorf("a slice Pending() returned before Commit(1) and PreCommit(4) is now %v, want %v: the caller owns it, and a "+
			"checkpoint that stored it must keep the ids pending when it was taken", held, want)
	}
	expectPending(t, s, "after Commit(1) and PreCommit(4)", []int64{2, 3, 4}, "Pending lists the pre-committed, not committed ids")
}

// TestAbortDiscardsOpenTransaction certifies that Abort discards the results written since the last PreCommit, and leaves pre-committed transactions and later writes alone.
func TestAbortDiscardsOpenTransaction(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	kept, aborted, after := randomResults(rnd, 3+rnd.IntN(5)), randomResults(rnd, 3+rnd.IntN(5)), randomResults(rnd, 3+rnd.IntN(5))
	s := newSink(t, dir)
	write(t, s, kept)
	preCommit(t, s, 1)
	write(t, s, aborted)
	if err := s.Abort(); err != nil {
		t.Fatalf("Abort() = %v, want nil", err)
	}
	expectPending(t, s, "after Abort", []int64{1}, "Abort discards the open transaction only, not checkpoint 1's pre-committed one")
	write(t, s, after)
	preCommit(t, s, 2)
	commit(t, s, 1, "checkpoint 1 was pre-committed before the Abort")
	commit(t, s, 2, "checkpoint 2 was pre-committed")
	expectCommitted(t, dir, "after Write, PreCommit(1), Write, Abort, Write, PreCommit(2), Commit(1), Commit(2)", concat(kept, after),
		"Abort drops what was written since PreCommit(1) and nothing else; the writes after the Abort go into a new\n"+
			"transaction, which PreCommit(2) and Commit(2) publish")
}

// TestPendingListsPreCommittedCheckpoints certifies that Pending lists the pre-committed, not yet committed checkpoint ids in ascending order.
func TestPendingListsPreCommittedCheckpoints(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	s := newSink(t, suite.TempDir(t))
	const why = "Pending is the sink's state in a checkpoint: the ids recovery must commit, ascending"
	expectPending(t, s, "on a new sink", nil, "nothing was pre-committed")
	write(t, s, randomResults(rnd, 3))
	expectPending(t, s, "after a Write", nil, "the open transaction is not pending: only pre-committed ones are")
	for id := int64(1); id <= 4; id++ {
		write(t, s, randomResults(rnd, rnd.IntN(3)))
		preCommit(t, s, id)
	}
	expectPending(t, s, "after PreCommit(1…4)", []int64{1, 2, 3, 4}, why)
	commit(t, s, 3, "checkpoint 3 was pre-committed")
	expectPending(t, s, "after Commit(3)", []int64{1, 2, 4}, why+"; a committed id leaves the list")
	commit(t, s, 1, "checkpoint 1 was pre-committed")
	expectPending(t, s, "after Commit(1)", []int64{2, 4}, why)
	preCommit(t, s, 5)
	commit(t, s, 2, "checkpoint 2 was pre-committed")
	commit(t, s, 4, "checkpoint 4 was pre-committed")
	expectPending(t, s, "after PreCommit(5), Commit(2), Commit(4)", []int64{5}, why)
	commit(t, s, 5, "checkpoint 5 was pre-committed")
	expectPending(t, s, "after committing everything", nil, "nothing is waiting for a commit")
}

// TestRecoveryCommitsEveryPendingTransaction certifies that RecoverTwoPhaseCommitSink commits every pending transaction, so nothing pre-committed for a completed checkpoint is lost.
func TestRecoveryCommitsEveryPendingTransaction(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	t1, t2, t3 := randomResults(rnd, 2+rnd.IntN(6)), randomResults(rnd, 2+rnd.IntN(6)), randomResults(rnd, 2+rnd.IntN(6))
	s := newSink(t, dir)
	write(t, s, t1)
	preCommit(t, s, 1)
	commit(t, s, 1, "checkpoint 1 was pre-committed")
	write(t, s, t2)
	preCommit(t, s, 2)
	write(t, s, t3)
	preCommit(t, s, 3)
	pending := s.Pending()
	// The job stores checkpoint 3 with pending [2 3] and crashes before it
	// commits them: s is abandoned, as a killed process would abandon it.
	expectCommitted(t, dir, "after the crash", t1, "only checkpoint 1 was committed before the crash")

	r, err := RecoverTwoPhaseCommitSink(dir, pending)
	if err != nil || r == nil {
		t.Fatalf("RecoverTwoPhaseCommitSink(dir, %v) = %v, %v; want a sink and no error", pending, r, err)
	}
	expectCommitted(t, dir, "after RecoverTwoPhaseCommitSink(dir, "+fmtIDs(pending)+")", concat(t1, t2, t3),
		"checkpoints 2 and 3 completed (they are pending in the stored checkpoint), so recovery must commit them.\n"+
			"The restarted job resumes the source after checkpoint 3: nothing will ever produce these results again,\n"+
			"so aborting a pending transaction loses them for good")
	expectPending(t, r, "after recovery", nil, "recovery committed every pending transaction")
}

// TestRecoveryAbortsOpenAndStrayTransactions certifies that RecoverTwoPhaseCommitSink discards the open transaction and every pre-committed one not in pending, and the recovered sink can reuse their ids.
func TestRecoveryAbortsOpenAndStrayTransactions(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	dir := suite.TempDir(t)
	t1, stray, open := randomResults(rnd, 2+rnd.IntN(6)), randomResults(rnd, 2+rnd.IntN(6)), randomResults(rnd, 2+rnd.IntN(6))
	s := newSink(t, dir)
	write(t, s, t1)
	preCommit(t, s, 1)
	pending := s.Pending() // checkpoint 1 is stored with pending [1]…
	write(t, s, stray)
	preCommit(t, s, 2) // …checkpoint 2 pre-commits, but the job crashes before storing it…
	write(t, s, open)  // …and these were still in the open transaction.

	r, err := RecoverTwoPhaseCommitSink(dir, pending)
	if err != nil || r == nil {
		t.Fatalf("RecoverTwoPhaseCommitSink(dir, %v) = %v, %v; want a sink and no error", pending, r, err)
	}
	const why = "recovery restores checkpoint 1: the job replays the source from checkpoint 1's offset and produces\n" +
		"the results of checkpoint 2's transaction and of the open one again. Publishing those left over from the\n" +
		"crash as well would duplicate them, so recovery aborts every transaction it was not told is pending"
	expectCommitted(t, dir, "after RecoverTwoPhaseCommitSink(dir, [1])", t1, why)
	expectPending(t, r, "after recovery", nil, "recovery commits the pending transactions and aborts the rest")
	if err := r.Commit(2); err == nil {
		t.Errorf("Commit(2) after recovery aborted checkpoint 2's transaction = nil, want an error: it was aborted, so there is nothing to publish")
	}
	expectCommitted(t, dir, "after Commit(2) of an aborted transaction", t1, why)

	// The restarted job takes checkpoint 2 again, with the replayed results.
	replayed := randomResults(rnd, 2+rnd.IntN(6))
	write(t, r, replayed)
	if err := r.PreCommit(2); err != nil {
		t.Fatalf("PreCommit(2) on the recovered sink = %v, want nil: recovery aborted the old checkpoint 2, and the restarted job "+
			"takes checkpoint 2 again (it resumes after checkpoint 1)", err)
	}
	commit(t, r, 2, "checkpoint 2 was pre-committed again")
	expectCommitted(t, dir, "after the recovered sink's PreCommit(2) and Commit(2)", concat(t1, replayed),
		"checkpoint 2 now holds only what the recovered sink wrote: the aborted transaction must be gone for good")
}
