package dev.flkbyo.flink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 12's job: state in RocksDB, the results of state on the heap. */
@ExtendWith(FlinkCluster.class)
class Stage12RocksDbTest {
  @Test
  void stateInRocksDbChangesNoResult() throws Exception {
    Output out = Stage12RocksDb.run(FlinkCluster.env(1), Stage04CheckpointsTest.DEMO, Stage12RocksDb.Config.DEFAULTS);
    // The job asked for RocksDB by configuration only: check that Flink did make a RocksDB backend.
    // EmbeddedRocksDBStateBackend loads RocksDB's native library when it creates its first keyed
    // state backend in a JVM, and records that in a private flag; no other job here uses RocksDB.
    var loaded = EmbeddedRocksDBStateBackend.class.getDeclaredField("rocksDbInitialized");
    loaded.setAccessible(true);
    assertTrue((boolean) loaded.get(null), "the job's state went to RocksDB");

    Output heap = Stage04Checkpoints.run(FlinkCluster.env(1), Stage04CheckpointsTest.DEMO, Stage04Checkpoints.Config.DEFAULTS);
    assertEquals(heap.sortedResults(), out.sortedResults());
    assertEquals(heap.late(), out.late());
  }
}
