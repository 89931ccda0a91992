package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.streaming.api.operators.source.TimestampsAndWatermarks;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.clock.ManualClock;

/**
 * Runs an idleness scenario (kind "idleness") through the event-time logic of Flink's FLIP-27
 * source operator: TimestampsAndWatermarks.createProgressiveEventTimeLogic, as SourceOperator
 * builds it, that is ProgressiveTimestampsAndWatermarks with one split output per partition, each
 * with its own generator from {@code forBoundedOutOfOrderness(d).withIdleness(t)}
 * (BoundedOutOfOrdernessWatermarks wrapped in WatermarksWithIdleness), combined by a
 * WatermarkOutputMultiplexer into the watermark the source hands downstream.
 *
 * <p>Processing time is a ManualClock, the RelativeClock of every split (through the split's
 * PausableRelativeClock, never paused here), so nothing depends on the wall clock. The periodic
 * emit that a running source schedules every pipeline.auto-watermark-interval is called here by
 * hand (emitImmediateWatermark, the method the schedule calls): once when the source starts, twice
 * at the instant of every event and once after every clock step. Flink checks idleness only on
 * those emits (IdlenessTimer.checkIfIdle: a check that sees new events resets the countdown, the
 * next check without new events starts it, and the split is idle once strictly more than the
 * timeout has passed since); emitting that often is an emit interval shrunk to zero, under which
 * the countdown starts at the last event, as the course's does.
 */
final class IdlenessRun {
  /**
   * Where the clock starts, in nanoseconds. IdlenessTimer takes a countdown start of 0 for "not
   * started", so a clock reading 0 at a check would restart the countdown at the next one.
   */
  static final long START_NANOS = 1_000_000_000L;

  private IdlenessRun() {}

  /**
   * The source's settings.
   *
   * @param partitions the number of splits, named "0", "1", …
   * @param outOfOrderness the bound of BoundedOutOfOrdernessWatermarks, in milliseconds
   * @param idleTimeoutNanos withIdleness's timeout, in nanoseconds; 0 for no withIdleness
   */
  record Spec(int partitions, long outOfOrderness, long idleTimeoutNanos) {}

  /**
   * One operation: "observe" (split {@code partition} delivers a record with timestamp
   * {@code ts}) or "advance" (processing time moves on by {@code nanos}).
   */
  record Op(String op, int partition, long ts, long nanos) {}

  /**
   * The source after one operation.
   *
   * @param watermark the highest watermark the source handed downstream (Long.MIN_VALUE: none)
   * @param idle each split's idleness as the multiplexer holds it
   * @param partitionWatermarks each split's watermark as the multiplexer holds it
   * @param sourceIdle whether the source's output last announced IDLE downstream
   */
  record Step(long watermark, List<Boolean> idle, List<Long> partitionWatermarks, boolean sourceIdle) {}

