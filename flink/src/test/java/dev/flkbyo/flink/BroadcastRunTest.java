package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/**
 * The "broadcast" kind's wiring on scenarios small enough to check by hand: a result waits for the
 * min of the two inputs' watermarks, the rule in force at a window's end, late rules, and the
 * broadcast state on every subtask.
 */
class BroadcastRunTest {
  private static final Scenario.WindowSpec TUMBLING_10 = new Scenario.WindowSpec("tumbling", 10, 0, 0, true, 0, 0);

  private static BroadcastRun.Op event(String id, String key, long ts, long value) {
    return new BroadcastRun.Op("event", new Event(id, key, ts, value), null, 0);
  }

  private static BroadcastRun.Op rule(String prefix, long threshold, long ts) {
    return new BroadcastRun.Op("rule", null, new BroadcastRun.Rule(prefix, threshold, ts), 0);
  }

  private static BroadcastRun.Op watermark(long wm) {
    return new BroadcastRun.Op("watermark", null, null, wm);
  }

  private static BroadcastRun.Op ruleWatermark(long wm) {
    return new BroadcastRun.Op("ruleWatermark", null, null, wm);
  }

  @Test
  void aResultWaitsForTheMinOfBothWatermarks() throws Exception {
    var all = new BroadcastRun.Rule("", 3, 0);
    List<BroadcastRun.BroadcastStep> steps =
        BroadcastRun.run(
            new BroadcastRun.Spec(TUMBLING_10, 1, 8),
            List.of(
                rule("", 3, 0),
                event("e1", "a", 4, 5),
                watermark(9), // [0,10) fires on the events' side; the rules' side has no watermark
                ruleWatermark(20))); // the min is 9 now: the timer at 9 fires
    assertEquals(Long.MIN_VALUE, steps.get(2).watermark());
    assertEquals(List.of(), steps.get(2).alerts(), "the rules' watermark holds the result back");
    assertEquals(9, steps.get(3).watermark(), "min(9, 20)");
    assertEquals(
        List.of(new BroadcastRun.Alerts(new Result("a", 0, 10, 1, 5, false), List.of(all))), steps.get(3).alerts());
  }

  @Test
  void theRuleInForceIsTheLatestBeforeTheEnd() throws Exception {
    List<BroadcastRun.BroadcastStep> steps =
        BroadcastRun.run(
            new BroadcastRun.Spec(TUMBLING_10, 1, 8),
            List.of(
                rule("a", 100, 0),
                rule("a", 5, 9), // max timestamp of [0,10): in force there
                rule("a", 1, 10), // the next window's
                rule("a", 7, 9), // the same (prefix, TS): the lower threshold, 5, stays
                rule("b", 1, 0), // a prefix "a" does not have
                event("e1", "a", 3, 6),
                new BroadcastRun.Op("end", null, null, Long.MAX_VALUE)));
    assertEquals(
        List.of(
            new BroadcastRun.Alerts(
                new Result("a", 0, 10, 1, 6, false), List.of(new BroadcastRun.Rule("a", 5, 9)))),
        steps.get(6).alerts());
    assertEquals(Long.MAX_VALUE, steps.get(6).watermark());
  }

  @Test
  void aRuleAtOrBelowTheRulesWatermarkIsLate() throws Exception {
    List<BroadcastRun.BroadcastStep> steps =
        BroadcastRun.run(
            new BroadcastRun.Spec(TUMBLING_10, 1, 8),
            List.of(ruleWatermark(49), rule("", 1, 49), rule("", 1, 50), rule("", 1, Long.MIN_VALUE)));
    assertEquals(List.of(new BroadcastRun.Rule("", 1, 49)), steps.get(1).lateRules(), "the course's 50 is Flink's 49");
    assertEquals(List.of(), steps.get(2).lateRules());
    assertEquals(List.of(new BroadcastRun.Rule("", 1, 50)), steps.get(2).rules().get(0));
    assertEquals(List.of(new BroadcastRun.Rule("", 1, Long.MIN_VALUE)), steps.get(3).lateRules());
  }

  @Test
  void beforeAnyRulesWatermarkNoRuleIsLate() throws Exception {
    List<BroadcastRun.BroadcastStep> steps =
        BroadcastRun.run(new BroadcastRun.Spec(TUMBLING_10, 1, 8), List.of(rule("", 1, Long.MIN_VALUE)));
    assertEquals(List.of(), steps.get(0).lateRules());
  }

  @Test
  void everySubtaskHoldsEveryRuleAndDecidesItsOwnKeys() throws Exception {
    int p = 3, maxP = 8;
    // Two keys on different subtasks, as keyBy's partitioner places them.
    String a = "a", b = null;
    for (String k : List.of("b", "c", "d", "e", "f", "g", "h")) {
      if (KeyGroupRangeAssignment.assignKeyToParallelOperator(k, maxP, p)
          != KeyGroupRangeAssignment.assignKeyToParallelOperator(a, maxP, p)) {
        b = k;
        break;
      }
    }
    List<BroadcastRun.BroadcastStep> steps =
        BroadcastRun.run(
            new BroadcastRun.Spec(TUMBLING_10, p, maxP),
            List.of(
                rule("", 2, 0),
                event("e1", a, 1, 2),
                event("e2", b, 2, 3),
                new BroadcastRun.Op("end", null, null, Long.MAX_VALUE)));
    for (List<BroadcastRun.Rule> held : steps.get(0).rules()) {
      assertEquals(List.of(new BroadcastRun.Rule("", 2, 0)), held);
    }
    assertEquals(p, steps.get(0).rules().size());
    var rule = List.of(new BroadcastRun.Rule("", 2, 0));
    assertEquals(
        new HashSet<>(
            List.of(
                new BroadcastRun.Alerts(new Result(a, 0, 10, 1, 2, false), rule),
                new BroadcastRun.Alerts(new Result(b, 0, 10, 1, 3, false), rule))),
        new HashSet<>(steps.get(3).alerts()));
  }
}
