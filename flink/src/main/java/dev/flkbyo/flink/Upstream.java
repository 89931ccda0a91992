package dev.flkbyo.flink;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * The watermarks one input of a scenario passes to the first Flink operator it meets: those of a
 * WatermarkGenerator (BoundedOutOfOrdernessWatermarks, through {@link WatermarkOutput}) and those
 * the scenario sends from upstream, merged and passed on only when higher than the last, as
 * Flink's TimestampsAndWatermarksOperator passes them on (its WatermarkEmitter drops a watermark
 * not above the current one): watermarks never go back, nor repeat.
 */
final class Upstream implements WatermarkOutput {
  /** Where a watermark goes: the first operator's processWatermark. */
  @FunctionalInterface
  interface Sink {
    void watermark(long wm) throws Exception;
  }

  private final Sink sink;
  private long last = Long.MIN_VALUE;

  Upstream(Sink sink) {
    this.sink = sink;
  }

  /** Returns the last watermark passed on: Long.MIN_VALUE before the first. */
  long last() {
    return last;
  }

  /** Passes wm on if it is higher than every watermark passed on before. */
  void advance(long wm) throws Exception {
    if (wm <= last) {
      return;
    }
    last = wm;
    sink.watermark(wm);
  }

  @Override
  public void emitWatermark(Watermark wm) {
    try {
      advance(wm.getTimestamp());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void markIdle() {}

  @Override
  public void markActive() {}
}