  /** Runs an "idleness" scenario for the Runner: spec is a Spec, ops a list of Ops. */
  static List<Step> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(json.treeToValue(spec, Spec.class), json.convertValue(ops, new TypeReference<List<Op>>() {}));
  }

  /** Runs the scenario and returns one Step per operation. */
  static List<Step> run(Spec s, List<Op> ops) {
    var source = new Source(s);
    source.emit(); // the first check: every split's countdown starts when the source does
    List<Step> steps = new ArrayList<>(ops.size());
    for (Op o : ops) {
      switch (o.op()) {
        case "observe" -> {
          source.observe(o.partition(), o.ts());
          source.emit(); // sees the event: the split is active, its countdown reset
          source.emit(); // sees none since: the countdown starts at the event
        }
        case "advance" -> {
          source.advance(o.nanos());
          source.emit();
        }
        default -> throw new IllegalArgumentException("unknown op " + o.op());
      }
      steps.add(source.step());
    }
    return steps;
  }

  /**
   * A source's event-time logic, built as SourceOperator builds it, with one split per partition
   * and a manual clock; it emits only when told to.
   */
  static final class Source {
    private final ManualClock clock = new ManualClock(START_NANOS);
    private final TimestampsAndWatermarks<Long> logic;
    private final Downstream downstream;
    private final List<SourceOutput<Long>> splits;

    Source(Spec s) {
      if (s.partitions() < 1) {
        throw new IllegalArgumentException("partitions must be at least 1, got " + s.partitions());
      }
      WatermarkStrategy<Long> strategy =
          WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(s.outOfOrderness()));
      if (s.idleTimeoutNanos() > 0) {
        strategy = strategy.withIdleness(Duration.ofNanos(s.idleTimeoutNanos()));
      }
      logic =
          TimestampsAndWatermarks.createProgressiveEventTimeLogic(
              strategy,
              new UnregisteredMetricsGroup(),
              null, // the processing-time service only schedules the periodic emits: emit() is called by hand
              200,
              clock,
              clock,
              UnregisteredMetricGroups.createUnregisteredTaskMetricGroup().getIOMetricGroup());
      downstream = new Downstream(s.partitions());
      ReaderOutput<Long> main = logic.createMainOutput(downstream, downstream);
      splits = new ArrayList<>(s.partitions());
      for (int i = 0; i < s.partitions(); i++) {
        splits.add(main.createOutputForSplit(Integer.toString(i)));
      }
    }

    /** Split {@code partition} delivers a record with timestamp {@code ts}. */
    void observe(int partition, long ts) {
      splits.get(partition).collect(ts, ts);
    }

    /** Processing time moves on by {@code nanos}. */
    void advance(long nanos) {
      if (nanos < 0) {
        throw new IllegalArgumentException("processing time never goes back: advance " + nanos);
      }
      Math.addExact(clock.relativeTimeNanos(), nanos); // the clock must not wrap
      clock.advanceTime(Duration.ofNanos(nanos));
    }

    /** One periodic emit: the method a running source's periodic schedule calls. */
    void emit() {
      logic.emitImmediateWatermark(clock.absoluteTimeMillis());
    }

    /** The source as it stands. */
    Step step() {
      return downstream.step();
    }
  }

  /**
   * What the source hands downstream (its DataOutput), and what it reports of each split (its
   * WatermarkUpdateListener, fed by the multiplexer's per-split state).
   */
  private static final class Downstream
      implements PushingAsyncDataInput.DataOutput<Long>, TimestampsAndWatermarks.WatermarkUpdateListener {
    private long watermark = Long.MIN_VALUE;
    private boolean sourceIdle;
    private final Boolean[] idle;
    private final Long[] partitionWatermarks;

    Downstream(int partitions) {
      idle = new Boolean[partitions];
      Arrays.fill(idle, false);
      partitionWatermarks = new Long[partitions];
      Arrays.fill(partitionWatermarks, Long.MIN_VALUE);
    }

    Step step() {
      return new Step(watermark, List.of(idle), List.of(partitionWatermarks), sourceIdle);
    }

    @Override
    public void emitRecord(StreamRecord<Long> r) {}

    @Override
    public void emitWatermark(Watermark w) {
      if (w.getTimestamp() <= watermark) {
        throw new IllegalStateException("the source emitted watermark " + w.getTimestamp() + " after " + watermark);
      }
      watermark = w.getTimestamp();
    }

    @Override
    public void emitWatermarkStatus(WatermarkStatus status) {
      sourceIdle = status.isIdle();
    }

    @Override
    public void emitLatencyMarker(LatencyMarker m) {}

    @Override
    public void emitRecordAttributes(RecordAttributes a) {}

    @Override
    public void emitWatermark(WatermarkEvent e) {}

    @Override
    public void updateIdle(boolean idle) {}

    @Override
    public void updateCurrentEffectiveWatermark(long watermark) {}

    @Override
    public void updateCurrentSplitWatermark(String split, long watermark) {
      partitionWatermarks[Integer.parseInt(split)] = watermark;
    }

    @Override
    public void updateCurrentSplitIdle(String split, boolean idle) {
      this.idle[Integer.parseInt(split)] = idle;
    }

    @Override
    public void splitFinished(String split) {}
  }
}
