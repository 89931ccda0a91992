package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.operators.sink.CommitterOperatorFactory;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

/**
 * Runs a two-phase-commit scenario (kind "twophase"): the course's stage 05 sink against Flink's
 * Sink V2 machinery. A small sink ({@link StoreSink}: a {@link CommittingSinkWriter} and a {@link
 * Committer}) writes into an in-memory "external system" ({@link Store}), and Flink's own
 * operators drive it, each under its own operator test harness, the writer's output handed to the
 * committer as in a task that chains the two:
 *
 * <ol>
 *   <li>Flink's SinkWriterOperator (from SinkWriterOperatorFactory): every "write" is a
 *       processElement, and at a checkpoint its prepareSnapshotPreBarrier flushes the writer, calls
 *       prepareCommit and sends the committables downstream, tagged with the checkpoint's id (a
 *       CommittableSummary, then a CommittableWithLineage each);
 *   <li>Flink's CommitterOperator (from CommitterOperatorFactory, streaming, checkpointing on):
 *       it collects those committables by checkpoint id, stores them in its operator state at
 *       every snapshot, and on notifyCheckpointComplete(id) commits every checkpoint's up to id;
 *       restored from a checkpoint, it commits every committable the checkpoint holds while it
 *       initializes its state.
 * </ol>
 *
 * <p>The operations say what Flink's JobManager would do: "checkpoint" (barrier and snapshot of
 * both operators, as SubtaskCheckpointCoordinatorImpl does for a chain: prepareSnapshotPreBarrier
 * of each in chain order, then the barrier, then their snapshots), "complete" (the checkpoint is stored: the latest completed one, which the next
 * "crash" restores; earlier ones can no longer complete, as CheckpointCoordinator's
 * dropSubsumedCheckpoints aborts them), "notify" (notifyOfCompletedCheckpoint, to both operators)
 * and "crash" (both operators are closed without a checkpoint, the writer's open transaction with
 * them, and new ones are restored from the latest completed checkpoint's snapshots, with that
 * checkpoint's id as the restored one; none completed: they start empty). Checkpoint ids are the
 * scenario's; the Go side never reuses one, as Flink's CheckpointIDCounter does not.
 *
 * <p>What Flink decides here: which committables each checkpoint carries, which the committer
 * holds, stores and restores, and which it commits on each notification and on recovery, in which
 * order, and how often. What the sink decides: what a transaction holds, and that a commit is
 * idempotent (a transaction committed already is signalled with signalAlreadyCommitted and not
 * published again).
 */
final class TwoPhaseRun {
  private TwoPhaseRun() {}

  /**
   * One operation: "write" (result into the writer), "checkpoint" id, "complete" id, "notify" id,
   * or "crash".
   */
  record Op(String op, Result result, long id) {}

  /**
   * What happened in answer to one operation.
   *
   * @param committed the results the store made visible during it, in order: what a reader with
   *     read-committed isolation sees appear
   * @param pending the checkpoint ids whose committables the committer holds and has not
   *     committed, ascending: those the writer sent it since the last restore and it has not
   *     reported done (its CommittableSummary downstream)
   * @param alreadyCommitted how many commit requests the committer found committed already
   *     (signalAlreadyCommitted): re-commits, which publish nothing
   * @param failed how many commit requests the sink's committer failed (signalFailedWithKnownReason):
   *     transactions it found neither prepared nor committed
   * @param restored for a "crash", the id of the checkpoint the new operators were restored from,
   *     0 when none had completed
   */
  record TwoPhaseStep(List<Result> committed, List<Long> pending, int alreadyCommitted, int failed, long restored) {}

