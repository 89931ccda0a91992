package dev.flkbyo.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;

/**
 * Reads what an operator under a Flink test harness emitted, in the order it emitted it: to hand
 * it to the next operator of a chain, or to report it as a step.
 */
final class Outputs {
  private Outputs() {}

  /** The next operator of a chain: what receives one operator's records and watermarks. */
  interface Downstream<T> {
    void record(StreamRecord<T> r) throws Exception;

    void watermark(Watermark wm) throws Exception;
  }

  /**
   * Takes from h's output everything emitted since the last call and hands it to next in emission
   * order: records and watermarks interleaved exactly as the operator emitted them, which is the
   * order a network channel would deliver them in. Anything else in the output (watermark
   * statuses, record attributes) is dropped: no scenario makes any.
   */
  @SuppressWarnings("unchecked")
  static <T> void forward(AbstractStreamOperatorTestHarness<T> h, Downstream<T> next) throws Exception {
    Queue<Object> q = h.getOutput();
    for (Object o; (o = q.poll()) != null; ) {
      if (o instanceof StreamRecord<?> r) {
        next.record((StreamRecord<T>) r);
      } else if (o instanceof Watermark w) {
        next.watermark(w);
      }
    }
  }

  /** Takes from h's side output tag the records emitted since the last call, in order. */
  static <X> List<X> side(AbstractStreamOperatorTestHarness<?> h, OutputTag<X> tag) {
    List<X> out = new ArrayList<>();
    Queue<StreamRecord<X>> q = h.getSideOutput(tag);
    if (q != null) {
      for (StreamRecord<X> r; (r = q.poll()) != null; ) {
        out.add(r.getValue());
      }
    }
    return out;
  }

  /** Collects a chain's last records, and the last watermark its operator passed on. */
  static final class Collected<T> implements Downstream<T> {
    final List<T> records = new ArrayList<>();
    long watermark = Long.MIN_VALUE;

    @Override
    public void record(StreamRecord<T> r) {
      records.add(r.getValue());
    }

    @Override
    public void watermark(Watermark wm) {
      watermark = wm.getTimestamp();
    }

    /** Returns the records collected since the last call and forgets them. */
    List<T> take() {
      List<T> out = new ArrayList<>(records);
      records.clear();
      return out;
    }
  }
}
