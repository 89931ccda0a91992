package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/**
 * Stage 04, checkpoints: stage 03's job, with its state snapshotted while it runs, so that a
 * restarted job carries on where the last completed checkpoint was.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code Snapshot()}: a checkpoint, which Flink takes by itself every interval ({@code
 *       enableCheckpointing}). The CheckpointCoordinator injects a barrier into each source; it
 *       flows in line with the records, and each operator snapshots its state when the barrier has
 *       arrived on all its inputs (an aligned checkpoint; {@code EXACTLY_ONCE}). The state is the
 *       seen IDs and the window contents (keyed state, per key and window), their timers, and the
 *       source's position in the input: everything a restart needs.
 *   <li>{@code RestoreProcessor}: a restart. After a failure Flink restores every operator from the
 *       latest completed checkpoint and rewinds the source to its offset; {@code flink run -s
 *       <path>} starts a new job from a retained checkpoint or a savepoint.
 *   <li>The versioned, portable format: a savepoint ({@code flink savepoint <job>}, or {@code flink
 *       stop --savepointPath}), owned by the user and written in a canonical format; checkpoints
 *       are Flink's own, for recovery, in whatever format is fastest for the state backend.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md, and stage 04's card): Flink does not checkpoint watermarks: a
 * restored job starts again at {@code Long.MIN_VALUE} and regenerates them from the replayed
 * records, where the course saves the watermark. A checkpoint's {@code _metadata} file starts with
 * a magic number and a version, as the course's snapshot does, but has no checksum of its own.
 *
 * <p>On a bounded input the job also takes a final checkpoint when its tasks finish, before it
 * ends (FLIP-147): the results do not depend on how many checkpoints were taken, nor when.
 */
public final class Stage04Checkpoints {
  private Stage04Checkpoints() {}

  /** The job's settings: stage 03's, and how often to checkpoint, in ms of processing time. */
  public record Config(long windowSize, long watermarkDelay, long allowedLateness, long checkpointInterval, Emit watermarks) {
    /** The demo's windows of 10 ms, and a checkpoint every 100 ms. */
    public static final Config DEFAULTS = new Config(10, 0, 0, 100, Emit.PER_EVENT);

    public Config {
      if (checkpointInterval < 10) {
        throw new IllegalArgumentException("checkpoint interval must be at least 10 ms, got " + checkpointInterval);
      }
      new Stage03Lateness.Config(windowSize, watermarkDelay, allowedLateness, watermarks); // checks them
    }
  }

  /** Runs the job with checkpoints on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    Path dir = Files.createTempDirectory("flk-byo-checkpoints-");
    try {
      // A checkpoint every interval, with aligned barriers: each operator snapshots its state once
      // the barrier has come in on every input, so the snapshot holds the effect of every record
      // before the barrier and of none after it.
      env.enableCheckpointing(cfg.checkpointInterval(), CheckpointingMode.EXACTLY_ONCE);
      var checkpoints = new Configuration();
      // Where checkpoints go: a file system path (in production a shared one, S3 or HDFS); each
      // holds a _metadata file and the operators' state files.
      checkpoints.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
      // Keep the last checkpoint when the job is cancelled (or fails), so that `flink run -s` can
      // restart from it, like a savepoint; Flink deletes it when the job finishes.
      checkpoints.set(
          CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
          ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
      env.configure(checkpoints);

      var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
      DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), 0);
      return Output.collect(env, "stage 04: checkpoints", Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness()));
    } finally {
      FileUtils.deleteDirectory(dir.toFile()); // what Flink left of its own: empty folders
    }
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage04Checkpoints", args, Config.DEFAULTS, Stage04Checkpoints::run);
  }
}
