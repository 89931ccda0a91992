package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;

/** Short names for the job tests' events and results. */
final class Fixtures {
  private Fixtures() {}

  /** An event: ID, key, timestamp, value. */
  static Event ev(String id, String key, long ts, long value) {
    return new Event(id, key, ts, value);
  }

  /** A first result of a window: key, [start, end), count, sum. */
  static Result first(String key, long start, long end, long count, long sum) {
    return new Result(key, start, end, count, sum, false);
  }

  /** A late firing's result: an update. */
  static Result update(String key, long start, long end, long count, long sum) {
    return new Result(key, start, end, count, sum, true);
  }
}
