package dev.flkbyo.flink;

import java.util.List;

/**
 * A window scenario (kind "window"): the window operator's settings and the arrival sequence, one
 * operation at a time. The Go side has already mapped the course's conventions onto Flink's (see
 * flink/README.md): what arrives here is said in Flink's terms.
 *
 * @param window the window operator's settings
 * @param ops the arrival sequence
 */
public record Scenario(WindowSpec window, List<Op> ops) {

  /**
   * A window operator's settings, in milliseconds.
   *
   * @param assigner "tumbling", "sliding" or "session"
   * @param size the window size (tumbling and sliding)
   * @param slide the slide (sliding)
   * @param gap the session gap (session)
   * @param eventWatermarks whether the watermark comes from the events, through
   *     BoundedOutOfOrdernessWatermarks(delay), as well as from "watermark" operations
   * @param delay the bound of BoundedOutOfOrdernessWatermarks
   * @param lateness the allowed lateness
   * @param backend the state backend the operator keeps its keyed state and timers in: "hashmap"
   *     (Flink's HashMapStateBackend, also when null or absent) or "rocksdb"
   *     (EmbeddedRocksDBStateBackend); see StateBackends
   */
  public record WindowSpec(
      String assigner,
      long size,
      long slide,
      long gap,
      boolean eventWatermarks,
      long delay,
      long lateness,
      String backend) {

    /** A spec on the harness's default backend, HashMapStateBackend. */
    public WindowSpec(
        String assigner, long size, long slide, long gap, boolean eventWatermarks, long delay, long lateness) {
      this(assigner, size, slide, gap, eventWatermarks, delay, lateness, null);
    }
  }

  /**
   * One arrival: an event ("event"), a watermark from upstream ("watermark", in Flink's terms),
   * or the end of a bounded input ("end": Flink's final Long.MAX_VALUE watermark); or a restore
   * ("restore"): the operator is snapshotted, closed, and a new one restored from the snapshot
   * carries on (see WindowRun).
   */
  public record Op(String op, Event event, long wm) {}
}
