package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Stage 05's job and its two-phase-commit sink. */
@ExtendWith(FlinkCluster.class)
class Stage05TwoPhaseCommitTest {
  /** The source of `de demo 05`. */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 1, 1), ev("e2", "a", 12, 2), ev("e3", "b", 14, 3),
          ev("e4", "a", 25, 4), ev("e5", "b", 27, 5), ev("e6", "a", 31, 6));

  static final List<Result> WANT =
      List.of(
          first("a", 0, 10, 1, 1), first("a", 10, 20, 1, 2), first("b", 10, 20, 1, 3),
          first("a", 20, 30, 1, 4), first("b", 20, 30, 1, 5), first("a", 30, 40, 1, 6));

  @Test
  void everyResultIsCommittedOnceAndNothingStaysPending(@TempDir Path dir) throws Exception {
    var cfg = new Stage05TwoPhaseCommit.Config(10, 0, 0, 50, dir.toString(), Emit.PER_EVENT);
    Output out = Stage05TwoPhaseCommit.run(FlinkCluster.env(1), DEMO, cfg);
    assertEquals(WANT, out.sortedResults());
    assertEquals(List.of(), TwoPhaseCommitFileSink.pending(dir), "every transaction committed at the final checkpoint");
  }

  @Test
  void aPreCommitIsInvisibleAndACommitIdempotent(@TempDir Path dir) throws Exception {
    var w = new TwoPhaseCommitFileSink.Writer(dir, 0, 0);
    w.write(WANT.get(0), null);
    List<String> committables = new ArrayList<>(w.prepareCommit()); // the barrier: pre-commit
    assertEquals(List.of(), TwoPhaseCommitFileSink.readCommitted(dir), "pre-committed is invisible");
    assertEquals(committables, TwoPhaseCommitFileSink.pending(dir));

    var c = new TwoPhaseCommitFileSink.FileCommitter(dir);
    var once = new Request(committables.get(0));
    c.commit(List.of(once)); // the checkpoint completed
    assertEquals(List.of(WANT.get(0)), TwoPhaseCommitFileSink.readCommitted(dir));
    var again = new Request(committables.get(0));
    c.commit(List.of(again)); // after a restart Flink commits the restored committables again
    assertTrue(again.alreadyCommitted, "a second commit says it was done before");
    assertEquals(List.of(WANT.get(0)), TwoPhaseCommitFileSink.readCommitted(dir), "and changes nothing");

    w.write(WANT.get(1), null); // an open transaction, which a crash aborts: never committed
    w.close();
    assertEquals(List.of(WANT.get(0)), TwoPhaseCommitFileSink.readCommitted(dir));
  }

  /** A commit request as Flink's committer operator makes one, recording what the committer says. */
  private static final class Request implements Committer.CommitRequest<String> {
    private final String committable;
    boolean alreadyCommitted;

    Request(String committable) {
      this.committable = committable;
    }

    @Override
    public String getCommittable() {
      return committable;
    }

    @Override
    public int getNumberOfRetries() {
      return 0;
    }

    @Override
    public void signalFailedWithKnownReason(Throwable t) {
      throw new AssertionError("commit failed", t);
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable t) {
      throw new AssertionError("commit failed", t);
    }

    @Override
    public void retryLater() {
      throw new AssertionError("retry");
    }

    @Override
    public void updateAndRetryLater(String committable) {
      throw new AssertionError("retry");
    }

    @Override
    public void signalAlreadyCommitted() {
      alreadyCommitted = true;
    }
  }
}
