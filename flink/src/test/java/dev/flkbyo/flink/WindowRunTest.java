package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runner's own wiring, on a scenario small enough to check by hand: if these fail, the
 * differential tests would be comparing the course with something that is not Flink's behaviour.
 */
class WindowRunTest {
  private static Scenario.Op event(String id, String key, long ts, long value) {
    return new Scenario.Op("event", new Event(id, key, ts, value), 0);
  }

  @Test
  void tumblingWindowsFireAtEndMinusOneAndCorrectLate() throws Exception {
    var spec = new Scenario.WindowSpec("tumbling", 10, 0, 0, true, 0, 5);
    List<Step> steps =
        WindowRun.run(
            new Scenario(
                spec,
                List.of(
                    event("e1", "a", 3, 1),
                    event("e2", "a", 12, 2), // watermark 11 ≥ 9, [0,10)'s maxTimestamp: it fires
                    event("e3", "a", 4, 5), // within the lateness: a late firing, an update
                    new Scenario.Op("watermark", null, 29),
                    event("e4", "a", 5, 7), // 9 + 5 ≤ 29: the window is gone, side output
                    new Scenario.Op("end", null, Long.MAX_VALUE))));
    assertEquals(new Step(List.of(), List.of(), 2), steps.get(0), "max timestamp 3, bound 0: watermark 3 − 0 − 1");
    assertEquals(
        new Step(List.of(new Result("a", 0, 10, 1, 1, false)), List.of(), 11), steps.get(1));
    assertEquals(new Step(List.of(new Result("a", 0, 10, 2, 6, true)), List.of(), 11), steps.get(2));
    assertEquals(
        new Step(List.of(new Result("a", 10, 20, 1, 2, false)), List.of(), 29), steps.get(3));
    assertEquals(new Step(List.of(), List.of(new Event("e4", "a", 5, 7)), 29), steps.get(4));
    assertEquals(new Step(List.of(), List.of(), Long.MAX_VALUE), steps.get(5));
  }

  @Test
  void negativeTimestampsFallInTheWindowBelowZero() throws Exception {
    // TimeWindow.getWindowStartWithOffset after FLINK-26334: −1 is in [−10, 0).
    var spec = new Scenario.WindowSpec("tumbling", 10, 0, 0, false, 0, 0);
    List<Step> steps =
        WindowRun.run(
            new Scenario(
                spec,
                List.of(event("e1", "a", -1, 4), new Scenario.Op("end", null, Long.MAX_VALUE))));
    assertEquals(List.of(new Result("a", -10, 0, 1, 4, false)), steps.get(1).results());
  }
}
