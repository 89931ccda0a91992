package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static dev.flkbyo.flink.jobs.Fixtures.update;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 03's job: a correction within the allowed lateness, and an event beyond it. */
@ExtendWith(FlinkCluster.class)
class Stage03LatenessTest {
  /** The stream of `de demo 03` (windows of 10, no delay, lateness 10). */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 2, 1), ev("e2", "a", 5, 2), ev("e3", "a", 11, 3),
          ev("e4", "a", 7, 4), ev("e5", "a", 21, 5), ev("e6", "a", 3, 6));

  @Test
  void aLateEventWithinTheLatenessCorrectsItsWindow() throws Exception {
    Output out = Stage03Lateness.run(FlinkCluster.env(1), DEMO, Stage03Lateness.Config.DEFAULTS);
    // e3@11 fires [0,10); e4@7 corrects it (watermark 11 < 10 + 10); e5@21 fires [10,20) and
    // expires [0,10), so e6@3 is late.
    assertEquals(
        List.of(first("a", 0, 10, 2, 3), update("a", 0, 10, 3, 7), first("a", 10, 20, 1, 3), first("a", 20, 30, 1, 5)),
        out.sortedResults());
    assertEquals(List.of(ev("e6", "a", 3, 6)), out.late());
  }

  @Test
  void periodicWatermarksChangeTheUpdatesButNotWhatDownstreamHolds() throws Exception {
    // With periodic watermarks e4 is a correction only if a watermark ≥ 10 was emitted between e3
    // and e4; otherwise [0,10) first fires with e4 in it. The results depend on timing, so this
    // compares what a downstream that keeps each window's last result holds: that does not, on a
    // stream where no event is late at the per-event watermark (without e6).
    var cfg = new Stage03Lateness.Config(10, 0, 10, Emit.PERIODIC);
    Output out = Stage03Lateness.run(FlinkCluster.env(1), DEMO.subList(0, 5), cfg);
    assertEquals(
        List.of(first("a", 0, 10, 3, 7), first("a", 10, 20, 1, 3), first("a", 20, 30, 1, 5)),
        lastPerWindow(out.results()));
    assertEquals(List.of(), out.late());
  }

  /** Each (key, window)'s last result, as a first result, in (End, Start, Key) order. */
  static List<Result> lastPerWindow(List<Result> results) {
    Map<List<Object>, Result> last = new LinkedHashMap<>();
    for (Result r : results) {
      last.put(List.of(r.key(), r.start(), r.end()), first(r.key(), r.start(), r.end(), r.count(), r.sum()));
    }
    return new Output(List.copyOf(last.values()), List.of()).sortedResults();
  }
}
