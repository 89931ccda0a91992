package dev.flkbyo.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/**
 * The state backend of one scenario's operator test harnesses: Flink's HashMapStateBackend (state
 * as objects on the heap; the harness's own default) or EmbeddedRocksDBStateBackend (state as
 * serialized bytes in an embedded RocksDB, timers included: its default priority queue type is
 * ROCKSDB, and its snapshots are full ones, as incremental checkpoints are off by default).
 *
 * <p>RocksDB keeps its files in a folder of its own, which this class makes and deletes, with
 * whatever is left in it, on close. Every harness of a scenario (the first one and every restored
 * one) gets a new backend object over that folder; each RocksDB instance makes a sub-folder of its
 * own there and removes it when its harness closes. The folder is in memory, under /dev/shm, when
 * the machine has one we can write to, and in the system's temporary folder otherwise: RocksDB
 * syncs its files as it opens, snapshots and closes, which on a busy disk costs a scenario on
 * RocksDB several times what its operator does.
 */
public final class StateBackends implements AutoCloseable {
  private final String name;
  private final Path dir; // RocksDB's folder; null on the heap

  private StateBackends(String name, Path dir) {
    this.name = name;
    this.dir = dir;
  }

  /** The backend a spec names: "hashmap" (also null) or "rocksdb". */
  static StateBackends of(String name) throws IOException {
    if (name == null || name.equals("hashmap")) {
      return new StateBackends("hashmap", null);
    }
    if (name.equals("rocksdb")) {
      return new StateBackends(name, scratchDir("flkbyo-rocksdb-"));
    }
    throw new IllegalArgumentException("unknown state backend " + name + "; known: hashmap, rocksdb");
  }

  /**
   * Makes a new folder for RocksDB's files: under /dev/shm, in memory, when the machine has one we
   * can write to, else in the system's temporary folder (see the class's Javadoc). The caller
   * deletes it.
   */
  public static Path scratchDir(String prefix) throws IOException {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, prefix)
        : Files.createTempDirectory(prefix);
  }

  /** A new backend object, for one harness. */
  StateBackend create() {
    if (dir == null) {
      return new HashMapStateBackend();
    }
    var rocks = new EmbeddedRocksDBStateBackend();
    rocks.setDbStoragePath(dir.toString());
    return rocks;
  }

  /**
   * Where a harness's snapshots go: in memory, as the harness's default, but with room for 256 MiB
   * instead of its 5 MiB. A RocksDB snapshot is a native checkpoint of its files, whose size
   * depends on when RocksDB last flushed and compacted in the background (its MANIFEST and log
   * files included), not only on the state: a few windows' snapshot was once 6.8 MB, and the
   * default limit failed the scenario at random.
   */
  CheckpointStorage checkpointStorage() {
    return new JobManagerCheckpointStorage(256 << 20);
  }

  /** RocksDB's folder, or null on the heap. */
  Path dir() {
    return dir;
  }

  @Override
  public String toString() {
    return name;
  }

  /** Deletes RocksDB's folder. */
  @Override
  public void close() {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("deleting RocksDB's folder " + dir, e);
    }
  }
}