  /** Runs a "twophase" scenario for the Runner: spec is unused, ops a list of Ops. */
  static List<TwoPhaseStep> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(json.convertValue(ops, new TypeReference<List<Op>>() {}));
  }

  /** Runs the operations and returns one TwoPhaseStep per operation. */
  static List<TwoPhaseStep> run(List<Op> ops) throws Exception {
    Store store = new Store();
    Map<Long, Snapshot> taken = new LinkedHashMap<>(); // this attempt's checkpoints, not completed
    Snapshot latest = null; // the latest completed checkpoint
    TreeSet<Long> completed = new TreeSet<>(); // this attempt's completed checkpoints
    int attempt = 0;
    Attempt a = Attempt.start(store, attempt, null);
    List<TwoPhaseStep> steps = new ArrayList<>();
    try {
      for (Op o : ops) {
        int visible = store.visible.size();
        int already = store.alreadyCommitted;
        int failed = store.failed;
        long restored = 0;
        switch (o.op()) {
          case "write" -> a.writer.processElement(new StreamRecord<>(o.result()));
          case "checkpoint" -> {
            if (taken.containsKey(o.id()) || latest != null && o.id() <= latest.id()) {
              throw new IllegalArgumentException("checkpoint " + o.id() + " was taken before");
            }
            a.writer.prepareSnapshotPreBarrier(o.id());
            a.forwardCommittables();
            a.committer.prepareSnapshotPreBarrier(o.id());
            taken.put(o.id(), new Snapshot(o.id(), a.writer.snapshot(o.id(), o.id()), a.committer.snapshot(o.id(), o.id())));
          }
          case "complete" -> {
            Snapshot s = taken.get(o.id());
            if (s == null) {
              throw new IllegalArgumentException("checkpoint " + o.id() + " was not taken in this attempt, or is subsumed");
            }
            latest = s;
            completed.add(o.id());
            taken.keySet().removeIf(id -> id <= o.id()); // dropSubsumedCheckpoints
          }
          case "notify" -> {
            if (!completed.contains(o.id())) {
              throw new IllegalArgumentException("checkpoint " + o.id() + " did not complete in this attempt");
            }
            a.writer.notifyOfCompletedCheckpoint(o.id());
            a.committer.notifyOfCompletedCheckpoint(o.id());
          }
          case "crash" -> {
            a.close();
            taken.clear();
            completed.clear();
            a = Attempt.start(store, ++attempt, latest);
            restored = latest == null ? 0 : latest.id();
          }
          default -> throw new IllegalArgumentException("unknown op " + o.op());
        }
        a.readCommitted();
        steps.add(
            new TwoPhaseStep(
                List.copyOf(store.visible.subList(visible, store.visible.size())),
                List.copyOf(a.pending),
                store.alreadyCommitted - already,
                store.failed - failed,
                restored));
      }
    } finally {
      a.close();
    }
    return steps;
  }

  /** A checkpoint's snapshots of the two operators. */
  record Snapshot(long id, OperatorSubtaskState writer, OperatorSubtaskState committer) {}

  /**
   * One attempt of the job: the writer and committer operators, each under its harness, and what
   * the committer was sent and reported.
   */
  static final class Attempt {
    final OneInputStreamOperatorTestHarness<Result, CommittableMessage<String>> writer;
    final OneInputStreamOperatorTestHarness<CommittableMessage<String>, CommittableMessage<String>> committer;
    /** Checkpoint ids whose committables the committer was sent and has not reported done. */
    final TreeSet<Long> pending = new TreeSet<>();

    private Attempt(
        OneInputStreamOperatorTestHarness<Result, CommittableMessage<String>> writer,
        OneInputStreamOperatorTestHarness<CommittableMessage<String>, CommittableMessage<String>> committer) {
      this.writer = writer;
      this.committer = committer;
    }

    /**
     * Starts an attempt: new operators, restored from from's snapshots (with from's id as the
     * restored checkpoint id, as a restore from a completed checkpoint gives them) or empty.
     */
    static Attempt start(Store store, int attempt, Snapshot from) throws Exception {
      StoreSink sink = new StoreSink(store, attempt);
      var a =
          new Attempt(
              new OneInputStreamOperatorTestHarness<>(new SinkWriterOperatorFactory<Result, String>(sink)),
              new OneInputStreamOperatorTestHarness<>(new CommitterOperatorFactory<>(sink, false, true)));
      if (from != null) {
        a.writer.setRestoredCheckpointId(from.id());
        a.writer.initializeState(from.writer());
        a.committer.setRestoredCheckpointId(from.id());
        a.committer.initializeState(from.committer()); // commits what the checkpoint holds
      }
      a.writer.open();
      a.committer.open();
      return a;
    }

    /** Hands the writer's committables to the committer, noting the checkpoints they are for. */
    void forwardCommittables() throws Exception {
      Outputs.forward(
          writer,
          new Outputs.Downstream<>() {
            @Override
            public void record(StreamRecord<CommittableMessage<String>> r) throws Exception {
              if (r.getValue() instanceof CommittableSummary<String> s) {
                pending.add(s.getCheckpointIdOrEOI());
              }
              committer.processElement(r);
            }

            @Override
            public void watermark(Watermark wm) {}
          });
    }

    /**
     * Reads the checkpoints the committer reported done (its post-commit output: a summary per
     * checkpoint whose committables it committed or gave up) since the last call.
     */
    void readCommitted() throws Exception {
      Outputs.forward(
          committer,
          new Outputs.Downstream<>() {
            @Override
            public void record(StreamRecord<CommittableMessage<String>> r) {
              if (r.getValue() instanceof CommittableSummary<String> s) {
                pending.remove(s.getCheckpointIdOrEOI());
              }
            }

            @Override
            public void watermark(Watermark wm) {}
          });
    }

    /** Closes both operators: the writer's open transaction is dropped, not committed. */
    void close() throws Exception {
      try {
        writer.close();
      } finally {
        committer.close();
      }
    }
  }

  /**
   * The external system: transactions prepared (durable, invisible) and committed (visible, in
   * commit order), as a broker with transactions or a file system with a rename keeps them. It
   * outlives every attempt of the job. A prepared transaction that is never committed stays
   * prepared, invisible: the runner's sink does not abort it.
   */
  static final class Store {
    final Map<String, List<Result>> prepared = new HashMap<>();
    final Set<String> committed = new HashSet<>();
    /** What a reader sees: every committed transaction's results, in commit order. */
    final List<Result> visible = new ArrayList<>();
    /** Commit requests answered with signalAlreadyCommitted. */
    int alreadyCommitted;
    /** Commit requests answered with signalFailedWithKnownReason. */
    int failed;

    void prepare(String txn, List<Result> results) {
      if (prepared.containsKey(txn) || committed.contains(txn)) {
        throw new IllegalStateException("transaction " + txn + " exists already");
      }
      prepared.put(txn, List.copyOf(results));
    }
  }

  /**
   * A two-phase-commit sink into a Store: a transaction per checkpoint, named by the attempt and
   * its number in the attempt (unique across restarts, as a Kafka sink's transactional ids are);
   * the committable is the name. The store is shared by reference: the harnesses create their
   * operators from this very object.
   */
  static final class StoreSink implements Sink<Result>, SupportsCommitter<String>, SupportsPostCommitTopology<String> {
    private static final long serialVersionUID = 1L;
    private final transient Store store;
    private final int attempt;

    StoreSink(Store store, int attempt) {
      this.store = store;
      this.attempt = attempt;
    }

    @Override
    public TxnWriter createWriter(WriterInitContext ctx) {
      return new TxnWriter(store, "a" + attempt + "-t");
    }

    @Override
    public Committer<String> createCommitter(CommitterInitContext ctx) {
      return new TxnCommitter(store);
    }

    @Override
    public SimpleVersionedSerializer<String> getCommittableSerializer() {
      return new NameSerializer();
    }

    /**
     * Nothing downstream: implementing SupportsPostCommitTopology only makes the committer report
     * what it committed, which is how the runner sees what it still holds.
     */
    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<String>> committables) {}
  }

  /**
   * Writes results into the open transaction, in memory; prepareCommit prepares it in the store
   * (durable, invisible) and opens the next: one transaction per checkpoint, an empty one too.
   */
  static final class TxnWriter implements CommittingSinkWriter<Result, String> {
    private final Store store;
    private final String prefix;
    private int seq;
    private List<Result> open = new ArrayList<>();

    TxnWriter(Store store, String prefix) {
      this.store = store;
      this.prefix = prefix;
    }

    @Override
    public void write(Result r, SinkWriter.Context ctx) {
      open.add(r);
    }

    @Override
    public void flush(boolean endOfInput) {}

    @Override
    public Collection<String> prepareCommit() {
      String txn = prefix + seq++;
      store.prepare(txn, open);
      open = new ArrayList<>();
      return List.of(txn);
    }

    /** Drops the open transaction: a crash loses it, and the replay writes its results again. */
    @Override
    public void close() {
      open = null;
    }
  }

  /**
   * Publishes prepared transactions, idempotently: one committed already is signalled with
   * signalAlreadyCommitted and published no second time; one neither prepared nor committed is
   * reported failed with a known reason, which Flink drops, going on (TwoPhaseRunTest).
   */
  static final class TxnCommitter implements Committer<String> {
    private final Store store;

    TxnCommitter(Store store) {
      this.store = store;
    }

    @Override
    public void commit(Collection<CommitRequest<String>> requests) {
      for (CommitRequest<String> req : requests) {
        String txn = req.getCommittable();
        if (store.committed.contains(txn)) {
          store.alreadyCommitted++;
          req.signalAlreadyCommitted();
        } else if (store.prepared.containsKey(txn)) {
          store.visible.addAll(store.prepared.remove(txn));
          store.committed.add(txn);
        } else {
          store.failed++;
          req.signalFailedWithKnownReason(new IllegalStateException("transaction " + txn + " is neither prepared nor committed"));
        }
      }
    }

    @Override
    public void close() {}
  }

  /** A committable is a transaction's name: UTF-8, version 1. */
  static final class NameSerializer implements SimpleVersionedSerializer<String> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String name) {
      return name.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
