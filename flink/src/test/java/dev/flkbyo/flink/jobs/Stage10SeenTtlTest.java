package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static dev.flkbyo.flink.jobs.Fixtures.update;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 10's job: a seen TTL one short of the line counts a redelivery twice; on it, never. */
@ExtendWith(FlinkCluster.class)
class Stage10SeenTtlTest {
  @Test
  void oneShortOfTheLineARedeliveryIsCountedTwice() throws Exception {
    // Windows of 10, lateness 5: [0,10) fires at 10 and expires at 15. A TTL of 14 forgets a1 at
    // watermark 14, while its window still takes corrections.
    var cfg = new Stage10SeenTtl.Config(10, 0, 5, 14, Emit.PER_EVENT);
    List<Event> in = List.of(ev("a1", "a", 0, 1), ev("b1", "b", 14, 1), ev("a1", "a", 0, 1));
    Output out = Stage10SeenTtl.run(FlinkCluster.env(1), in, cfg);
    assertEquals(
        List.of(first("a", 0, 10, 1, 1), update("a", 0, 10, 2, 2), first("b", 10, 20, 1, 1)), out.sortedResults());
    assertEquals(List.of(), out.late());
  }

  @Test
  void onTheLineARedeliveryIsNeverCountedTwice() throws Exception {
    // A TTL of 15 = size + lateness keeps a1 until [0,10) expires; after that its redelivery is
    // late, as it would be anyway.
    var cfg = new Stage10SeenTtl.Config(10, 0, 5, 15, Emit.PER_EVENT);
    List<Event> in =
        List.of(ev("a1", "a", 0, 1), ev("b1", "b", 14, 1), ev("a1", "a", 0, 1), ev("c1", "c", 15, 1), ev("a1", "a", 0, 1));
    Output out = Stage10SeenTtl.run(FlinkCluster.env(1), in, cfg);
    assertEquals(
        List.of(first("a", 0, 10, 1, 1), first("b", 10, 20, 1, 1), first("c", 10, 20, 1, 1)), out.sortedResults());
    assertEquals(List.of(ev("a1", "a", 0, 1)), out.late());
  }
}
