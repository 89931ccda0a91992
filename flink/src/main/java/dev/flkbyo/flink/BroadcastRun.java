package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Runs a broadcast scenario (kind "broadcast"): the course's stage 11, rules broadcast to keyed
 * window results, as a Flink user writes it:
 *
 * <pre>{@code
 * results = events.keyBy(Event::key).window(TumblingEventTimeWindows...)...   // WindowOperator
 * rules   = rulesSource.process(new LateRules())                              // ProcessOperator
 * results.keyBy(Result::key).connect(rules.broadcast(RULES)).process(new Alerting())
 * }</pre>
 *
 * <p>The last is Flink's two-input CoBroadcastWithKeyedOperator, run as {@code parallelism}
 * subtasks, each under its own KeyedBroadcastOperatorTestHarness with its share of the key groups:
 * a result goes to the subtask KeyGroupRangeAssignment gives its key (what keyBy's
 * KeyGroupStreamPartitioner does), and every rule and every watermark of either input goes to
 * every subtask (what broadcast() and a watermark's broadcast to every channel do). The window
 * operator and the rules' ProcessOperator run as one subtask each.
 *
 * <p>What Flink decides here: the window operator's results, side output and watermark; the
 * two-input operator's combined watermark, the min of its inputs' (AbstractStreamOperator's
 * processWatermark1/2 through an IndexedCombinedWatermarkStatus), passed on when it rises; that
 * its event-time timers fire when that combined watermark reaches them, before it is passed on;
 * that processBroadcastElement's writes to the broadcast state are what processElement and onTimer
 * read, for every key; and the order elements and watermarks arrive in, which is the scenario's.
 * What the functions decide: which rules are late (LateRules), the rules kept per (prefix, TS)
 * (Alerting.processBroadcastElement), and which rules a result breaks (Alerting.decide).
 */
final class BroadcastRun {
  /** The rules LateRules judged late. */
  static final OutputTag<Rule> LATE_RULES = new OutputTag<>("late-rules", TypeInformation.of(Rule.class));

  /** The broadcast state: (prefix, TS) → the lowest threshold of the rules stamped so. */
  static final MapStateDescriptor<Tuple2<String, Long>, Long> RULES =
      new MapStateDescriptor<>("rules", Types.TUPLE(Types.STRING, Types.LONG), Types.LONG);

  private BroadcastRun() {}

  /** One rule, as the course's solutions.Rule: from TS on, a key with prefix alerts at threshold. */
  record Rule(String prefix, long threshold, long ts) {}

  /** A window result that reached the thresholds of rules, one record per result. */
  record Alerts(Result result, List<Rule> rules) {}

  /**
   * A broadcast scenario's settings.
   *
   * @param window the window operator's (tumbling windows)
   * @param parallelism the broadcast operator's subtasks
   * @param maxParallelism its key groups
   */
  record Spec(Scenario.WindowSpec window, int parallelism, int maxParallelism) {}

  /**
   * One arrival: an event ("event") or a watermark ("watermark") of the events' input, a rule
   * ("rule") or a watermark ("ruleWatermark") of the rules' input, or the end of both ("end").
   * Watermarks are in Flink's terms.
   */
  record Op(String op, Event event, Rule rule, long wm) {}

  /**
   * What Flink did in answer to one operation: the alerts the broadcast operator's subtasks
   * emitted (subtask by subtask), the events the window operator's side output received, the rules
   * LateRules sent to its side output, the combined watermark the broadcast operator passed on (the
   * lowest of its subtasks'), and each subtask's broadcast state, as rules in no order.
   */
  record BroadcastStep(
      List<Alerts> alerts, List<Event> late, List<Rule> lateRules, long watermark, List<List<Rule>> rules) {}

  /** Runs a "broadcast" scenario for the Runner: spec is a Spec, ops a list of Ops. */
  static List<BroadcastStep> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(json.treeToValue(spec, Spec.class), json.convertValue(ops, new TypeReference<List<Op>>() {}));
  }

  /** Runs the operations and returns one BroadcastStep per operation. */
  static List<BroadcastStep> run(Spec spec, List<Op> ops) throws Exception {
    Scenario.WindowSpec w = spec.window();
    int p = spec.parallelism(), maxP = spec.maxParallelism();
    var watermarks = new BoundedOutOfOrdernessWatermarks<Event>(Duration.ofMillis(w.delay()));
    List<KeyedBroadcastOperatorTestHarness<String, Result, Rule, Alerts>> subtasks = new ArrayList<>();
    try (var windows =
            new KeyedOneInputStreamOperatorTestHarness<>(WindowRun.operator(w), WindowRun.BY_KEY, Types.STRING);
        var rules = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new LateRules()))) {
      for (int i = 0; i < p; i++) {
        var h =
            new KeyedBroadcastOperatorTestHarness<>(
                new CoBroadcastWithKeyedOperator<>(new Alerting(), List.of(RULES)), Result::key, Types.STRING, maxP, p, i);
        subtasks.add(h);
        h.open();
      }
      windows.open();
      rules.open();
      var events = new Upstream(wm -> windows.processWatermark(new Watermark(wm)));
      var ruleWMs = new Upstream(wm -> rules.processWatermark(new Watermark(wm)));
      Outputs.Downstream<Result> keyed =
          new Outputs.Downstream<>() {
            @Override
            public void record(StreamRecord<Result> r) throws Exception {
              subtasks.get(KeyGroupRangeAssignment.assignKeyToParallelOperator(r.getValue().key(), maxP, p))
                  .processElement(r);
            }

            @Override
            public void watermark(Watermark wm) throws Exception {
              for (var h : subtasks) {
                h.processWatermark(wm);
              }
            }
          };
      Outputs.Downstream<Rule> broadcast =
          new Outputs.Downstream<>() {
            @Override
            public void record(StreamRecord<Rule> r) throws Exception {
              for (var h : subtasks) {
                h.processBroadcastElement(new StreamRecord<>(r.getValue(), r.getTimestamp()));
              }
            }

            @Override
            public void watermark(Watermark wm) throws Exception {
              for (var h : subtasks) {
                h.processBroadcastWatermark(wm);
              }
            }
          };
      List<Outputs.Collected<Alerts>> outs = new ArrayList<>();
      for (int i = 0; i < p; i++) {
        outs.add(new Outputs.Collected<>());
      }
      List<BroadcastStep> steps = new ArrayList<>();
      for (Op o : ops) {
        switch (o.op()) {
          case "event" -> {
            Event e = o.event();
            windows.processElement(new StreamRecord<>(e, e.ts()));
            if (w.eventWatermarks()) {
              watermarks.onEvent(e, e.ts(), events);
              watermarks.onPeriodicEmit(events);
            }
          }
          case "watermark" -> events.advance(o.wm());
          case "rule" -> rules.processElement(new StreamRecord<>(o.rule(), o.rule().ts()));
          case "ruleWatermark" -> ruleWMs.advance(o.wm());
          case "end" -> {
            events.advance(Long.MAX_VALUE);
            Outputs.forward(windows, keyed);
            ruleWMs.advance(Long.MAX_VALUE);
          }
          default -> throw new IllegalArgumentException("unknown op " + o.op());
        }
        Outputs.forward(windows, keyed);
        Outputs.forward(rules, broadcast);
        List<Alerts> alerts = new ArrayList<>();
        long wm = Long.MAX_VALUE;
        List<List<Rule>> held = new ArrayList<>();
        for (int i = 0; i < p; i++) {
          Outputs.forward(subtasks.get(i), outs.get(i));
          alerts.addAll(outs.get(i).take());
          wm = Math.min(wm, outs.get(i).watermark);
          held.add(rulesOf(subtasks.get(i).getBroadcastState(RULES)));
        }
        steps.add(
            new BroadcastStep(alerts, Outputs.side(windows, WindowRun.LATE), Outputs.side(rules, LATE_RULES), wm, held));
      }
      return steps;
    } finally {
      for (var h : subtasks) {
        h.close();
      }
    }
  }

  /** Returns the rules a broadcast state holds. */
  static List<Rule> rulesOf(ReadOnlyBroadcastState<Tuple2<String, Long>, Long> s) throws Exception {
    List<Rule> out = new ArrayList<>();
    for (Map.Entry<Tuple2<String, Long>, Long> e : s.immutableEntries()) {
      out.add(new Rule(e.getKey().f0, e.getValue(), e.getKey().f1));
    }
    return out;
  }

  /**
   * Judges the rules stream's lateness before it is broadcast, against that stream's own watermark:
   * a rule at or below it is late and goes to the side output LATE_RULES; the others go on. (The
   * broadcast operator's watermark is the min of both inputs', held back by the events: a rule
   * judged there would be on time or late depending on the events.) The course's watermark w is
   * Flink's w − 1, so "TS below the rules' watermark" is Flink's "TS at or below it";
   * Long.MIN_VALUE is no watermark yet, below which nothing is late.
   */
  static final class LateRules extends ProcessFunction<Rule, Rule> {
    @Override
    public void processElement(Rule r, Context ctx, Collector<Rule> out) {
      long wm = ctx.timerService().currentWatermark();
      if (wm != Long.MIN_VALUE && r.ts() <= wm) {
        ctx.output(LATE_RULES, r);
      } else {
        out.collect(r);
      }
    }
  }

  /**
   * Checks each key's window results against the broadcast rules once the rules that can apply are
   * known. processBroadcastElement keeps, per (prefix, TS), the lowest threshold. processElement
   * keeps a result in keyed ListState with an event-time timer at its window's maxTimestamp (end −
   * 1: the course's end in Flink's watermark terms), or decides it at once if the combined watermark
   * is there already (a late firing: a timer in the past would wait for the next watermark).
   * onTimer decides the key's results that are due, in the order they came.
   */
  static final class Alerting extends KeyedBroadcastProcessFunction<String, Result, Rule, Alerts> {
    private static final ListStateDescriptor<Result> PENDING =
        new ListStateDescriptor<>("pending", TypeInformation.of(Result.class));

    @Override
    public void processElement(Result r, ReadOnlyContext ctx, Collector<Alerts> out) throws Exception {
      long due = r.end() - 1;
      if (due <= ctx.currentWatermark()) {
        decide(r, ctx.getBroadcastState(RULES), out);
        return;
      }
      getRuntimeContext().getListState(PENDING).add(r);
      ctx.timerService().registerEventTimeTimer(due);
    }

    @Override
    public void processBroadcastElement(Rule r, Context ctx, Collector<Alerts> out) throws Exception {
      BroadcastState<Tuple2<String, Long>, Long> s = ctx.getBroadcastState(RULES);
      var k = Tuple2.of(r.prefix(), r.ts());
      Long old = s.get(k);
      s.put(k, old == null ? r.threshold() : Math.min(old, r.threshold()));
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Alerts> out) throws Exception {
      ListState<Result> pending = getRuntimeContext().getListState(PENDING);
      List<Result> keep = new ArrayList<>();
      for (Result r : pending.get()) {
        if (r.end() - 1 <= ts) {
          decide(r, ctx.getBroadcastState(RULES), out);
        } else {
          keep.add(r);
        }
      }
      pending.update(keep);
    }

    /**
     * Emits the rules r breaks: for each prefix of r's key, the rule in force at r's end (the
     * latest stamped before it), if r's sum reaches its threshold.
     */
    static void decide(Result r, ReadOnlyBroadcastState<Tuple2<String, Long>, Long> rules, Collector<Alerts> out)
        throws Exception {
      Map<String, Rule> inForce = new TreeMap<>();
      for (Map.Entry<Tuple2<String, Long>, Long> e : rules.immutableEntries()) {
        String prefix = e.getKey().f0;
        long ts = e.getKey().f1;
        Rule cur = inForce.get(prefix);
        if (r.key().startsWith(prefix) && ts < r.end() && (cur == null || cur.ts() < ts)) {
          inForce.put(prefix, new Rule(prefix, e.getValue(), ts));
        }
      }
      List<Rule> broken = new ArrayList<>();
      for (Rule x : inForce.values()) {
        if (r.sum() >= x.threshold()) {
          broken.add(x);
        }
      }
      if (!broken.isEmpty()) {
        out.collect(new Alerts(r, broken));
      }
    }
  }
}
