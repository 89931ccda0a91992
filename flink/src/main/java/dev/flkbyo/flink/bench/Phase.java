package dev.flkbyo.flink.bench;

import java.lang.management.ManagementFactory;

/**
 * The clocks of a pass: the JVM's CPU time (every thread's: the tasks', the garbage collector's,
 * the JIT compiler's, RocksDB's native ones) and wall time, read when the job is submitted and
 * when it has ended, and, for the records phase, when the source hands out its first event and
 * when the sink closes after the last result. One pass runs at a time.
 */
final class Phase {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private static volatile long firstWall, firstCpu, doneWall, doneCpu;

  private Phase() {}

  /** The process's CPU time so far, in nanoseconds, on all its threads. */
  static long cpu() {
    return OS.getProcessCpuTime();
  }

  /** Forgets the last pass's marks. */
  static void reset() {
    firstWall = firstCpu = doneWall = doneCpu = 0;
  }

  /** Marks the source's first event. */
  static void firstEvent() {
    firstCpu = cpu();
    firstWall = System.nanoTime();
  }

  /** Marks the end of the results: the sink closing. */
  static void resultsDone() {
    doneCpu = cpu();
    doneWall = System.nanoTime();
  }

  /** Wall time from the first event to the end of the results, or 0 if a mark is missing. */
  static long recordsWall() {
    return firstWall == 0 || doneWall == 0 ? 0 : doneWall - firstWall;
  }

  /** CPU time from the first event to the end of the results, or 0 if a mark is missing. */
  static long recordsCpu() {
    return firstCpu == 0 || doneCpu == 0 ? 0 : doneCpu - firstCpu;
  }
}
