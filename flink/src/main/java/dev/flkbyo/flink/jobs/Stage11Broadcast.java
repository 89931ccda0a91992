package dev.flkbyo.flink.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Stage 11, broadcast state: a second input, a stream of rules that every key must see, decides
 * which window results alert.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code BroadcastProcessor}: the Broadcast State Pattern. The rules stream is turned into a
 *       BroadcastStream ({@code rules.broadcast(RULES)}, RULES a MapStateDescriptor), the keyed
 *       window results are connected to it, and a {@link AlertOnRules} (a
 *       KeyedBroadcastProcessFunction) sees both: {@code processBroadcastElement} for each rule,
 *       with read-write access to the broadcast state, on every parallel instance; {@code
 *       processElement} for each result of its keys, with read-only access.
 *   <li>{@code ProcessRule} and {@code RulesOn}: the broadcast state, rule ID (prefix, ts) →
 *       rule; two rules of one ID keep the lower threshold, so that each instance ends with the
 *       same state whatever order its rules came in (the docs warn that the order may differ
 *       across instances).
 *   <li>{@code AdvanceRuleWatermark} and {@code LateRules}: the rules stream's own watermarks, and
 *       {@link DropLateRules}, a step before the broadcast that sends a rule behind them to a side
 *       output. Flink judges no broadcast element late: that is the course's contract, written as
 *       Flink code.
 *   <li>Alerts that wait for {@code min(events' watermark, rules' watermark)}: each result is kept
 *       in keyed state with an event-time timer at its window's end; a two-input operator's
 *       watermark is the minimum of its inputs', so the timer fires exactly when the course decides
 *       the alert, and by then every rule in force has arrived.
 *   <li>The events' side: stage 03's windows (with stage 06's key groups at a parallelism above 1).
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): a correction emitted after the combined watermark passed its
 * window's end is decided at the operator's next watermark (at the latest the final one), where the
 * course decides it at once: the same alerts, later. Flink checkpoints the broadcast state once per
 * instance; the course keeps one copy.
 */
public final class Stage11Broadcast {
  private Stage11Broadcast() {}

  /**
   * A rule: from event time {@code ts} on, a window result of a key that starts with {@code
   * prefix} alerts when its sum reaches {@code threshold}.
   */
  public record Rule(String prefix, long threshold, long ts) {}

  /** A window result that reached the threshold of a rule in force at the window's end. */
  public record Alert(Result result, Rule rule) {}

  /** A rule's identity in the broadcast state: one rule per prefix and timestamp. */
  public record RuleId(String prefix, long ts) {}

  /** The broadcast state's descriptor: rule ID → rule. */
  static final MapStateDescriptor<RuleId, Rule> RULES =
      new MapStateDescriptor<>("rules", TypeInformation.of(RuleId.class), TypeInformation.of(Rule.class));

  /** The side output of late rules. */
  static final OutputTag<Rule> LATE_RULES = new OutputTag<>("late rules", TypeInformation.of(Rule.class));

  /**
   * The job's settings: stage 03's and stage 06's, the rules file (JSON lines {@code
   * {"prefix","threshold","ts"}}, "" for none, for main) and the rules' watermark delay.
   */
  public record Config(
      long windowSize, long watermarkDelay, long allowedLateness, int maxParallelism, int parallelism,
      String rules, long ruleDelay, Emit watermarks) {
    /** The demo's: windows of 10 ms, 8 key groups on 2 subtasks, rules in order. */
    public static final Config DEFAULTS = new Config(10, 0, 0, 8, 2, "", 0, Emit.PER_EVENT);

    public Config {
      if (ruleDelay < 0) {
        throw new IllegalArgumentException("rule delay must not be negative, got " + ruleDelay);
      }
      new Stage06Rescaling.Config(windowSize, watermarkDelay, allowedLateness, maxParallelism, parallelism, watermarks);
    }
  }

  /** What the job emitted: alerts, late events, late rules. */
  public record Alerts(List<Alert> alerts, List<Event> late, List<Rule> lateRules) implements JobMain.Lines {
    /** One late rule as main prints it: {@code {"lateRule": {...}}}. */
    public record LateRule(Rule lateRule) {}

    /**
     * Returns the alerts stably sorted by their results' (End, Start, Key), the course's order:
     * the same at any parallelism, one window's results in emission order, one result's alerts by
     * prefix.
     */
    public List<Alert> sortedAlerts() {
      List<Alert> as = new ArrayList<>(alerts);
      as.sort(Comparator.<Alert>comparingLong(a -> a.result().end())
          .thenComparingLong(a -> a.result().start())
          .thenComparing(a -> a.result().key()));
      return as;
    }

    /** The alerts, {@code {"result":…,"rule":…}}; then late events and late rules. */
    @Override
    public List<Object> lines() {
      List<Object> out = new ArrayList<>(alerts);
      late.forEach(e -> out.add(new Output.Late(e)));
      lateRules.forEach(r -> out.add(new LateRule(r)));
      return out;
    }
  }

