package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * Counts and sums a window's values as the events arrive: Flink's incremental aggregation, which
 * keeps one {@link Tally} per key and window instead of the events themselves, as the course's
 * processors keep a count and a sum. Passed to {@code aggregate(new CountAndSum(), ...)} with a
 * ProcessWindowFunction that turns the tally into a Result.
 */
public final class CountAndSum implements AggregateFunction<Event, Tally, Tally> {
  @Override
  public Tally createAccumulator() {
    return new Tally(0, 0);
  }

  @Override
  public Tally add(Event e, Tally t) {
    return new Tally(t.count() + 1, t.sum() + e.value());
  }

  @Override
  public Tally getResult(Tally t) {
    return t;
  }

  /** Merges the tallies of two session windows that an event bridged (stage 08). */
  @Override
  public Tally merge(Tally a, Tally b) {
    return new Tally(a.count() + b.count(), a.sum() + b.sum());
  }
}
