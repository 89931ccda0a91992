package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Drops redeliveries: the course's dedup by ID, the way a Flink job does it. The stream is keyed
 * by ID, and each ID has one {@code ValueState<Boolean>} "seen": the first delivery passes and sets
 * it, any later one is dropped.
 *
 * <p>Flink itself does not deduplicate: exactly-once there means replayable sources and
 * transactional sinks (stage 05), and a source that redelivers (at-least-once) needs this step.
 * The course's processors dedup inside the window operator; here it is a step before the windows,
 * so a redelivery never reaches them, and is never counted or sent to the side output twice. One
 * difference remains: the watermark is made at the source, before this step, so a redelivery whose
 * timestamp is higher than the first delivery's can still raise it, where the course's redelivery
 * changes nothing at all (docs/PARITY.md, deliberate difference 1). A redelivery is normally a copy,
 * and then it cannot.
 *
 * <p>State per ID grows forever unless it is bounded: {@code seenTtl} > 0 forgets an ID once the
 * watermark reaches {@code ts + seenTtl} (stage 10, where the Javadoc of Stage10SeenTtl says why it
 * is an event-time timer and not Flink's StateTtlConfig); 0 remembers every ID, as the course's
 * NewProcessor does.
 */
public final class DedupById extends KeyedProcessFunction<String, Event, Event> {
  private final long seenTtl;
  private transient ValueState<Boolean> seen;

  /** A dedup that remembers each ID for {@code seenTtl} ms of event time, or forever if 0. */
  public DedupById(long seenTtl) {
    if (seenTtl < 0) {
      throw new IllegalArgumentException("seen TTL must not be negative, got " + seenTtl);
    }
    this.seenTtl = seenTtl;
  }

  /** Returns the events without redeliveries: {@code keyBy(id)}, then this function. */
  public static DataStream<Event> dropRedeliveries(DataStream<Event> events, long seenTtl) {
    return events.keyBy(Event::id).process(new DedupById(seenTtl)).name("dedup by ID");
  }

  @Override
  public void open(OpenContext ctx) {
    seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.BOOLEAN));
  }

  @Override
  public void processElement(Event e, Context ctx, Collector<Event> out) throws Exception {
    if (seen.value() != null) {
      return; // a redelivery
    }
    out.collect(e);
    if (seenTtl == 0) {
      seen.update(true);
      return;
    }
    // Forget the ID when the watermark reaches ts + seenTtl in the course's terms: Flink's
    // watermark is the course's − 1, and an event-time timer fires once the watermark is ≥ its time.
    long forgetAt = saturatedAdd(e.ts(), seenTtl) - 1;
    if (forgetAt <= ctx.timerService().currentWatermark()) {
      return; // its time has already come: not remembered at all, as in the course
    }
    seen.update(true);
    ctx.timerService().registerEventTimeTimer(forgetAt);
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<Event> out) {
    seen.clear();
  }

  private static long saturatedAdd(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s; // b ≥ 0: only upward overflow
  }
}
