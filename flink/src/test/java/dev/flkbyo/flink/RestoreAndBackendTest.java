package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The runner's "restore" operation and its state backends, on scenarios small enough to check by
 * hand: a restored WindowOperator carries on as the uninterrupted one, on the heap and in RocksDB,
 * and the backend a spec names is the one the harness really uses.
 */
class RestoreAndBackendTest {
  private static Scenario.Op event(String id, String key, long ts, long value) {
    return new Scenario.Op("event", new Event(id, key, ts, value), 0);
  }

  private static final Scenario.Op RESTORE = new Scenario.Op("restore", null, 0);

  private static Scenario.WindowSpec spec(String backend) {
    return new Scenario.WindowSpec("tumbling", 10, 0, 0, true, 0, 5, backend);
  }

  /** WindowRunTest's scenario, with a restore after every operation. */
  private static List<Scenario.Op> restoredEverywhere() {
    List<Scenario.Op> ops = new ArrayList<>();
    for (Scenario.Op o :
        List.of(
            event("e1", "a", 3, 1),
            event("e2", "a", 12, 2), // watermark 11: [0,10) fires
            event("e3", "a", 4, 5), // a late firing: the "fired" state and the contents came back
            new Scenario.Op("watermark", null, 29), // [10,20)'s timer came back, and fires
            event("e4", "a", 5, 7), // the watermark came back: 9 + 5 ≤ 29, side output
            new Scenario.Op("end", null, Long.MAX_VALUE))) {
      ops.add(RESTORE);
      ops.add(o);
    }
    ops.add(RESTORE);
    return ops;
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void restoreAfterEveryOperationCarriesOnAsTheUninterruptedRun(String backend) throws Exception {
    List<Step> steps = WindowRun.run(new Scenario(spec(backend), restoredEverywhere()));
    var noWatermark = new Step(List.of(), List.of(), Long.MIN_VALUE);
    assertEquals(
        List.of(
            noWatermark,
            new Step(List.of(), List.of(), 2),
            new Step(List.of(), List.of(), 2), // a restore changes nothing: the watermark is 2 still
            new Step(List.of(new Result("a", 0, 10, 1, 1, false)), List.of(), 11),
            new Step(List.of(), List.of(), 11),
            new Step(List.of(new Result("a", 0, 10, 2, 6, true)), List.of(), 11),
            new Step(List.of(), List.of(), 11),
            new Step(List.of(new Result("a", 10, 20, 1, 2, false)), List.of(), 29),
            new Step(List.of(), List.of(), 29),
            new Step(List.of(), List.of(new Event("e4", "a", 5, 7)), 29),
            new Step(List.of(), List.of(), 29), // the new harness's side output starts empty
            new Step(List.of(), List.of(), Long.MAX_VALUE),
            new Step(List.of(), List.of(), Long.MAX_VALUE)),
        steps);
  }

  @Test
  void rocksdbSpecRunsOnRocksDBAndCleansUp() throws Exception {
    Path dir;
    try (var backends = StateBackends.of("rocksdb")) {
      dir = backends.dir();
      try (var h = WindowRun.harness(spec("rocksdb"), backends)) {
        h.open();
        assertInstanceOf(RocksDBKeyedStateBackend.class, h.getOperator().getKeyedStateBackend());
        h.processElement(new StreamRecord<>(new Event("e1", "a", 3, 1), 3));
        try (var files = Files.list(dir)) {
          assertTrue(files.findAny().isPresent(), "RocksDB keeps its instance in " + dir);
        }
      }
    }
    assertFalse(Files.exists(dir), "the runner deletes RocksDB's folder");
  }

  @Test
  void hashmapSpecRunsOnTheHeap() throws Exception {
    try (var backends = StateBackends.of("hashmap");
        var h = WindowRun.harness(spec("hashmap"), backends)) {
      assertNull(backends.dir());
      h.open();
      assertInstanceOf(HeapKeyedStateBackend.class, h.getOperator().getKeyedStateBackend());
    }
  }

  /**
   * What the runner's restore adds: Flink's snapshot holds no watermark, so a restored operator
   * starts at Long.MIN_VALUE (InternalTimerServiceImpl) and takes an event for a window that
   * fired before the snapshot as on time: no late firing at once, a timer instead. The runner
   * passes the restored operator the last watermark, as the course's snapshot holds it.
   */
  @Test
  void restoredOperatorStartsWithoutAWatermark() throws Exception {
    var w = spec("hashmap");
    OperatorSubtaskState snapshot;
    try (var backends = StateBackends.of("hashmap");
        var before = WindowRun.harness(w, backends)) {
      before.open();
      before.processElement(new StreamRecord<>(new Event("e1", "a", 3, 1), 3));
      before.processWatermark(new Watermark(11)); // [0,10) fires
      assertEquals(List.of(new Result("a", 0, 10, 1, 1, false)), before.extractOutputValues());
      snapshot = before.snapshot(1, 1);
    }
    try (var backends = StateBackends.of("hashmap");
        var after = WindowRun.harness(w, backends)) {
      after.initializeState(snapshot);
      after.open();
      after.processElement(new StreamRecord<>(new Event("e3", "a", 4, 5), 4));
      assertEquals(List.of(), after.extractOutputValues(), "no watermark yet: no late firing at once");
      after.processWatermark(new Watermark(11));
      assertEquals(
          List.of(new Result("a", 0, 10, 2, 6, true)),
          after.extractOutputValues(),
          "the window's contents and fired flag came back; it fires when a watermark comes");
    }
  }
}
