package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What a windowed job collected: its results and its side output of late events, each in the order
 * Flink emitted them. At parallelism 1 that order is fixed for a given input (with {@link
 * Emit#PER_EVENT} watermarks); above it, the subtasks' outputs interleave differently from run to
 * run, though each key's stay in order.
 */
public record Output(List<Result> results, List<Event> late) implements JobMain.Lines {

  /**
   * Runs the job and collects the windows' results and their side output ({@link Events#LATE}).
   */
  public static Output collect(StreamExecutionEnvironment env, String jobName, SingleOutputStreamOperator<Result> windows)
      throws Exception {
    Collect<Result> results = Collect.of(windows);
    Collect<Event> late = Collect.of(windows.getSideOutput(Events.LATE));
    Collect.execute(env, jobName, results, late);
    return new Output(results.get(), late.get());
  }

  /** One side-output event as main prints it: {@code {"late": {...}}}. */
  public record Late(Event late) {}

  /**
   * Returns the results stably sorted by (End, Start, Key), the order of the course's results
   * within one call: the same at any parallelism, and a (key, window)'s updates stay after its
   * first result.
   */
  public List<Result> sortedResults() {
    List<Result> rs = new ArrayList<>(results);
    rs.sort(Comparator.comparingLong(Result::end).thenComparingLong(Result::start).thenComparing(Result::key));
    return rs;
  }

  /** The results, one a line, then the late events, {@code {"late": ...}} one a line. */
  @Override
  public List<Object> lines() {
    List<Object> out = new ArrayList<>(results);
    late.forEach(e -> out.add(new Late(e)));
    return out;
  }
}
