package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static dev.flkbyo.flink.jobs.Fixtures.update;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 08's job: sessions, a late bridge and its retractions, an expired session forgotten. */
@ExtendWith(FlinkCluster.class)
class Stage08SessionsTest {
  /**
   * `de demo 08`'s story with the watermark made from the events (no delay): c@30 and d@60 move
   * it where the demo's AdvanceWatermark(30) and (60) do.
   */
  static final List<Event> STREAM =
      List.of(
          ev("e1", "a", 0, 1), ev("e2", "a", 18, 2), ev("e3", "b", 5, 3), ev("e4", "c", 30, 1),
          ev("e5", "a", 9, 4), ev("e6", "d", 60, 1), ev("e7", "a", 5, 5), ev("e2", "a", 18, 2));

  @Test
  void aLateBridgeRetractsTheSessionsItMerges() throws Exception {
    Output out = Stage08Sessions.run(FlinkCluster.env(1), STREAM, Stage08Sessions.Config.DEFAULTS);
    assertEquals(
        List.of(
            first("a", 0, 10, 1, 1), // e2@18: the watermark passes a's first session
            first("b", 5, 15, 1, 3), // e3@5: its session's end is behind the watermark, it fires at once
            first("a", 18, 28, 1, 2), // c@30
            // e5@9 bridges [0,10) and [18,28) into [0,28), behind the watermark: retract both, then
            // the merged session, an update
            update("a", 0, 10, -1, -1), update("a", 18, 28, -1, -2), update("a", 0, 28, 3, 7),
            first("c", 30, 40, 1, 1), // d@60, which also expires a's [0,28): 28 + 30 ≤ 60
            first("d", 60, 70, 1, 1)), // the end of input
        out.results(), "the changelog in emission order: parallelism 1");
    // e7@5 would need a session of a around 5; [0,28) has expired and a new [5,15) would be too:
    // late. The redelivered e2 is dropped.
    assertEquals(List.of(ev("e7", "a", 5, 5)), out.late());
  }
}