  /** Runs the job on env over the events and the rules and returns what it emitted. */
  public static Alerts run(StreamExecutionEnvironment env, List<Event> input, List<Rule> ruleInput, Config cfg)
      throws Exception {
    env.setMaxParallelism(cfg.maxParallelism());
    env.setParallelism(cfg.parallelism());

    // The events' side: stage 03's windows.
    var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), 0);
    SingleOutputStreamOperator<Result> windows = Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness());

    // The rules' side: their own watermarks, the late ones set aside, the rest broadcast.
    WatermarkStrategy<Rule> ruleWatermarks =
        cfg.watermarks()
            .<Rule>forBoundedOutOfOrderness(Duration.ofMillis(cfg.ruleDelay()))
            .withTimestampAssigner((rule, recordTimestamp) -> rule.ts());
    SingleOutputStreamOperator<Rule> onTime =
        env.fromData(ruleInput, TypeInformation.of(Rule.class))
            .name("rules")
            .assignTimestampsAndWatermarks(ruleWatermarks)
            .setParallelism(1)
            .process(new DropLateRules())
            .setParallelism(1)
            .name("drop late rules");
    BroadcastStream<Rule> rules = onTime.broadcast(RULES);

    SingleOutputStreamOperator<Alert> alerts =
        windows.keyBy(Result::key).connect(rules).process(new AlertOnRules()).name("alert on rules");

    Collect<Alert> a = Collect.of(alerts);
    Collect<Event> late = Collect.of(windows.getSideOutput(Events.LATE));
    Collect<Rule> lateRules = Collect.of(onTime.getSideOutput(LATE_RULES));
    Collect.execute(env, "stage 11: broadcast state", a, late, lateRules);
    return new Alerts(a.get(), late.get(), lateRules.get());
  }

  /**
   * Sends a rule stamped at or below the rules' watermark (Flink's; the course's "TS below the
   * rules' watermark") to the side output of late rules, and passes the others on. It runs before
   * the broadcast, on the rules stream alone, whose watermark it sees.
   */
  static final class DropLateRules extends ProcessFunction<Rule, Rule> {
    @Override
    public void processElement(Rule r, Context ctx, Collector<Rule> out) {
      if (r.ts() <= ctx.timerService().currentWatermark()) {
        ctx.output(LATE_RULES, r);
      } else {
        out.collect(r);
      }
    }
  }

  /**
   * Keeps each window result until the combined watermark reaches its window's end, then alerts
   * once for each prefix of its key whose rule in force (the latest with {@code ts < end}) it
   * reaches.
   */
  static final class AlertOnRules extends KeyedBroadcastProcessFunction<String, Result, Rule, Alert> {
    private transient ListState<Result> pending;

    @Override
    public void open(OpenContext ctx) {
      pending = getRuntimeContext().getListState(new ListStateDescriptor<>("pending", Result.class));
    }

    @Override
    public void processBroadcastElement(Rule r, Context ctx, Collector<Alert> out) throws Exception {
      BroadcastState<RuleId, Rule> rules = ctx.getBroadcastState(RULES);
      RuleId id = new RuleId(r.prefix(), r.ts());
      Rule old = rules.get(id);
      if (old == null || r.threshold() < old.threshold()) {
        rules.put(id, r); // the same on every instance, whatever order the rules came in
      }
    }

    @Override
    public void processElement(Result r, ReadOnlyContext ctx, Collector<Alert> out) throws Exception {
      pending.add(r);
      // The combined watermark reaches the course's End at Flink's End − 1.
      ctx.timerService().registerEventTimeTimer(r.end() - 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Alert> out) throws Exception {
      ReadOnlyBroadcastState<RuleId, Rule> rules = ctx.getBroadcastState(RULES);
      List<Result> waiting = new ArrayList<>();
      for (Result r : pending.get()) {
        if (r.end() - 1 > timestamp) {
          waiting.add(r);
          continue;
        }
        for (Rule rule : inForce(rules, r.key(), r.end()).values()) {
          if (r.sum() >= rule.threshold()) {
            out.collect(new Alert(r, rule));
          }
        }
      }
      pending.update(waiting);
    }

    /** The rule in force at end for each prefix of key: its latest with ts < end, by prefix. */
    private static Map<String, Rule> inForce(ReadOnlyBroadcastState<RuleId, Rule> rules, String key, long end)
        throws Exception {
      Map<String, Rule> latest = new TreeMap<>();
      for (Map.Entry<RuleId, Rule> e : rules.immutableEntries()) {
        Rule r = e.getValue();
        if (key.startsWith(r.prefix()) && r.ts() < end) {
          latest.merge(r.prefix(), r, (a, b) -> a.ts() >= b.ts() ? a : b);
        }
      }
      return latest;
    }
  }

  /** Reads the rules file: one JSON rule a line; "" is no rules. */
  public static List<Rule> readRules(String path) throws IOException {
    if (path.isEmpty()) {
      return List.of();
    }
    ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    List<Rule> rules = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(Path.of(path), StandardCharsets.UTF_8)) {
      n++;
      if (!line.isBlank()) {
        try {
          rules.add(json.readValue(line, Rule.class));
        } catch (JsonProcessingException e) {
          throw new IOException(path + ", line " + n + ": " + e.getOriginalMessage()); // no cause: one message
        }
      }
    }
    return rules;
  }

  /**
   * Reads events on stdin and rules from {@code --rules}, prints alerts, late events and late rules
   * on stdout; see {@link JobMain}.
   */
  public static void main(String[] args) {
    JobMain.main("Stage11Broadcast", args, Config.DEFAULTS,
        (env, input, cfg) -> run(env, input, readRules(cfg.rules()), cfg));
  }
}
