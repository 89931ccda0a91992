package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * Stage 07, idleness: several source partitions, each with its own watermark, and windows that
 * follow the minimum of them; a partition that has gone quiet stops holding them back.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code Watermarks} with {@code Partitions}: one watermark generator per partition. A
 *       Kafka source runs one per partition (split) inside its reader and combines them with
 *       WatermarkOutputMultiplexer; here each partition is a bounded source of its own, and the
 *       operator they feed combines them at its input (StatusWatermarkValve): the minimum over the
 *       inputs that are not idle, never going back. The two follow the same rule, but for how a
 *       partition that was idle rejoins (stage 07's card says how they differ).
 *   <li>{@code OutOfOrderness}: {@code forBoundedOutOfOrderness}, per partition.
 *   <li>{@code IdleTimeout}: {@code withIdleness(timeout)}, which wraps each generator in
 *       WatermarksWithIdleness: with no event for the timeout, in processing time, the partition
 *       is marked idle and leaves the minimum; its next event brings it back.
 *   <li>{@code NewUpstreamProcessor}: the window operator, which never makes watermarks of its own:
 *       it follows the combined one.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): Flink checks idleness only at its periodic emits, every 200
 * ms, and marks a partition idle once more than the timeout has passed; the course measures from
 * the last event exactly. Above all, idleness is measured in processing time, and a file read at
 * full speed has none: every partition speaks within milliseconds and then ends, and an ended
 * partition no longer holds the watermark back. So on a finite input this job gives the results of
 * no idleness at all, whatever the timeout; the course's demo, whose arrivals are spread over 9
 * seconds of a manual clock, shows what happens when a live partition goes quiet. The tests
 * reproduce that with a partition that speaks once and never ends.
 *
 * <p>Events go to partitions by key, {@code floorMod(key.hashCode(), partitions)}, as Kafka's
 * default partitioner sends a keyed record to a partition by a hash of its key.
 */
public final class Stage07Idleness {
  private Stage07Idleness() {}

  /**
   * The job's settings: the window size, the partitions, their out-of-orderness, and the idle
   * timeout in ms of processing time (0: none).
   */
  public record Config(long windowSize, int partitions, long outOfOrderness, long idleTimeout, Emit watermarks) {
    /** The demo's: windows of 10 ms, 2 partitions in order, idle after 5 s. */
    public static final Config DEFAULTS = new Config(10, 2, 0, 5000, Emit.PER_EVENT);

    public Config {
      if (windowSize <= 0 || partitions < 1 || outOfOrderness < 0 || idleTimeout < 0) {
        throw new IllegalArgumentException(
            "need window size > 0, partitions ≥ 1, out-of-orderness ≥ 0, idle timeout ≥ 0; got "
                + windowSize + ", " + partitions + ", " + outOfOrderness + ", " + idleTimeout);
      }
    }

    /** Each partition's watermarks: out-of-orderness per partition, and idleness. */
    public WatermarkStrategy<Event> watermarkStrategy() {
      WatermarkStrategy<Event> s =
          watermarks()
              .<Event>forBoundedOutOfOrderness(Duration.ofMillis(outOfOrderness))
              .withTimestampAssigner((event, recordTimestamp) -> event.ts());
      return idleTimeout == 0 ? s : s.withIdleness(Duration.ofMillis(idleTimeout));
    }
  }

  /** Returns the partition an event goes to. */
  public static int partitionOf(Event e, int partitions) {
    return Math.floorMod(e.key().hashCode(), partitions);
  }

  /** Runs the job on env over the input, split into partitions, and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    List<List<Event>> parts = new ArrayList<>();
    for (int i = 0; i < cfg.partitions(); i++) {
      parts.add(new ArrayList<>());
    }
    input.forEach(e -> parts.get(partitionOf(e, cfg.partitions())).add(e));

    DataStream<Event> events = null;
    for (List<Event> part : parts) {
      DataStream<Event> p = Events.from(env, part, cfg.watermarkStrategy());
      events = events == null ? p : events.union(p);
    }
    return Output.collect(env, "stage 07: idleness", windows(events, cfg));
  }

  /**
   * The windows over the partitions' union, which follow the minimum of their watermarks: stage
   * 01's, after dedup.
   */
  public static SingleOutputStreamOperator<Result> windows(DataStream<Event> partitions, Config cfg) {
    return DedupById.dropRedeliveries(partitions, 0)
        .keyBy(Event::key)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(cfg.windowSize())))
        .sideOutputLateData(Events.LATE)
        .aggregate(new CountAndSum(), new WindowResult())
        .name("tumbling windows");
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage07Idleness", args, Config.DEFAULTS, Stage07Idleness::run);
  }
}
