package dev.flkbyo.flink.jobs;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * A stream whose elements the client collects while the job runs: {@code DataStream.collectAsync}
 * for several streams of one job (a job's results and its side output, say), where {@code
 * executeAndCollect} takes one.
 *
 * <pre>{@code
 * Collect<Result> results = Collect.of(windows);
 * Collect<Event> late = Collect.of(windows.getSideOutput(LATE));
 * Collect.execute(env, "stage 01", results, late);
 * results.get(); // every result, in the order it arrived
 * }</pre>
 */
public final class Collect<T> {
  private final CloseableIterator<T> it;
  private final List<T> got = new ArrayList<>();

  private Collect(CloseableIterator<T> it) {
    this.it = it;
  }

  /** Sets up the collection of the stream; call before {@link #execute}. */
  public static <T> Collect<T> of(DataStream<T> stream) {
    return new Collect<>(stream.collectAsync());
  }

  /** Returns what the stream emitted, in arrival order; complete once {@link #execute} returned. */
  public List<T> get() {
    return got;
  }

  /**
   * Runs the job to its end, reading every collected stream meanwhile, each on its own thread: a
   * collect sink whose buffer is full waits for the client, and would hold the job back while the
   * client waited on another stream.
   */
  public static void execute(StreamExecutionEnvironment env, String jobName, Collect<?>... streams)
      throws Exception {
    JobClient client = env.executeAsync(jobName);
    List<Thread> readers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (Collect<?> c : streams) {
      Thread t = new Thread(() -> {
        try (c.it) {
          c.drain();
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      }, "collect " + jobName);
      t.start();
      readers.add(t);
    }
    for (Thread t : readers) {
      t.join();
    }
    client.getJobExecutionResult().get(); // throws the job's failure, if it failed
    if (!failures.isEmpty()) {
      throw new IllegalStateException("collecting " + jobName, failures.get(0));
    }
  }

  private void drain() {
    while (it.hasNext()) {
      got.add(it.next());
    }
  }
}
