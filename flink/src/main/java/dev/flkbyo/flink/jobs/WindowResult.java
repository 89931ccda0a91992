package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Result;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Turns a fired window's {@link Tally} into the course's Result, marking a late firing as an
 * update.
 *
 * <p>Flink does not mark late firings: the window function is called again with the whole
 * accumulated tally (EventTimeTrigger's FIRE does not purge), and tells a first firing from a later
 * one only with per-window state, {@code context.windowState()}, which the WindowOperator clears
 * with the window at its cleanup time ({@link #clear}). Merging windows (sessions, stage 08) have no
 * per-window state: Stage08Sessions uses its own function.
 */
public final class WindowResult extends ProcessWindowFunction<Tally, Result, String, TimeWindow> {
  private static final ValueStateDescriptor<Boolean> FIRED = new ValueStateDescriptor<>("fired", Types.BOOLEAN);

  @Override
  public void process(String key, Context ctx, Iterable<Tally> tallies, Collector<Result> out) throws Exception {
    Tally t = tallies.iterator().next(); // an AggregateFunction leaves exactly one
    ValueState<Boolean> fired = ctx.windowState().getState(FIRED);
    boolean update = fired.value() != null;
    fired.update(true);
    out.collect(new Result(key, ctx.window().getStart(), ctx.window().getEnd(), t.count(), t.sum(), update));
  }

  @Override
  public void clear(Context ctx) {
    ctx.windowState().getState(FIRED).clear();
  }
}
