package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static dev.flkbyo.flink.jobs.Fixtures.update;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 09's job: one event in several windows, each judging it on its own. */
@ExtendWith(FlinkCluster.class)
class Stage09SlidingTest {
  /** The stream of `de demo 09` (windows of 10 every 4, no delay, lateness 2). */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", -1, 1), ev("e2", "b", 1, 2), ev("e3", "a", 5, 3), ev("e4", "b", 14, 4),
          ev("e5", "a", 9, 5), ev("e6", "b", 3, 6), ev("e2", "b", 12, 2));

  @Test
  void eachWindowJudgesAnEventOnItsOwn() throws Exception {
    Output out = Stage09Sliding.run(FlinkCluster.env(1), DEMO, Stage09Sliding.Config.DEFAULTS);
    // e5@9 at watermark 14: [0,10) has expired (14 ≥ 10 + 2) and skips it, [4,14) has fired and
    // corrects a's result, [8,18) counts it. e6@3's windows have all expired: late. The second e2
    // (a redelivery with another timestamp) is dropped.
    assertEquals(
        List.of(
            first("a", -8, 2, 1, 1), first("b", -8, 2, 1, 2),
            first("a", -4, 6, 2, 4), first("b", -4, 6, 1, 2),
            first("a", 0, 10, 1, 3), first("b", 0, 10, 1, 2),
            first("a", 4, 14, 1, 3), update("a", 4, 14, 2, 8),
            first("a", 8, 18, 1, 5), first("b", 8, 18, 1, 4),
            first("b", 12, 22, 1, 4)),
        out.sortedResults());
    assertEquals(List.of(ev("e6", "b", 3, 6)), out.late());
  }
}
