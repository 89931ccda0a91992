package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;

/**
 * The "twophase" kind's wiring on scenarios small enough to check by hand: what Flink's
 * SinkWriterOperator and CommitterOperator commit, when, and after a restore.
 */
class TwoPhaseRunTest {
  private static final Result R1 = new Result("a", 0, 10, 1, 1, false);
  private static final Result R2 = new Result("b", 0, 10, 2, 5, false);
  private static final Result R3 = new Result("a", 10, 20, 1, 7, true);

  private static TwoPhaseRun.Op write(Result r) {
    return new TwoPhaseRun.Op("write", r, 0);
  }

  private static TwoPhaseRun.Op op(String op, long id) {
    return new TwoPhaseRun.Op(op, null, id);
  }

  private static TwoPhaseRun.TwoPhaseStep step(List<Result> committed, List<Long> pending) {
    return new TwoPhaseRun.TwoPhaseStep(committed, pending, 0, 0, 0);
  }

  @Test
  void nothingIsVisibleBeforeItsCheckpointIsNotifiedComplete() throws Exception {
    var steps =
        TwoPhaseRun.run(
            List.of(write(R1), write(R2), op("checkpoint", 1), op("complete", 1), write(R3), op("notify", 1)));
    assertEquals(step(List.of(), List.of()), steps.get(1));
    assertEquals(step(List.of(), List.of(1L)), steps.get(2), "pre-committed: pending, invisible");
    assertEquals(step(List.of(), List.of(1L)), steps.get(3), "complete, not yet notified");
    assertEquals(step(List.of(R1, R2), List.of()), steps.get(5), "R3 is in the next transaction");
  }

  @Test
  void aLaterNotificationCommitsEveryEarlierCheckpoint() throws Exception {
    var steps =
        TwoPhaseRun.run(
            List.of(
                write(R1),
                op("checkpoint", 1),
                write(R2),
                op("checkpoint", 2), // 1 never completes
                op("complete", 2),
                op("notify", 2),
                op("notify", 2))); // twice: nothing more
    assertEquals(step(List.of(), List.of(1L, 2L)), steps.get(4));
    assertEquals(step(List.of(R1, R2), List.of()), steps.get(5));
    assertEquals(step(List.of(), List.of()), steps.get(6));
  }

  @Test
  void aCrashDropsTheOpenTransactionAndRecoveryCommitsTheRestoredCheckpoint() throws Exception {
    var steps =
        TwoPhaseRun.run(
            List.of(
                write(R1),
                op("checkpoint", 1),
                op("complete", 1), // the notification is lost
                write(R2),
                op("checkpoint", 2), // never completes
                write(R3),
                op("crash", 0)));
    assertEquals(new TwoPhaseRun.TwoPhaseStep(List.of(R1), List.of(), 0, 0, 1), steps.get(6));
  }

  @Test
  void recoveryReCommitsIdempotently() throws Exception {
    var steps =
        TwoPhaseRun.run(
            List.of(write(R1), op("checkpoint", 1), op("complete", 1), op("notify", 1), op("crash", 0)));
    assertEquals(step(List.of(R1), List.of()), steps.get(3));
    assertEquals(
        new TwoPhaseRun.TwoPhaseStep(List.of(), List.of(), 1, 0, 1),
        steps.get(4),
        "checkpoint 1's committable is committed again: signalAlreadyCommitted, nothing published twice");
  }

  @Test
  void withoutACompletedCheckpointARestartStartsEmpty() throws Exception {
    var steps =
        TwoPhaseRun.run(
            List.of(
                write(R1),
                op("checkpoint", 1),
                op("crash", 0),
                write(R2),
                op("checkpoint", 2),
                op("complete", 2),
                op("notify", 2)));
    assertEquals(step(List.of(), List.of()), steps.get(2));
    assertEquals(step(List.of(R2), List.of()), steps.get(6), "checkpoint 1's transaction stays prepared, invisible");
  }

  /**
   * Flink's side of docs/PARITY.md's row on committing an unknown transaction: a committable the
   * external system no longer has (a Kafka transaction the broker aborted on its timeout, say),
   * which the committer reports failed with a known reason, is dropped: CommitterOperator reports
   * the checkpoint done and goes on without an error, and its data is lost.
   */
  @Test
  void aCommittableTheStoreLostIsDroppedWithoutAnError() throws Exception {
    var store = new TwoPhaseRun.Store();
    var a = TwoPhaseRun.Attempt.start(store, 0, null);
    try {
      a.writer.processElement(new StreamRecord<>(R1));
      a.writer.prepareSnapshotPreBarrier(1);
      a.forwardCommittables();
      a.committer.snapshot(1, 1);
      store.prepared.clear(); // the external system lost the transaction
      a.writer.notifyOfCompletedCheckpoint(1);
      a.committer.notifyOfCompletedCheckpoint(1);
      a.readCommitted();
      assertEquals(1, store.failed);
      assertEquals(List.of(), List.copyOf(a.pending));
      assertEquals(List.of(), store.visible);
    } finally {
      a.close();
    }
  }
}
