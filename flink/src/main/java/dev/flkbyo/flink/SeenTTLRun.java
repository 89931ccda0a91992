package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Runs a seen-TTL scenario (kind "seenttl"): the course's stage 10, event-time dedup, as a Flink
 * user writes it. Two of Flink's operators in a chain, each driven by its own test harness:
 *
 * <ol>
 *   <li>{@code keyBy(Event::id).process(new ForgetBehindWatermark(ttl))}: Flink's
 *       KeyedProcessOperator running a KeyedProcessFunction that keeps, per ID, a ValueState and
 *       an event-time timer that clears it: a redelivery of a remembered ID goes to the side output
 *       DROPPED instead of on;
 *   <li>{@code keyBy(Event::key).window(TumblingEventTimeWindows...)}: Flink's WindowOperator, as
 *       the "window" kind builds it.
 * </ol>
 *
 * <p>Every delivery reaches the first operator, redeliveries included. The watermark comes from
 * BoundedOutOfOrdernessWatermarks asked after every event (and from "watermark" operations), as in
 * the "window" kind, and enters the chain at the first operator, behind the event that raised it.
 * What Flink decides here: when each timer fires (when the watermark reaches it, and before the
 * first operator passes that watermark on to the window operator), and everything the window
 * operator does. What the function decides: that a remembered ID drops its redeliveries, and when
 * an ID is forgotten.
 */
final class SeenTTLRun {
  /** The redeliveries the dedup function dropped. */
  static final OutputTag<Event> DROPPED = new OutputTag<>("dropped", WindowRun.EVENT);

  private static final KeySelector<Event, String> BY_ID = Event::id;

  private SeenTTLRun() {}

  /**
   * A seen-TTL scenario's settings.
   *
   * @param window the window operator's (tumbling windows)
   * @param ttl the seen TTL, in milliseconds of event time; 0 remembers every ID forever
   */
  record Spec(Scenario.WindowSpec window, long ttl) {}

  /**
   * What the chain did in answer to one operation: the window operator's results, side output and
   * watermark passed on, as a window Step; the deliveries the dedup function dropped; and how many
   * IDs its keyed state holds afterwards.
   */
  record DedupStep(List<Result> results, List<Event> late, long watermark, List<Event> dropped, int remembered) {}

  /** Runs a "seenttl" scenario for the Runner: spec is a Spec, ops a list of Scenario.Ops. */
  static List<DedupStep> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(
        json.treeToValue(spec, Spec.class), json.convertValue(ops, new TypeReference<List<Scenario.Op>>() {}));
  }

  /** Runs the operations and returns one DedupStep per operation. */
  static List<DedupStep> run(Spec spec, List<Scenario.Op> ops) throws Exception {
    Scenario.WindowSpec w = spec.window();
    var watermarks = new BoundedOutOfOrdernessWatermarks<Event>(Duration.ofMillis(w.delay()));
    try (var dedup =
            new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new ForgetBehindWatermark(spec.ttl())), BY_ID, Types.STRING);
        var windows =
            new KeyedOneInputStreamOperatorTestHarness<>(WindowRun.operator(w), WindowRun.BY_KEY, Types.STRING)) {
      dedup.open();
      windows.open();
      var upstream = new Upstream(wm -> dedup.processWatermark(new Watermark(wm)));
      Outputs.Downstream<Event> toWindows =
          new Outputs.Downstream<>() {
            @Override
            public void record(StreamRecord<Event> r) throws Exception {
              windows.processElement(r);
            }

            @Override
            public void watermark(Watermark wm) throws Exception {
              windows.processWatermark(wm);
            }
          };
      var out = new Outputs.Collected<Result>();
      List<DedupStep> steps = new ArrayList<>();
      for (Scenario.Op o : ops) {
        switch (o.op()) {
          case "event" -> {
            Event e = o.event();
            dedup.processElement(new StreamRecord<>(e, e.ts()));
            if (w.eventWatermarks()) {
              watermarks.onEvent(e, e.ts(), upstream);
              watermarks.onPeriodicEmit(upstream);
            }
          }
          case "watermark" -> upstream.advance(o.wm());
          case "end" -> upstream.advance(Long.MAX_VALUE);
          default -> throw new IllegalArgumentException("unknown op " + o.op());
        }
        Outputs.forward(dedup, toWindows);
        Outputs.forward(windows, out);
        steps.add(
            new DedupStep(
                out.take(),
                Outputs.side(windows, WindowRun.LATE),
                out.watermark,
                Outputs.side(dedup, DROPPED),
                dedup.numKeyedStateEntries()));
      }
      return steps;
    }
  }

  /**
   * Event-time dedup by ID, as a KeyedProcessFunction keyed by ID: the first delivery of an ID goes
   * on and is remembered, in a ValueState, until the watermark reaches its timestamp + TTL; an
   * event-time timer then clears the state. Meanwhile every redelivery goes to the side output
   * DROPPED. A redelivery does not move the timer: the expiry is the first delivery's.
   *
   * <p>The course's "the watermark reaches ts + TTL" is Flink's "the watermark reaches ts + TTL − 1"
   * (docs/PARITY.md: the course's watermark w is Flink's w − 1), so the timer is set there, with
   * ts + TTL saturating at Long.MAX_VALUE as the course's does. An ID whose time has come when it
   * arrives is not remembered at all: a timer at or below the current watermark would fire only at
   * the next watermark, and a redelivery before that would be dropped. Long.MIN_VALUE is no
   * watermark yet, before which nothing has come. TTL 0 remembers every ID forever, with no timer.
   */
  static final class ForgetBehindWatermark extends KeyedProcessFunction<String, Event, Event> {
    private static final ValueStateDescriptor<Long> FORGET_AT = new ValueStateDescriptor<>("forget-at", Types.LONG);
    private final long ttl;
    private transient ValueState<Long> forgetAt;

    ForgetBehindWatermark(long ttl) {
      this.ttl = ttl;
    }

    @Override
    public void open(OpenContext ctx) {
      forgetAt = getRuntimeContext().getState(FORGET_AT);
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<Event> out) throws Exception {
      if (forgetAt.value() != null) {
        ctx.output(DROPPED, e);
        return;
      }
      out.collect(e);
      if (ttl == 0) {
        forgetAt.update(Long.MAX_VALUE); // never: no timer
        return;
      }
      long timer = saturatingAdd(e.ts(), ttl) - 1;
      long wm = ctx.timerService().currentWatermark();
      if (wm != Long.MIN_VALUE && timer <= wm) {
        return; // its time has come already
      }
      forgetAt.update(timer);
      ctx.timerService().registerEventTimeTimer(timer);
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Event> out) {
      forgetAt.clear();
    }

    static long saturatingAdd(long a, long b) {
      long s = a + b;
      return b > 0 && s < a ? Long.MAX_VALUE : s;
    }
  }
}
