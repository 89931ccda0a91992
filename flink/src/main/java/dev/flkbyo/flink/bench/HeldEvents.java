package dev.flkbyo.flink.bench;

import dev.flkbyo.flink.Event;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * The benchmark job's events, handed out by index to Flink's {@code DataGeneratorSource}: the
 * source reads events already in this JVM's memory, as the course's processor takes them from a
 * Go slice, and decodes nothing.
 *
 * <p>{@code env.fromData} (the graduation jobs' source) instead serializes its elements into the
 * job when the pipeline is built and deserializes one per record, a cost the Go side has no
 * counterpart of. The events are held in a static map, by name, which the source's function reads
 * when it opens: so it works only on a MiniCluster in the same JVM, whose tasks load this class
 * from the same class loader (a job with no jars of its own does).
 */
final class HeldEvents implements GeneratorFunction<Long, Event> {
  private static final Map<String, Event[]> HELD = new ConcurrentHashMap<>();
  private static final AtomicLong NAMES = new AtomicLong();

  private final String name;
  private transient Event[] events;

  private HeldEvents(String name) {
    this.name = name;
  }

  /** Holds events for jobs to read, until {@link #release}; returns their generator. */
  static HeldEvents hold(Event[] events) {
    String name = "events-" + NAMES.incrementAndGet();
    HELD.put(name, events);
    return new HeldEvents(name);
  }

  /** Lets go of the events. */
  void release() {
    HELD.remove(name);
  }

  /** The number of events held. */
  int size() {
    return HELD.get(name).length;
  }

  @Override
  public void open(SourceReaderContext ctx) {
    events = HELD.get(name);
    if (events == null) {
      throw new IllegalStateException("no events held as " + name + ": the benchmark's source runs only on a MiniCluster in the JVM that holds them");
    }
  }

  @Override
  public Event map(Long index) {
    long i = index;
    if (i == 0) {
      Phase.firstEvent();
    }
    return events[(int) i];
  }
}
