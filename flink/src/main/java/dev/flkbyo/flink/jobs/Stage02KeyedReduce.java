package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Stage 02, keyed partitioning: sum the values per key on parallel workers, every record of a key
 * on one worker.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code FromSlice}, {@code Map}, {@code Filter}: {@code env.fromData}, {@code
 *       DataStream#map} and {@code #filter}. Flink chains such one-to-one steps into one task
 *       (operator chaining): a record goes from one to the next by a method call, as in the
 *       course's chain.
 *   <li>{@code KeyBy(s, key)}: {@code keyBy(Event::key)}, a KeyedStream. The edge into the next
 *       operator is a KeyGroupStreamPartitioner: a record goes to the subtask {@code
 *       KeyGroupRangeAssignment.assignKeyToParallelOperator(key, maxParallelism, parallelism)}, by
 *       way of its key group (stage 06); the course goes straight from {@code StableHash(key) % n}
 *       to a worker.
 *   <li>{@code Reduce(fn, parallelism)} and {@code RunParallel}: {@code reduce(fn)} with the
 *       parallelism of the environment: StreamGroupedReduceOperator keeps one ValueState per key,
 *       stores a key's first element as is and replaces it by {@code fn(current, element)} for each
 *       later one. The workers are Flink's parallel subtasks, fed over network channels that keep
 *       each channel's order, so a key's elements are folded in input order, as in the course.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): Flink's reduce emits every updated value (a rolling
 * aggregation over an unbounded stream), where {@code RunParallel} returns each key's final value:
 * the last of Flink's outputs for that key ({@link Reduced#last}). Flink hashes {@code
 * key.hashCode()} with murmur, the course {@code kit.StableHash}, so the same key may land on
 * another worker number. No dedup: the course's stage 02 has none.
 */
public final class Stage02KeyedReduce {
  private Stage02KeyedReduce() {}

  /** The job's settings: how many parallel subtasks reduce. */
  public record Config(int parallelism) {
    /** The demo's: 3 workers. (The tests' cluster has 2 slots.) */
    public static final Config DEFAULTS = new Config(3);

    public Config {
      if (parallelism < 1) {
        throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
      }
    }
  }

  /**
   * What the job emitted: each key's rolling sum, one event per input event, in the order the
   * reduce emitted them (a key's in input order). Each is the key's first event with its value
   * replaced by the sum so far, as the course's demo folds {@code acc.Value += v.Value}.
   */
  public record Reduced(List<Event> rolling) implements JobMain.Lines {
    /** Each key's final value, what the course's RunParallel returns: its last rolling output. */
    public Map<String, Event> last() {
      Map<String, Event> last = new LinkedHashMap<>();
      rolling.forEach(e -> last.put(e.key(), e));
      return last;
    }

    /** The rolling outputs, one event a line. */
    @Override
    public List<Event> lines() {
      return rolling;
    }
  }

  /** Runs the job on env over the input and returns the reduce's rolling outputs. */
  public static Reduced run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    env.setParallelism(cfg.parallelism());
    DataStream<Event> sums =
        env.fromData(input, Events.TYPE) // one reader; the records then spread over the subtasks by key
            .keyBy(Event::key)
            .reduce((acc, e) -> new Event(acc.id(), acc.key(), acc.ts(), acc.value() + e.value()))
            .name("sum per key");
    Collect<Event> rolling = Collect.of(sums);
    Collect.execute(env, "stage 02: keyed reduce", rolling);
    return new Reduced(rolling.get());
  }

  /** Reads events on stdin, prints the rolling sums as events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage02KeyedReduce", args, Config.DEFAULTS, Stage02KeyedReduce::run);
  }
}
