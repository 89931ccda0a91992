package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.jobs.Stage11Broadcast.Alert;
import dev.flkbyo.flink.jobs.Stage11Broadcast.Rule;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 11's job on 2 subtasks: alerts wait for both watermarks; a late rule changes nothing. */
@ExtendWith(FlinkCluster.class)
class Stage11BroadcastTest {
  /** The events of `de demo 11`. */
  static final List<Event> EVENTS =
      List.of(ev("e1", "eu-1", 2, 7), ev("e2", "us-1", 4, 3), ev("e3", "eu-1", 13, 1), ev("e4", "us-1", 15, 2));

  /** Its rules, whose own watermark (no delay) reaches 10 with the second: the third is late. */
  static final List<Rule> RULES = List.of(new Rule("eu-", 5, 8), new Rule("us-", 1, 10), new Rule("eu-", 100, 9));

  @Test
  void alertsUseTheRuleInForceAtTheWindowsEnd() throws Exception {
    var out = Stage11Broadcast.run(FlinkCluster.env(2), EVENTS, RULES, Stage11Broadcast.Config.DEFAULTS);
    // [0,10): eu-1 sums 7 ≥ 5 under eu-@8; us-1 has no rule stamped before 10. [10,20): eu-1's 1 is
    // below 5; us-1's 2 reaches us-@10's 1. Whichever input ran ahead, each result waited for both.
    assertEquals(
        List.of(
            new Alert(first("eu-1", 0, 10, 1, 7), new Rule("eu-", 5, 8)),
            new Alert(first("us-1", 10, 20, 1, 2), new Rule("us-", 1, 10))),
        out.sortedAlerts());
    assertEquals(List.of(new Rule("eu-", 100, 9)), out.lateRules());
    assertEquals(List.of(), out.late());
  }
}
