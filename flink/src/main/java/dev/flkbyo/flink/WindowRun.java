package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperatorBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Runs a window scenario through Flink's own WindowOperator (built by WindowOperatorBuilder, as
 * {@code keyBy(...).window(...).aggregate(...)} builds it), driven one operation at a time by
 * Flink's operator test harness, with the watermark made by Flink's own
 * BoundedOutOfOrdernessWatermarks.
 *
 * <p>After each event the generator is asked for a watermark, as if its periodic emit (every 200 ms
 * by default) fell between every two events; a watermark is passed on only when it is higher than
 * the last, as TimestampsAndWatermarksOperator passes them on.
 *
 * <p>Session windows are EventTimeSessionWindows wrapped in MergeLog, which records the merges
 * the operator's MergingWindowSet makes, so that each step also says which windows merged.
 */
final class WindowRun {
  static final TypeInformation<Event> EVENT = TypeInformation.of(Event.class);
  static final OutputTag<Event> LATE = new OutputTag<>("late", EVENT);
  private static final KeySelector<Event, String> BY_KEY = Event::key;

  private WindowRun() {}

  /** Runs a "window" scenario for the Runner: spec is a WindowSpec, ops a list of Ops. */
  static List<Step> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(
        new Scenario(
            json.treeToValue(spec, Scenario.WindowSpec.class),
            json.convertValue(ops, new TypeReference<List<Scenario.Op>>() {})));
  }

  /** Runs the scenario and returns one Step per operation. */
  static List<Step> run(Scenario s) throws Exception {
    Scenario.WindowSpec w = s.window();
    WindowAssigner<Object, TimeWindow> assigner = assigner(w);
    MergeLog merges = assigner instanceof MergeLog m ? m : null;
    WindowOperatorBuilder<Event, String, TimeWindow> builder =
        new WindowOperatorBuilder<>(
            assigner, EventTimeTrigger.create(), new ExecutionConfig(), EVENT, BY_KEY, Types.STRING);
    builder.allowedLateness(Duration.ofMillis(w.lateness()));
    builder.sideOutputLateData(LATE);
    OneInputStreamOperator<Event, Result> op =
        builder.aggregate(
            new CountAndSum(), new Emit(w.assigner().equals("session")), Types.TUPLE(Types.LONG, Types.LONG));

    var watermarks = new BoundedOutOfOrdernessWatermarks<Event>(Duration.ofMillis(w.delay()));
    try (var h = new KeyedOneInputStreamOperatorTestHarness<>(op, BY_KEY, Types.STRING)) {
      h.open();
      var emitted = new Emitted(h);
      List<Step> steps = new ArrayList<>();
      for (Scenario.Op o : s.ops()) {
        String key = null; // the key whose windows this operation may merge
        switch (o.op()) {
          case "event" -> {
            Event e = o.event();
            key = e.key();
            h.processElement(new StreamRecord<>(e, e.ts()));
            if (w.eventWatermarks()) {
              watermarks.onEvent(e, e.ts(), emitted);
              watermarks.onPeriodicEmit(emitted);
            }
          }
          case "watermark" -> emitted.emitWatermark(new org.apache.flink.api.common.eventtime.Watermark(o.wm()));
          case "end" -> emitted.emitWatermark(new org.apache.flink.api.common.eventtime.Watermark(Long.MAX_VALUE));
          default -> throw new IllegalArgumentException("unknown op " + o.op());
        }
        steps.add(emitted.step(merges == null ? List.of() : merges.drain(key)));
      }
      return steps;
    }
  }

  static WindowAssigner<Object, TimeWindow> assigner(Scenario.WindowSpec w) {
    return switch (w.assigner()) {
      case "tumbling" -> TumblingEventTimeWindows.of(Duration.ofMillis(w.size()));
      case "sliding" -> SlidingEventTimeWindows.of(Duration.ofMillis(w.size()), Duration.ofMillis(w.slide()));
      case "session" -> new MergeLog(EventTimeSessionWindows.withGap(Duration.ofMillis(w.gap())));
      default -> throw new IllegalArgumentException("unknown window assigner " + w.assigner());
    };
  }

  /**
   * The watermark output between the generator and the operator, and the collector of what the
   * operator emits step by step.
   */
  private static final class Emitted implements WatermarkOutput {
    private final KeyedOneInputStreamOperatorTestHarness<String, Event, Result> h;
    private long watermark = Long.MIN_VALUE; // the highest passed to the operator
    private long passedOn = Long.MIN_VALUE; // the highest the operator passed on
    private int lateSeen;

    Emitted(KeyedOneInputStreamOperatorTestHarness<String, Event, Result> h) {
      this.h = h;
    }

    @Override
    public void emitWatermark(org.apache.flink.api.common.eventtime.Watermark wm) {
      if (wm.getTimestamp() <= watermark) {
        return; // watermarks never go back, nor repeat
      }
      watermark = wm.getTimestamp();
      try {
        h.processWatermark(new Watermark(watermark));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    /** Drains what the operator emitted since the last step; merges are the step's merges. */
    Step step(List<Merge> merges) {
      List<Result> results = new ArrayList<>();
      Queue<Object> q = h.getOutput();
      for (Object o; (o = q.poll()) != null; ) {
        if (o instanceof StreamRecord<?> r) {
          results.add((Result) r.getValue());
        } else if (o instanceof Watermark m) {
          passedOn = m.getTimestamp();
        }
      }
      List<Event> late = new ArrayList<>();
      var side = h.getSideOutput(LATE);
      if (side != null) {
        int i = 0;
        for (StreamRecord<Event> r : side) {
          if (i++ >= lateSeen) {
            late.add(r.getValue());
          }
        }
        lateSeen = i;
      }
      return new Step(results, late, passedOn, merges);
    }
  }

  /** Counts and sums a window's values as they arrive: Flink's incremental aggregation. */
  static final class CountAndSum implements AggregateFunction<Event, Tuple2<Long, Long>, Tuple2<Long, Long>> {
    @Override
    public Tuple2<Long, Long> createAccumulator() {
      return Tuple2.of(0L, 0L);
    }

    @Override
    public Tuple2<Long, Long> add(Event e, Tuple2<Long, Long> acc) {
      return Tuple2.of(acc.f0 + 1, acc.f1 + e.value());
    }

    @Override
    public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
      return acc;
    }

    @Override
    public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
      return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
    }
  }

  /**
   * Emits a window's count and sum, marking a firing an update when the window fired for this key
   * before (per-window state, which merging windows do not have: their firings are never marked).
   */
  static final class Emit extends ProcessWindowFunction<Tuple2<Long, Long>, Result, String, TimeWindow> {
    private static final ValueStateDescriptor<Boolean> FIRED = new ValueStateDescriptor<>("fired", Types.BOOLEAN);
    private final boolean merging;

    Emit(boolean merging) {
      this.merging = merging;
    }

    @Override
    public void process(String key, Context ctx, Iterable<Tuple2<Long, Long>> acc, Collector<Result> out)
        throws Exception {
      Tuple2<Long, Long> a = acc.iterator().next();
      boolean update = false;
      if (!merging) {
        ValueState<Boolean> fired = ctx.windowState().getState(FIRED);
        update = fired.value() != null;
        fired.update(true);
      }
      out.collect(new Result(key, ctx.window().getStart(), ctx.window().getEnd(), a.f0, a.f1, update));
    }

    @Override
    public void clear(Context ctx) throws Exception {
      if (!merging) {
        ctx.windowState().getState(FIRED).clear();
      }
    }
  }
}
