package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Stage 08, sessions: per key, a session of events each less than a gap after the last; a late
 * event that bridges two sessions merges them, and the output is a changelog that retracts the
 * results the merged session replaces.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code SessionConfig.Gap}: {@code EventTimeSessionWindows.withGap(gap)}, which gives each
 *       event the window {@code [ts, ts + gap)} and merges a key's windows that intersect or touch
 *       ({@code TimeWindow.mergeWindows}) into the one that covers them. MergingWindowSet keeps one
 *       state window per merged session, and CountAndSum's {@code merge} merges their tallies.
 *   <li>{@code AllowedLateness} and {@code Late()}: as in stage 03, judged on the merged session:
 *       an event whose merged session is past its cleanup time goes to the side output.
 *   <li>The changelog (a retraction of each result the new session replaces, Count and Sum negated
 *       and {@code update} set, then the new result): {@link Changelog}. Flink itself emits the
 *       merged result and retracts nothing ("Late elements considerations" in the windows docs:
 *       late firings of merging windows must be treated as updated results); the Table API's
 *       changelog ({@code RowKind.UPDATE_BEFORE}/{@code DELETE}) is Flink's counterpart of a
 *       retraction.
 *   <li>{@code SessionProcessor} follows upstream watermarks only; this job makes its watermark at
 *       the source with {@code forBoundedOutOfOrderness}, the same for the windows.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): as stage 01; and {@code RunSessionJob}, the capstone
 * (partitions with idleness, sessions, the two-phase-commit sink), is stages 07, 08 and 05 joined
 * into one job: their sources, this window and that sink.
 */
public final class Stage08Sessions {
  private Stage08Sessions() {}

  /** The job's settings: the course's SessionConfig, the watermark delay, and its emission. */
  public record Config(long gap, long watermarkDelay, long allowedLateness, Emit watermarks) {
    /** The demo's: a gap of 10 ms, allowed lateness 30. */
    public static final Config DEFAULTS = new Config(10, 0, 30, Emit.PER_EVENT);

    public Config {
      if (gap <= 0 || watermarkDelay < 0 || allowedLateness < 0) {
        throw new IllegalArgumentException(
            "need gap > 0, watermark delay ≥ 0, allowed lateness ≥ 0; got " + gap + ", " + watermarkDelay + ", " + allowedLateness);
      }
    }
  }

  /** Runs the job on env over the input and returns its changelog and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    WatermarkStrategy<Event> watermarks =
        cfg.watermarks()
            .<Event>forBoundedOutOfOrderness(Duration.ofMillis(cfg.watermarkDelay()))
            .withTimestampAssigner((event, recordTimestamp) -> event.ts());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, watermarks), 0);

    SingleOutputStreamOperator<Result> sessions =
        events
            .keyBy(Event::key)
            .window(EventTimeSessionWindows.withGap(Duration.ofMillis(cfg.gap())))
            .allowedLateness(Duration.ofMillis(cfg.allowedLateness()))
            .sideOutputLateData(Events.LATE)
            .aggregate(new CountAndSum(), new Changelog())
            .name("session windows");
    return Output.collect(env, "stage 08: sessions", sessions);
  }

  /**
   * Emits a fired session as a changelog, as the course's SessionProcessor does: first a
   * retraction of every result downstream holds for the session's events (the sessions it
   * swallowed, or its own earlier firing), in ascending start, then the session, an update if it
   * retracted anything. A downstream that sums Count and Sum per (key, start, end) and drops zero
   * rows then holds exactly the sessions as last fired.
   *
   * <p>What downstream holds is per-key state, {@code context.globalState()}: merging windows have
   * no per-window state. The held results of a session are forgotten when it expires ({@link
   * #clear}), as the course forgets an expired session: a later event opens a new one and retracts
   * nothing.
   */
  static final class Changelog extends ProcessWindowFunction<Tally, Result, String, TimeWindow> {
    /** A result downstream holds, by its start: its end, count and sum. */
    public record Held(long end, long count, long sum) {}

    private static final MapStateDescriptor<Long, Held> HELD =
        new MapStateDescriptor<>("held", Types.LONG, TypeInformation.of(Held.class));

    @Override
    public void process(String key, Context ctx, Iterable<Tally> tallies, Collector<Result> out) throws Exception {
      TimeWindow w = ctx.window();
      MapState<Long, Held> held = ctx.globalState().getMapState(HELD);
      List<Long> replaced = within(held, w);
      for (long start : replaced) {
        Held h = held.get(start);
        out.collect(new Result(key, start, h.end(), -h.count(), -h.sum(), true));
        held.remove(start);
      }
      Tally t = tallies.iterator().next();
      out.collect(new Result(key, w.getStart(), w.getEnd(), t.count(), t.sum(), !replaced.isEmpty()));
      held.put(w.getStart(), new Held(w.getEnd(), t.count(), t.sum()));
    }

    @Override
    public void clear(Context ctx) throws Exception {
      MapState<Long, Held> held = ctx.globalState().getMapState(HELD);
      for (long start : within(held, ctx.window())) {
        held.remove(start);
      }
    }

    /** The starts of the held results inside w, ascending. */
    private static List<Long> within(MapState<Long, Held> held, TimeWindow w) throws Exception {
      List<Long> starts = new ArrayList<>();
      for (var e : held.entries()) {
        if (e.getKey() >= w.getStart() && e.getValue().end() <= w.getEnd()) {
          starts.add(e.getKey());
        }
      }
      starts.sort(null);
      return starts;
    }
  }

  /** Reads events on stdin, prints the changelog and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage08Sessions", args, Config.DEFAULTS, Stage08Sessions::run);
  }
}
