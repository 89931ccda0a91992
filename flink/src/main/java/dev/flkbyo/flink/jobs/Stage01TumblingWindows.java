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
 * Stage 01, event-time tumbling windows: count and sum the events per key in tumbling windows of
 * event time, fired by the watermark, with late events in a side output.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code AssignWindow(ts, size)}: {@code TumblingEventTimeWindows.of(size)}, whose windows
 *       start at {@code TimeWindow.getWindowStartWithOffset(ts, 0, size)}, floored for negative
 *       timestamps too.
 *   <li>The watermark, {@code max − WatermarkDelay}: {@code
 *       WatermarkStrategy.forBoundedOutOfOrderness(WatermarkDelay)}, whose generator emits {@code
 *       max − delay − 1}; Flink fires a window at {@code end − 1}, the course at {@code end}: the
 *       same moment.
 *   <li>{@code Process} and {@code AdvanceWatermark}: the WindowOperator that {@code
 *       keyBy(key).window(...).aggregate(...)} builds, with an EventTimeTrigger per window.
 *   <li>The per-key count and sum: {@link CountAndSum}, and {@link WindowResult} for the Result.
 *   <li>{@code Late()}: {@code sideOutputLateData(LATE)}; without it Flink drops late events and
 *       only counts them in a metric.
 *   <li>{@code Flush}: the end of the bounded input, where Flink sends a {@code Long.MAX_VALUE}
 *       watermark.
 *   <li>Dedup by ID: {@link DedupById}, a step of its own before the windows.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): Flink emits results one by one, not one sorted slice per call;
 * it deduplicates only because this job asks it to; and with {@link Emit#PERIODIC} watermarks it
 * judges lateness by the last periodic watermark, not by one raised after every event.
 */
public final class Stage01TumblingWindows {
  private Stage01TumblingWindows() {}

  /**
   * The job's settings: the course's Config (AllowedLateness comes in stage 03) and when
   * watermarks are emitted.
   */
  public record Config(long windowSize, long watermarkDelay, Emit watermarks) {
    /** The demo's: windows of 10 ms, watermark 5 ms behind, emitted after every event. */
    public static final Config DEFAULTS = new Config(10, 5, Emit.PER_EVENT);

    public Config {
      if (windowSize <= 0) {
        throw new IllegalArgumentException("window size must be positive, got " + windowSize);
      }
      if (watermarkDelay < 0) {
        throw new IllegalArgumentException("watermark delay must not be negative, got " + watermarkDelay);
      }
    }
  }

  /** Runs the job on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    // Event time from each event's ts; the watermark trails the highest ts by the delay.
    WatermarkStrategy<Event> watermarks =
        cfg.watermarks()
            .<Event>forBoundedOutOfOrderness(Duration.ofMillis(cfg.watermarkDelay()))
            .withTimestampAssigner((event, recordTimestamp) -> event.ts());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, watermarks), 0);

    SingleOutputStreamOperator<Result> windows =
        events
            .keyBy(Event::key)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(cfg.windowSize())))
            .sideOutputLateData(Events.LATE)
            .aggregate(new CountAndSum(), new WindowResult())
            .name("tumbling windows");
    return Output.collect(env, "stage 01: tumbling windows", windows);
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage01TumblingWindows", args, Config.DEFAULTS, Stage01TumblingWindows::run);
  }
}
