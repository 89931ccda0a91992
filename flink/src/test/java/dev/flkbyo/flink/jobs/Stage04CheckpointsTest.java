package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 04's job: checkpoints on, the same results as without. */
@ExtendWith(FlinkCluster.class)
class Stage04CheckpointsTest {
  /** The stream of `de demo 04`, with e3 replayed after the restore (a redelivery). */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 1, 1), ev("e2", "b", 4, 2), ev("e3", "a", 12, 3), ev("e3", "a", 12, 3),
          ev("e4", "b", 15, 4), ev("e5", "a", 23, 5));

  @Test
  void checkpointingChangesNoResult() throws Exception {
    Output out = Stage04Checkpoints.run(FlinkCluster.env(1), DEMO, Stage04Checkpoints.Config.DEFAULTS);
    assertEquals(
        List.of(
            first("a", 0, 10, 1, 1), first("b", 0, 10, 1, 2), first("a", 10, 20, 1, 3), first("b", 10, 20, 1, 4),
            first("a", 20, 30, 1, 5)),
        out.sortedResults());
    assertEquals(List.of(), out.late());
  }
}
