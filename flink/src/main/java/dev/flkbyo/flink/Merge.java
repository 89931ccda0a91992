package dev.flkbyo.flink;

import java.util.List;

/**
 * One merge of a key's session windows, as Flink's MergingWindowSet made it: an element's own
 * window merged with windows of its key that held state into their cover. Merging windows report
 * them so that the Go side can follow what Flink's state windows hold: Flink's output alone does
 * not say which earlier firings a merged window's firing replaces.
 *
 * @param key the element's key
 * @param window the element's own window
 * @param with the windows in MergingWindowSet it merged with, by start
 * @param into the merge result
 */
public record Merge(String key, Window window, List<Window> with, Window into) {

  /** A window's bounds, [start, end), as TimeWindow's. */
  public record Window(long start, long end) {
    static Window of(org.apache.flink.streaming.api.windowing.windows.TimeWindow w) {
      return new Window(w.getStart(), w.getEnd());
    }
  }
}
