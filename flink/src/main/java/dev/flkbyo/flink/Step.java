package dev.flkbyo.flink;

import java.util.List;

/**
 * What Flink did in answer to one operation of a scenario: the results it emitted, the events its
 * side output received, the watermark the operator had passed on by then, and, for merging
 * windows, the merges its MergingWindowSet made (see MergeLog).
 */
public record Step(List<Result> results, List<Event> late, long watermark, List<Merge> merges) {

  /** A step without merges: what a non-merging window operator does. */
  public Step(List<Result> results, List<Event> late, long watermark) {
    this(results, late, watermark, List.of());
  }
}
