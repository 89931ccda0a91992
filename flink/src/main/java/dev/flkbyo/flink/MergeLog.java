package dev.flkbyo.flink;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.MergingWindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Flink's EventTimeSessionWindows, with every call delegated to it, that also records the merges
 * it reports to WindowOperator's MergingWindowSet. MergingWindowSet.addWindow asks the assigner's
 * mergeWindows for them (TimeWindow.mergeWindows: windows that intersect or touch, with the new
 * element's window among them, merge into their cover) and merges the windows' state accordingly;
 * recording what it was told changes nothing in what the operator does. The record is what the
 * Go side needs to check the course's retractions against Flink (TestSessionWindowsMatchFlink in
 * flink/parity): which earlier firings a merged window's firing replaces.
 */
final class MergeLog extends MergingWindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;
  private static final Comparator<Merge.Window> BY_START =
      Comparator.comparingLong(Merge.Window::start).thenComparingLong(Merge.Window::end);

  private final EventTimeSessionWindows sessions;
  private final List<Merge> merges = new ArrayList<>();
  private transient TimeWindow assigned; // the window of the element being processed

  MergeLog(EventTimeSessionWindows sessions) {
    this.sessions = sessions;
  }

  @Override
  public Collection<TimeWindow> assignWindows(Object element, long timestamp, WindowAssignerContext context) {
    Collection<TimeWindow> ws = sessions.assignWindows(element, timestamp, context);
    assigned = ws.iterator().next(); // a session assigner assigns one window
    return ws;
  }

  @Override
  public Trigger<Object, TimeWindow> getDefaultTrigger() {
    return sessions.getDefaultTrigger();
  }

  @Override
  public TypeSerializer<TimeWindow> getWindowSerializer(ExecutionConfig executionConfig) {
    return sessions.getWindowSerializer(executionConfig);
  }

  @Override
  public boolean isEventTime() {
    return sessions.isEventTime();
  }

  @Override
  public void mergeWindows(Collection<TimeWindow> windows, MergeCallback<TimeWindow> callback) {
    sessions.mergeWindows(
        windows,
        (toBeMerged, result) -> {
          // The windows already in the set are disjoint and never touch, so every merge holds the
          // element's own window; the others held state. Copied before the callback runs:
          // MergingWindowSet removes the new window from toBeMerged afterwards. The key is filled
          // in by drain.
          if (!toBeMerged.contains(assigned)) {
            throw new IllegalStateException(assigned + " is not among the windows merging: " + toBeMerged);
          }
          List<Merge.Window> with = new ArrayList<>();
          for (TimeWindow w : toBeMerged) {
            if (!w.equals(assigned)) {
              with.add(Merge.Window.of(w));
            }
          }
          with.sort(BY_START);
          merges.add(new Merge(null, Merge.Window.of(assigned), with, Merge.Window.of(result)));
          callback.merge(toBeMerged, result);
        });
  }

  /**
   * Returns the merges since the last drain, as merges of key: the operator merges windows only
   * in processElement (MergingWindowSet.addWindow), for the element's key, which the caller
   * passes; null when the operation was not an element, which then must not have merged.
   */
  List<Merge> drain(String key) {
    if (key == null && !merges.isEmpty()) {
      throw new IllegalStateException("windows merged outside processElement: " + merges);
    }
    List<Merge> out = new ArrayList<>(merges.size());
    for (Merge m : merges) {
      out.add(new Merge(key, m.window(), m.with(), m.into()));
    }
    merges.clear();
    return out;
  }

  @Override
  public String toString() {
    return sessions.toString();
  }
}
