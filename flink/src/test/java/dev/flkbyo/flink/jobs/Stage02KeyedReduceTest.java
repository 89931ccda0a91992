package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 02's job on 2 parallel subtasks: each key's rolling sum, in input order. */
@ExtendWith(FlinkCluster.class)
class Stage02KeyedReduceTest {
  /** The stream of `de demo 02`. */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "alice", 0, 3), ev("e2", "bob", 0, 1), ev("e3", "carol", 0, 4), ev("e4", "alice", 0, 1),
          ev("e5", "dave", 0, 5), ev("e6", "bob", 0, 9), ev("e7", "carol", 0, 2), ev("e8", "alice", 0, 6));

  @Test
  void eachKeyIsFoldedInInputOrderOnParallelSubtasks() throws Exception {
    var out = Stage02KeyedReduce.run(FlinkCluster.env(2), DEMO, new Stage02KeyedReduce.Config(2));
    // A key's outputs come from one subtask over one channel: in input order. Across keys the
    // interleaving may differ from run to run, so compare per key.
    Map<String, List<Long>> rolling =
        out.rolling().stream()
            .collect(Collectors.groupingBy(Event::key, TreeMap::new, Collectors.mapping(Event::value, Collectors.toList())));
    assertEquals(
        Map.of("alice", List.of(3L, 4L, 10L), "bob", List.of(1L, 10L), "carol", List.of(4L, 6L), "dave", List.of(5L)),
        rolling);
    // RunParallel's answer: each key's last output, the key's first event with the sum.
    assertEquals(
        Map.of(
            "alice", ev("e1", "alice", 0, 10), "bob", ev("e2", "bob", 0, 10),
            "carol", ev("e3", "carol", 0, 6), "dave", ev("e5", "dave", 0, 5)),
        new LinkedHashMap<>(out.last()));
  }
}
