package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * Stage 03, allowed lateness: stage 01's windows keep their state {@code AllowedLateness} longer
 * after they fire, and an event for a fired window within it fires the window again, corrected.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code AllowedLateness}: {@code WindowedStream#allowedLateness(Duration)}. The
 *       WindowOperator keeps a window until its cleanup time, {@code maxTimestamp +
 *       allowedLateness} ({@code Long.MAX_VALUE} on overflow, as the course saturates); at that
 *       watermark a timer clears its state. With Flink's watermark one below the course's, that is
 *       the course's "watermark ≥ end + AllowedLateness".
 *   <li>A correction: EventTimeTrigger fires at once for an element whose window's {@code
 *       maxTimestamp ≤ watermark}, and FIRE does not purge, so the window function sees the whole
 *       corrected tally: {@link WindowResult} emits it with {@code update} set, from per-window
 *       state, since Flink does not mark late firings itself.
 *   <li>{@code Late()}: an element all of whose windows are past their cleanup time goes to {@code
 *       sideOutputLateData}.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): as stage 01. With {@link Emit#PERIODIC} watermarks, whether an
 * event is a correction, part of the first firing, or late depends on when the last watermark was
 * emitted; what a downstream holds in the end (each window's last result) does not, as long as no
 * event was late at the per-event watermark.
 */
public final class Stage03Lateness {
  private Stage03Lateness() {}

  /** The job's settings: the course's Config, and when watermarks are emitted. */
  public record Config(long windowSize, long watermarkDelay, long allowedLateness, Emit watermarks) {
    /** The demo's: windows of 10 ms, no watermark delay, allowed lateness 10. */
    public static final Config DEFAULTS = new Config(10, 0, 10, Emit.PER_EVENT);

    public Config {
      if (windowSize <= 0) {
        throw new IllegalArgumentException("window size must be positive, got " + windowSize);
      }
      if (watermarkDelay < 0 || allowedLateness < 0) {
        throw new IllegalArgumentException(
            "watermark delay and allowed lateness must not be negative, got " + watermarkDelay + " and " + allowedLateness);
      }
    }

    /** Event time from each event's ts; the watermark trails the highest ts by the delay. */
    public WatermarkStrategy<Event> watermarkStrategy() {
      return watermarks()
          .<Event>forBoundedOutOfOrderness(Duration.ofMillis(watermarkDelay))
          .withTimestampAssigner((event, recordTimestamp) -> event.ts());
    }
  }

  /**
   * The windows of stages 01 and 03, with allowed lateness, on events already deduplicated: the
   * result stream, whose {@code getSideOutput(Events.LATE)} holds the late events. Stages 04, 05,
   * 06, 10 and 12 build on it.
   */
  public static SingleOutputStreamOperator<Result> windows(DataStream<Event> events, long windowSize, long allowedLateness) {
    return events
        .keyBy(Event::key)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(windowSize)))
        .allowedLateness(Duration.ofMillis(allowedLateness))
        .sideOutputLateData(Events.LATE)
        .aggregate(new CountAndSum(), new WindowResult())
        .name("tumbling windows with allowed lateness");
  }

  /** Runs the job on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, cfg.watermarkStrategy()), 0);
    SingleOutputStreamOperator<Result> windows = windows(events, cfg.windowSize(), cfg.allowedLateness());
    return Output.collect(env, "stage 03: allowed lateness", windows);
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage03Lateness", args, Config.DEFAULTS, Stage03Lateness::run);
  }
}
