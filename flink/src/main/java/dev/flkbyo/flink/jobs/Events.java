package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;

/** The jobs' input: a finite list of the course's events as a Flink stream. */
public final class Events {
  /** Flink's type for the course's Event record. */
  public static final TypeInformation<Event> TYPE = TypeInformation.of(Event.class);

  /** The side output of late events: {@code sideOutputLateData(LATE)}, the course's Late(). */
  public static final OutputTag<Event> LATE = new OutputTag<>("late", TYPE);

  private Events() {}

  /**
   * Returns the events as a bounded stream, in list order, with timestamps and watermarks from the
   * strategy; at its end Flink sends the final {@code Long.MAX_VALUE} watermark, the course's
   * {@code Flush}.
   *
   * <p>{@code fromData}'s source has one reader, and the watermarks are made right behind it, with
   * parallelism 1 too: one generator sees every event in input order, as the course's processor
   * does. (At a higher parallelism the events would be spread round-robin over several generators,
   * each seeing a part, and the watermark downstream would be the lowest of theirs.) A job reading
   * Kafka would instead pass the strategy to {@code env.fromSource}, which runs one generator per
   * partition (stage 07).
   */
  public static DataStream<Event> from(
      StreamExecutionEnvironment env, List<Event> input, WatermarkStrategy<Event> watermarks) {
    return timed(env.fromData(input, TYPE).name("events"), watermarks);
  }

  /**
   * Returns the events of a source with timestamps and watermarks from the strategy, made right
   * behind it at parallelism 1, as {@link #from} makes them: for a job that reads its events from
   * a source of its own (the benchmark's, dev.flkbyo.flink.bench.WindowBench).
   */
  public static DataStream<Event> timed(DataStream<Event> source, WatermarkStrategy<Event> watermarks) {
    return source.assignTimestampsAndWatermarks(watermarks).name("timestamps and watermarks").setParallelism(1);
  }
}
