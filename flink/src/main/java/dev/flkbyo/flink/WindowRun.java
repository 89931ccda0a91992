package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flkbyo.flink.jobs.CountAndSum;
import dev.flkbyo.flink.jobs.Tally;
import dev.flkbyo.flink.jobs.WindowResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
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
   * .allowedLateness(...).sideOutputLateData(LATE).aggregate(new CountAndSum(), new WindowResult())}
   * builds it (the graduation jobs' aggregate, dev.flkbyo.flink.jobs): late events go to the side
   * output LATE.
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
    ProcessWindowFunction<Tally, Result, String, TimeWindow> fire =
        w.assigner().equals("session") ? new SessionFiring() : new WindowResult();
    return builder.aggregate(new CountAndSum(), fire, TypeInformation.of(Tally.class));
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
   * Emits a session window's tally each time it fires. Merging windows have no per-window state
   * (WindowOperator's MergingWindowStateStore refuses it), so nothing tells a late firing from the
   * first: it is never marked an update (docs/PARITY.md).
   */
  static final class SessionFiring extends ProcessWindowFunction<Tally, Result, String, TimeWindow> {
    @Override
    public void process(String key, Context ctx, Iterable<Tally> tallies, Collector<Result> out) {
      Tally t = tallies.iterator().next(); // an AggregateFunction leaves exactly one
      out.collect(new Result(key, ctx.window().getStart(), ctx.window().getEnd(), t.count(), t.sum(), false));
    }
  }
}
