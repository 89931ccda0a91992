package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 01's job on a MiniCluster: the demo's stream gives the course's results. */
@ExtendWith(FlinkCluster.class)
class Stage01TumblingWindowsTest {
  /** The stream of `de demo 01`: disorder, a redelivery (e2) and a late event (e6). */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 1, 1), ev("e2", "b", 3, 2), ev("e3", "a", 12, 3), ev("e4", "a", 4, 4),
          ev("e2", "b", 3, 2), ev("e5", "b", 16, 5), ev("e6", "a", 8, 6));

  @Test
  void demoStreamGivesTheCoursesResults() throws Exception {
    Output out = Stage01TumblingWindows.run(FlinkCluster.env(1), DEMO, Stage01TumblingWindows.Config.DEFAULTS);
    // e5@16 raises the watermark to 16 − 5 (Flink: 10 ≥ 9, [0,10)'s maxTimestamp): [0,10) fires
    // with e4, which came after e3@12 but before that; e2 counts once; e6@8 is then late.
    assertEquals(
        List.of(first("a", 0, 10, 2, 5), first("b", 0, 10, 1, 2), first("a", 10, 20, 1, 3), first("b", 10, 20, 1, 5)),
        out.sortedResults());
    assertEquals(List.of(ev("e6", "a", 8, 6)), out.late());
  }

  @Test
  void periodicWatermarksGiveTheSameOnAStreamWithoutLateEvents() throws Exception {
    // Without e6 no event is late at the per-event watermark, so none is at any lower one, which is
    // all a periodic watermark can be: the results cannot depend on when watermarks are emitted.
    var cfg = new Stage01TumblingWindows.Config(10, 5, Emit.PERIODIC);
    Output out = Stage01TumblingWindows.run(FlinkCluster.env(1), DEMO.subList(0, 6), cfg);
    assertEquals(
        List.of(first("a", 0, 10, 2, 5), first("b", 0, 10, 1, 2), first("a", 10, 20, 1, 3), first("b", 10, 20, 1, 5)),
        out.sortedResults());
    assertEquals(List.of(), out.late());
  }
}
