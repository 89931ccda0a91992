package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/**
 * Stage 12, spilling state: stage 03's job with its state in an embedded key-value store on local
 * disk, RocksDB, instead of on the heap, and incremental checkpoints.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code StateBackend} with {@code HeapBackend} and {@code PebbleBackend}: Flink's state
 *       backends, HashMapStateBackend (objects on the heap, the default) and {@link
 *       EmbeddedRocksDBStateBackend} (serialized bytes in RocksDB), chosen by configuration ({@code
 *       state.backend.type: rocksdb}), not in the job's code: the same job runs on either.
 *   <li>The memory budget: RocksDB's memtables and block cache come out of the task manager's
 *       managed memory ({@code state.backend.rocksdb.memory.managed}, on by default), one shared
 *       cache per slot with the memtables charged to it; state beyond it lives in SST files on
 *       local disk.
 *   <li>The key layout, key group first: Flink's RocksDB keys are key group, key, namespace (the
 *       window), so each key group is one contiguous range of keys, which a rescale hands over or
 *       clips whole.
 *   <li>{@code Checkpoint(dir)} with Pebble's {@code DB.Checkpoint}: an incremental checkpoint
 *       ({@code execution.checkpointing.incremental: true}): RocksDB's own checkpoint hard-links the
 *       immutable SST files, and Flink uploads only those no earlier checkpoint has.
 *   <li>{@code BackendProcessor}: the same WindowOperator as stage 03's. It asks its keyed state
 *       backend for state, whichever that is; on RocksDB every access serializes, so state costs
 *       CPU instead of heap. Timers live in RocksDB too ({@code
 *       state.backend.rocksdb.timer-service.factory}, ROCKSDB by default).
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): the course puts the window before the key so that a window's
 * tallies are one run of keys; Flink puts the key first and finds a window's keys through its
 * timers. And the course's processor keeps its watermark in the backend; Flink checkpoints none.
 */
public final class Stage12RocksDb {
  private Stage12RocksDb() {}

  /** The job's settings: stage 03's, and the checkpoint interval in ms of processing time. */
  public record Config(long windowSize, long watermarkDelay, long allowedLateness, long checkpointInterval, Emit watermarks) {
    /** The demo's: windows of 10 ms, a checkpoint every 100 ms. */
    public static final Config DEFAULTS = new Config(10, 0, 0, 100, Emit.PER_EVENT);

    public Config {
      if (checkpointInterval < 10) {
        throw new IllegalArgumentException("checkpoint interval must be at least 10 ms, got " + checkpointInterval);
      }
      new Stage03Lateness.Config(windowSize, watermarkDelay, allowedLateness, watermarks); // checks them
    }
  }

  /** Runs the job with RocksDB state on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    Path checkpoints = Files.createTempDirectory("flk-byo-rocksdb-checkpoints-");
    try {
      var state = new Configuration();
      // EmbeddedRocksDBStateBackend, by name: the factory Flink loads for "rocksdb".
      state.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
      state.set(RocksDBOptions.USE_MANAGED_MEMORY, true); // the budget: the slot's managed memory
      state.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
      state.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
      env.configure(state);
      env.enableCheckpointing(cfg.checkpointInterval(), CheckpointingMode.EXACTLY_ONCE);

      var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
      DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), 0);
      return Output.collect(env, "stage 12: state in RocksDB", Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness()));
    } finally {
      FileUtils.deleteDirectory(checkpoints.toFile());
    }
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage12RocksDb", args, Config.DEFAULTS, Stage12RocksDb::run);
  }
}
