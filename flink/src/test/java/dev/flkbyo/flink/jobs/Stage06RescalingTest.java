package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 06's job at two parallelisms, and Flink's key-group formulas the card cites. */
@ExtendWith(FlinkCluster.class)
class Stage06RescalingTest {
  /** The stream of `de demo 06`: five keys, then e6, and a replay of e2 after the rescale. */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 1, 1), ev("e2", "b", 2, 2), ev("e3", "c", 3, 3), ev("e4", "d", 4, 4),
          ev("e5", "e", 5, 5), ev("e6", "a", 12, 6), ev("e2", "b", 2, 2));

  static final List<Result> WANT =
      List.of(
          first("a", 0, 10, 1, 1), first("b", 0, 10, 1, 2), first("c", 0, 10, 1, 3), first("d", 0, 10, 1, 4),
          first("e", 0, 10, 1, 5), first("a", 10, 20, 1, 6));

  @Test
  void theResultsAreTheSameOnOneSubtaskAndOnTwo() throws Exception {
    // No event of this stream is late, or corrects a window, at any watermark the windows may see:
    // at parallelism 2 they take the minimum over two dedup subtasks, which may lag the source's.
    for (int p = 1; p <= FlinkCluster.SLOTS; p++) {
      var cfg = new Stage06Rescaling.Config(10, 0, 0, 8, p, Emit.PER_EVENT);
      Output out = Stage06Rescaling.run(FlinkCluster.env(p), DEMO, cfg);
      assertEquals(WANT, out.sortedResults(), "parallelism " + p);
      assertEquals(List.of(), out.late(), "parallelism " + p);
    }
  }

  @Test
  void keyGroupRangesAreContiguousAndCoverEveryGroup() {
    // The card's example: maxP 128 at p = 3 gives [0,42] [43,85] [86,127].
    assertEquals(KeyGroupRange.of(0, 42), KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 3, 0));
    assertEquals(KeyGroupRange.of(43, 85), KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 3, 1));
    assertEquals(KeyGroupRange.of(86, 127), KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 3, 2));
    // A key's subtask is its key group's: kg * p / maxP, the range that holds kg, at every p.
    for (String key : List.of("a", "b", "c", "d", "e")) {
      int kg = KeyGroupRangeAssignment.assignToKeyGroup(key, 8);
      for (int p = 1; p <= 8; p++) {
        int task = KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(8, p, kg);
        assertEquals(task, KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 8, p));
        assertEquals(true, KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(8, p, task).contains(kg));
      }
    }
    // The default max parallelism: min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768).
    assertEquals(128, KeyGroupRangeAssignment.computeDefaultMaxParallelism(3));
    assertEquals(256, KeyGroupRangeAssignment.computeDefaultMaxParallelism(100));
    assertEquals(32768, KeyGroupRangeAssignment.computeDefaultMaxParallelism(30000));
  }
}
