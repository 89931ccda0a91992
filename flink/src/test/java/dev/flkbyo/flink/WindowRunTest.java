package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  private static final Scenario.Op END = new Scenario.Op("end", null, Long.MAX_VALUE);

  private static Scenario.Op watermark(long wm) {
    return new Scenario.Op("watermark", null, wm);
  }

  private static List<Step> sessions(long gap, long lateness, Scenario.Op... ops) throws Exception {
    return WindowRun.run(new Scenario(new Scenario.WindowSpec("session", 0, 0, gap, false, 0, lateness), List.of(ops)));
  }

  private static Merge.Window w(long start, long end) {
    return new Merge.Window(start, end);
  }

  @Test
  void touchingSessionsMergeAndTheMergeIsReported() throws Exception {
    List<Step> steps =
        sessions(
            10,
            5,
            event("e1", "a", 10, 1),
            event("e2", "a", 20, 2), // [20,30) touches [10,20): they merge
            watermark(29), // [10,30)'s maxTimestamp is 29: it fires
            event("e3", "a", 5, 4), // cleanup at 29 + 5 > 29: a late merge, and [5,30) fires at once
            END);
    assertEquals(List.of(new Merge("a", w(20, 30), List.of(w(10, 20)), w(10, 30))), steps.get(1).merges());
    assertEquals(List.of(new Result("a", 10, 30, 2, 3, false)), steps.get(2).results());
    assertEquals(
        new Step(
            List.of(new Result("a", 5, 30, 3, 7, false)),
            List.of(),
            29,
            List.of(new Merge("a", w(5, 15), List.of(w(10, 30)), w(5, 30)))),
        steps.get(3),
        "session firings are never marked as updates: merging windows have no per-window state");
    assertEquals(new Step(List.of(), List.of(), Long.MAX_VALUE), steps.get(4));
  }

  // The next three pin what Flink does at the ends of the long range, where docs/PARITY.md says
  // the course differs and the differential test keeps its scenarios clear.

  @Test
  void aSessionWindowPastLongMaxValueWrapsRound() throws Exception {
    // EventTimeSessionWindows.assignWindows: new TimeWindow(timestamp, timestamp + sessionTimeout).
    long ts = Long.MAX_VALUE - 3;
    List<Step> steps = sessions(10, 0, event("e1", "a", ts, 1), watermark(100));
    assertEquals(List.of(new Result("a", ts, Long.MIN_VALUE + 6, 1, 1, false)), steps.get(1).results());
  }

  @Test
  void aMergeWhoseCleanupTimeOverflowsThrows() throws Exception {
    // WindowOperator's merge function tests mergeResult.maxTimestamp() + allowedLateness <=
    // currentWatermark unsaturated (cleanupTime() saturates): here the sum wraps round.
    long ts = Long.MAX_VALUE - 12;
    var e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> sessions(10, 5, event("e1", "a", ts, 1), watermark(0), event("e2", "a", ts - 1, 1)));
    assertTrue(e.getMessage().contains("cannot become earlier than the current watermark"), e.getMessage());
  }

  @Test
  void aSessionWhoseCleanupTimeIsLongMaxValueOutlivesTheEndAndCannotBeMergedInto() throws Exception {
    // cleanupTime() is maxTimestamp + allowedLateness = Long.MAX_VALUE: registerCleanupTimer sets
    // no timer for it, so the window stays in the MergingWindowSet after the final watermark, and
    // a later element that merges with it fails the merge check (MAX_VALUE <= MAX_VALUE).
    long ts = Long.MAX_VALUE - 10; // [ts, Long.MAX_VALUE), allowed lateness 1
    var e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> sessions(10, 1, event("e1", "a", ts, 1), END, event("e2", "a", ts - 1, 1)));
    assertTrue(e.getMessage().contains("cannot become earlier than the current watermark"), e.getMessage());
  }

  @Test
  void aWindowEndingAtLongMinValuePlusOneIsDueBeforeAnyWatermark() throws Exception {
    // Its maxTimestamp is Long.MIN_VALUE, which the operator's initial watermark already reaches:
    // with no lateness it is late on arrival, with some it fires at once.
    Event e = new Event("e1", "a", Long.MIN_VALUE, 1);
    assertEquals(List.of(e), sessions(1, 0, event("e1", "a", Long.MIN_VALUE, 1)).get(0).late());
    assertEquals(
        List.of(new Result("a", Long.MIN_VALUE, Long.MIN_VALUE + 1, 1, 1, false)),
        sessions(1, 3, event("e1", "a", Long.MIN_VALUE, 1)).get(0).results());
  }
}
