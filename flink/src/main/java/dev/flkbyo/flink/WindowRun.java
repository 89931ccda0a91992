package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
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
 * the last, as TimestampsAndWatermarksOperator passes them on (see {@link Upstream}).
 *
 * <p>The operator keeps its keyed state and timers in the spec's state backend (StateBackends).
 * A "restore" operation takes the harness's snapshot (an OperatorSubtaskState: the keyed state and
 * the timers, as a checkpoint holds them), closes it, and carries on with a new operator in a new
 * harness initialized from that snapshot. The new operator starts without a watermark, as a
 * restored Flink operator does; the runner passes it the last watermark at once, as if the
 * snapshot held it, so that the run can be compared with an uninterrupted one. The watermark
 * generator is the runner's, not the operator's, and goes on across a restore. The new harness's
 * side output starts empty.
 *
 * <p>Session windows are EventTimeSessionWindows wrapped in MergeLog, which records the merges
 * the operator's MergingWindowSet makes, so that each step also says which windows merged.
 */
final class WindowRun {
  static final TypeInformation<Event> EVENT = TypeInformation.of(Event.class);
  static final OutputTag<Event> LATE = new OutputTag<>("late", EVENT);
  static final KeySelector<Event, String> BY_KEY = Event::key;

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
    var watermarks = new BoundedOutOfOrdernessWatermarks<Event>(Duration.ofMillis(w.delay()));
    try (var backends = StateBackends.of(w.backend())) {
      var h = new Harness[] {harness(w, backends)}; // the current one: a restore replaces it
      try {
        h[0].open();
        var upstream = new Upstream(wm -> h[0].processWatermark(new Watermark(wm)));
        var out = new Outputs.Collected<Result>();
        long checkpoints = 0;
        List<Step> steps = new ArrayList<>();
        for (Scenario.Op o : s.ops()) {
          String key = null; // the key whose windows this operation may merge
          switch (o.op()) {
            case "event" -> {
              Event e = o.event();
              key = e.key();
              h[0].processElement(new StreamRecord<>(e, e.ts()));
              if (w.eventWatermarks()) {
                watermarks.onEvent(e, e.ts(), upstream);
                watermarks.onPeriodicEmit(upstream);
              }
            }
            case "watermark" -> upstream.advance(o.wm());
            case "end" -> upstream.advance(Long.MAX_VALUE);
            case "restore" -> {
              checkpoints++;
              OperatorSubtaskState snapshot = h[0].snapshot(checkpoints, checkpoints);
              Harness old = h[0];
              h[0] = null;
              old.close();
              h[0] = harness(w, backends);
              h[0].initializeState(snapshot);
              h[0].open();
              // Flink's snapshot holds no watermark (InternalTimerServiceImpl starts at
              // Long.MIN_VALUE, restored or not): pass the restored operator the last one at once,
              // as if the snapshot held it.
              if (upstream.last() != Long.MIN_VALUE) {
                h[0].processWatermark(new Watermark(upstream.last()));
              }
            }
            default -> throw new IllegalArgumentException("unknown op " + o.op());
          }
          Outputs.forward(h[0], out);
          steps.add(new Step(out.take(), Outputs.side(h[0], LATE), out.watermark, h[0].merges(key)));
        }
        return steps;
      } finally {
        if (h[0] != null) {
          h[0].close();
        }
      }
    }
  }

  /**
   * The test harness the runner drives a WindowOperator with, and the MergeLog of its session
   * windows (null for others).
   */
  static final class Harness extends KeyedOneInputStreamOperatorTestHarness<String, Event, Result> {
    private final MergeLog mergeLog;

    Harness(OneInputStreamOperator<Event, Result> op, MergeLog mergeLog) throws Exception {
      super(op, BY_KEY, Types.STRING);
      this.mergeLog = mergeLog;
    }

    /** The merges made since the last call, for an operation on key (null: none can merge). */
    List<Merge> merges(String key) {
      return mergeLog == null ? List.of() : mergeLog.drain(key);
    }
  }

  /** A new harness around a new WindowOperator for w, its state in backends' backend; not open yet. */
  static Harness harness(Scenario.WindowSpec w, StateBackends backends) throws Exception {
    WindowAssigner<Object, TimeWindow> assigner = assigner(w);
    var h = new Harness(operator(w, assigner), assigner instanceof MergeLog m ? m : null);
    h.setStateBackend(backends.create());
    h.setCheckpointStorage(backends.checkpointStorage());
    return h;
  }

  /**
   * Returns Flink's WindowOperator for w, as {@code keyBy(Event::key).window(...)
   * .allowedLateness(...).sideOutputLateData(LATE).aggregate(new CountAndSum(), new Emit(...))}
   * builds it: late events go to the side output LATE.
   */
  static OneInputStreamOperator<Event, Result> operator(Scenario.WindowSpec w) {
    return operator(w, assigner(w));
  }

  /** Returns Flink's WindowOperator for w, with the window assigner given. */
  static OneInputStreamOperator<Event, Result> operator(
      Scenario.WindowSpec w, WindowAssigner<Object, TimeWindow> assigner) {
    WindowOperatorBuilder<Event, String, TimeWindow> builder =
        new WindowOperatorBuilder<>(
            assigner, EventTimeTrigger.create(), new ExecutionConfig(), EVENT, BY_KEY, Types.STRING);
    builder.allowedLateness(Duration.ofMillis(w.lateness()));
    builder.sideOutputLateData(LATE);
    return builder.aggregate(
        new CountAndSum(), new Emit(w.assigner().equals("session")), Types.TUPLE(Types.LONG, Types.LONG));
  }

  static WindowAssigner<Object, TimeWindow> assigner(Scenario.WindowSpec w) {
    return switch (w.assigner()) {
      case "tumbling" -> TumblingEventTimeWindows.of(Duration.ofMillis(w.size()));
      case "sliding" -> SlidingEventTimeWindows.of(Duration.ofMillis(w.size()), Duration.ofMillis(w.slide()));
      case "session" -> new MergeLog(EventTimeSessionWindows.withGap(Duration.ofMillis(w.gap())));
      default -> throw new IllegalArgumentException("unknown window assigner " + w.assigner());
    };
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
