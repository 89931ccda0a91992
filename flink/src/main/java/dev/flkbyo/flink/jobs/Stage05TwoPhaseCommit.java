package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/**
 * Stage 05, exactly-once output: stage 03's windows write their results through a two-phase-commit
 * sink, so that a reader sees each result once, and only once the checkpoint that covers it has
 * completed.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code TwoPhaseCommitSink}: {@link TwoPhaseCommitFileSink}, a Sink V2 with {@code
 *       SupportsCommitter}: {@code Write} is the writer's {@code write}, {@code PreCommit} its
 *       {@code prepareCommit} at each checkpoint barrier, {@code Commit} the Committer's {@code
 *       commit} once the checkpoint completes, {@code RecoverTwoPhaseCommitSink} the re-commit of
 *       the restored committables after a restart, and {@code ReadCommitted} {@link
 *       TwoPhaseCommitFileSink#readCommitted}. (TwoPhaseCommitSinkFunction, which the card cites,
 *       is the same protocol in the API Flink 2.0 made legacy.)
 *   <li>{@code RunJob}: this job. Its checkpoints are Flink's (stage 04), and its replayable source
 *       with offsets is Flink's too: every source stores its position in the checkpoint.
 *   <li>{@code CheckpointEvery}: {@code enableCheckpointing(interval)}, in ms of processing time
 *       rather than a count of source events. A bounded job takes a final checkpoint when its
 *       tasks finish, so the last results are committed before it ends, as after the course's
 *       {@code Flush}.
 * </ul>
 *
 * <p>Why write a sink rather than use Flink's FileSink: FileSink's part files, rolling policies
 * and recoverable writers hide the four steps the stage is about; this one is those steps and
 * little else. In production use FileSink (or a KafkaSink with {@code
 * DeliveryGuarantee.EXACTLY_ONCE}, one Kafka transaction per checkpoint).
 *
 * <p>What differs (docs/PARITY.md): Flink's JobManager stores checkpoints and notifies the
 * committers asynchronously, and never reuses a checkpoint ID; the course's job does everything in
 * one process, in line. The course deletes a crashed attempt's staged transaction on recovery; this
 * sink leaves it in {@code .pending}, where no reader looks.
 */
public final class Stage05TwoPhaseCommit {
  private Stage05TwoPhaseCommit() {}

  /**
   * The job's settings: stage 03's, the checkpoint interval (ms of processing time), and the
   * folder the sink commits into ("" for a new temporary one).
   */
  public record Config(
      long windowSize, long watermarkDelay, long allowedLateness, long checkpointInterval, String dir, Emit watermarks) {
    /** The demo's: windows of 10 ms, a checkpoint every 100 ms, a new temporary folder. */
    public static final Config DEFAULTS = new Config(10, 0, 0, 100, "", Emit.PER_EVENT);

    public Config {
      if (checkpointInterval < 10) {
        throw new IllegalArgumentException("checkpoint interval must be at least 10 ms, got " + checkpointInterval);
      }
      new Stage03Lateness.Config(windowSize, watermarkDelay, allowedLateness, watermarks); // checks them
    }
  }

  /**
   * Runs the job on env over the input; returns the results committed in the sink's folder, read
   * back, and the late events.
   */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    boolean temporary = cfg.dir().isEmpty();
    Path dir = temporary ? Files.createTempDirectory("flk-byo-2pc-") : Files.createDirectories(Path.of(cfg.dir()));
    try {
      return run(env, input, cfg, dir);
    } finally {
      if (temporary) {
        FileUtils.deleteDirectory(dir.toFile());
      }
    }
  }

  private static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg, Path dir) throws Exception {

    // Two-phase commit rides on checkpoints: pre-commit at the barrier, commit on completion.
    env.enableCheckpointing(cfg.checkpointInterval(), CheckpointingMode.EXACTLY_ONCE);

    var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), 0);
    SingleOutputStreamOperator<Result> windows = Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness());
    windows.sinkTo(new TwoPhaseCommitFileSink(dir)).name("two-phase-commit files");

    Collect<Event> late = Collect.of(windows.getSideOutput(Events.LATE));
    Collect.execute(env, "stage 05: two-phase commit", late);
    return new Output(TwoPhaseCommitFileSink.readCommitted(dir), late.get());
  }

  /**
   * Reads events on stdin, prints the committed results and the late events on stdout; see {@link
   * JobMain}. With {@code --dir} the committed files stay there.
   */
  public static void main(String[] args) {
    JobMain.main("Stage05TwoPhaseCommit", args, Config.DEFAULTS, Stage05TwoPhaseCommit::run);
  }
}
