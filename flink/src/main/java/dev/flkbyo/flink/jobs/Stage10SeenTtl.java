package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Stage 10, seen IDs with a TTL: stage 03's job, whose dedup forgets an ID once the watermark is
 * {@code seenTtl} past the event's timestamp, so its state stays bounded however long it runs.
 *
 * <p>What the learner's Go code is in Flink: {@code NewSeenTTLProcessor(cfg, seenTTL)} is {@link
 * DedupById} with a TTL: keyed by ID, a {@code ValueState<Boolean>} "seen", and an event-time
 * timer at {@code ts + seenTtl} (in Flink's watermark, one below the course's) whose {@code onTimer}
 * clears it. The timers are keyed state too, checkpointed per key group with the rest. {@code
 * RememberedIDs()} is the number of keys with a "seen" value; Flink has no call for it (the State
 * Processor API can count them in a savepoint).
 *
 * <p>Why not Flink's own state TTL: {@code StateTtlConfig} expires state in processing time only
 * ({@code TtlTimeCharacteristic} has just {@code ProcessingTime}; event-time TTL is FLINK-12005).
 * Processing time makes what is forgotten depend on how fast events arrive and how fast a restarted
 * job replays: a redelivery could then be counted twice. An event-time timer ties forgetting to the
 * watermark, as the course does, and with {@code seenTtl ≥ windowSize + allowedLateness} (the
 * stage's "line") no ID is forgotten before its window has expired: a redelivery after that is late
 * anyway, and no result changes.
 *
 * <p>What differs (docs/PARITY.md): as stage 01.
 */
public final class Stage10SeenTtl {
  private Stage10SeenTtl() {}

  /** The job's settings: stage 03's, and the seen TTL (0: remember every ID forever). */
  public record Config(long windowSize, long watermarkDelay, long allowedLateness, long seenTtl, Emit watermarks) {
    /** The demo's: windows of 10 ms, allowed lateness 5, a seen TTL on the line, 15. */
    public static final Config DEFAULTS = new Config(10, 0, 5, 15, Emit.PER_EVENT);

    public Config {
      if (seenTtl < 0) {
        throw new IllegalArgumentException("seen TTL must not be negative, got " + seenTtl);
      }
      new Stage03Lateness.Config(windowSize, watermarkDelay, allowedLateness, watermarks); // checks them
    }
  }

  /** Runs the job on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), cfg.seenTtl());
    return Output.collect(env, "stage 10: seen TTL", Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness()));
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage10SeenTtl", args, Config.DEFAULTS, Stage10SeenTtl::run);
  }
}
