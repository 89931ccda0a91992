package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;

/**
 * Stage 09, sliding windows: windows of {@code Size} starting every {@code Slide}, so an event
 * counts in several, each of which fires, takes corrections and expires on its own.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code AssignSlidingWindows(ts, size, slide)}: {@code SlidingEventTimeWindows.of(size,
 *       slide)}, whose {@code assignWindows} starts at {@code getWindowStartWithOffset(ts, 0,
 *       slide)} and steps back by {@code slide} while {@code start > ts − size}. With {@code slide
 *       > size} an event may fall in a gap, in no window.
 *   <li>{@code SlidingProcessor.Process}: the WindowOperator judges each of the event's windows on
 *       its own: one past its cleanup time skips the event, a fired one fires again at once
 *       (corrected, {@link WindowResult} marks it an update), an open one counts it. Only an event
 *       that every window skipped, and whose {@code ts + allowedLateness ≤ watermark}, goes to the
 *       side output: an event in a gap is late only by that test, as in the course.
 *   <li>One tally per (key, window): an event costs {@code size/slide} state updates. Flink SQL's
 *       {@code HOP} window slices instead (one update per event, a merge of slices per firing).
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): as stage 01. Near {@code Long.MIN_VALUE} Flink's arithmetic
 * wraps where the course saturates.
 */
public final class Stage09Sliding {
  private Stage09Sliding() {}

  /** The job's settings: the course's SlidingConfig, and when watermarks are emitted. */
  public record Config(long size, long slide, long watermarkDelay, long allowedLateness, Emit watermarks) {
    /** The demo's: windows of 10 ms every 4 ms, allowed lateness 2. */
    public static final Config DEFAULTS = new Config(10, 4, 0, 2, Emit.PER_EVENT);

    public Config {
      if (size <= 0 || slide <= 0 || watermarkDelay < 0 || allowedLateness < 0) {
        throw new IllegalArgumentException(
            "need size > 0, slide > 0, watermark delay ≥ 0, allowed lateness ≥ 0; got "
                + size + ", " + slide + ", " + watermarkDelay + ", " + allowedLateness);
      }
    }
  }

  /** Runs the job on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    WatermarkStrategy<Event> watermarks =
        cfg.watermarks()
            .<Event>forBoundedOutOfOrderness(Duration.ofMillis(cfg.watermarkDelay()))
            .withTimestampAssigner((event, recordTimestamp) -> event.ts());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, watermarks), 0);

    SingleOutputStreamOperator<Result> windows =
        events
            .keyBy(Event::key)
            .window(SlidingEventTimeWindows.of(Duration.ofMillis(cfg.size()), Duration.ofMillis(cfg.slide())))
            .allowedLateness(Duration.ofMillis(cfg.allowedLateness()))
            .sideOutputLateData(Events.LATE)
            .aggregate(new CountAndSum(), new WindowResult())
            .name("sliding windows");
    return Output.collect(env, "stage 09: sliding windows", windows);
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage09Sliding", args, Config.DEFAULTS, Stage09Sliding::run);
  }
}
