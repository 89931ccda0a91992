package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.junit.jupiter.api.Test;

/**
 * The "seenttl" kind's wiring on scenarios small enough to check by hand: the dedup function's
 * timers forget an ID when Flink's watermark reaches ts + TTL − 1, and what the window operator
 * downstream makes of a redelivery then.
 */
class SeenTTLRunTest {
  private static final Scenario.WindowSpec TUMBLING_10 = new Scenario.WindowSpec("tumbling", 10, 0, 0, true, 0, 0);

  private static Scenario.Op event(String id, String key, long ts, long value) {
    return new Scenario.Op("event", new Event(id, key, ts, value), 0);
  }

  private static Scenario.Op watermark(long wm) {
    return new Scenario.Op("watermark", null, wm);
  }

  @Test
  void onTheLineARedeliveryAfterForgettingIsLate() throws Exception {
    Event a1 = new Event("a1", "a", 0, 1);
    List<SeenTTLRun.DedupStep> steps =
        SeenTTLRun.run(
            new SeenTTLRun.Spec(TUMBLING_10, 10), // the line: size 10 + lateness 0
            List.of(
                event("a1", "a", 0, 1), // remembered; its timer at 0 + 10 − 1 = 9
                event("a1", "a", 0, 1), // a redelivery: dropped
                event("b1", "a", 12, 1), // watermark 11: [0,10) fires, the timer at 9 forgets a1
                event("a1", "a", 0, 1))); // new again, and late: [0,10) is gone
    assertEquals(new SeenTTLRun.DedupStep(List.of(), List.of(), -1, List.of(), 1), steps.get(0));
    assertEquals(new SeenTTLRun.DedupStep(List.of(), List.of(), -1, List.of(a1), 1), steps.get(1));
    assertEquals(
        new SeenTTLRun.DedupStep(List.of(new Result("a", 0, 10, 1, 1, false)), List.of(), 11, List.of(), 1),
        steps.get(2),
        "b1 is remembered (until 21), a1 is forgotten");
    assertEquals(
        new SeenTTLRun.DedupStep(List.of(), List.of(a1), 11, List.of(), 1),
        steps.get(3),
        "a1's time (9) has come: it goes on to the side output and is not remembered again");
  }

  @Test
  void oneShortOfTheLineARedeliveryCountsTwice() throws Exception {
    List<SeenTTLRun.DedupStep> steps =
        SeenTTLRun.run(
            new SeenTTLRun.Spec(TUMBLING_10, 9),
            List.of(
                event("a1", "a", 0, 1), // its timer at 0 + 9 − 1 = 8
                watermark(8), // the course's 9: a1 forgotten, [0,10) (max timestamp 9) still open
                event("a1", "a", 0, 1),
                new Scenario.Op("end", null, Long.MAX_VALUE)));
    assertEquals(0, steps.get(1).remembered());
    assertEquals(List.of(), steps.get(2).dropped());
    assertEquals(List.of(new Result("a", 0, 10, 2, 2, false)), steps.get(3).results());
  }

  @Test
  void zeroTTLRemembersForever() throws Exception {
    List<SeenTTLRun.DedupStep> steps =
        SeenTTLRun.run(
            new SeenTTLRun.Spec(TUMBLING_10, 0),
            List.of(event("a1", "a", 0, 1), new Scenario.Op("end", null, Long.MAX_VALUE), event("a1", "a", 0, 1)));
    assertEquals(1, steps.get(1).remembered());
    assertEquals(List.of(new Event("a1", "a", 0, 1)), steps.get(2).dropped());
  }

  /**
   * Pins the Flink side of docs/PARITY.md's row on event-time TTL: Flink 2.3.0's state TTL knows
   * processing time only, so event-time expiry needs timers, as this kind's function has. If a
   * Flink release adds an event-time characteristic, this fails: revisit that row.
   */
  @Test
  void stateTtlIsProcessingTimeOnly() {
    assertEquals(
        List.of(StateTtlConfig.TtlTimeCharacteristic.ProcessingTime),
        List.of(StateTtlConfig.TtlTimeCharacteristic.values()));
  }
}
