package dev.flkbyo.flink.jobs;

import dev.flkbyo.flink.Event;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Stage 06, rescaling: stage 03's windows on several parallel subtasks, their state partitioned
 * into key groups, so that a savepoint taken at one parallelism restores at another.
 *
 * <p>What the learner's Go code is in Flink:
 *
 * <ul>
 *   <li>{@code KeyGroup(key, maxP)}: {@code KeyGroupRangeAssignment.assignToKeyGroup(key, maxP)},
 *       {@code murmurHash(key.hashCode()) % maxP}; {@code TaskForKeyGroup}: {@code
 *       computeOperatorIndexForKeyGroup}, {@code kg * p / maxP}; {@code KeyGroupRange}: {@code
 *       computeKeyGroupRangeForOperatorIndex}. The job never calls them: {@code keyBy} does, on
 *       every record.
 *   <li>{@code ParallelConfig.MaxParallelism}: {@code env.setMaxParallelism}, the number of key
 *       groups; {@code Parallelism}: {@code env.setParallelism}. Left unset, the max parallelism
 *       is {@code min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768)}, computed from the first
 *       parallelism the job ran with: set it explicitly for any job you may rescale.
 *   <li>{@code Snapshot} by key group and {@code RestoreParallelProcessor(snap, p2, maxP)}: a
 *       savepoint, then a new job from it at another parallelism:
 *       <pre>
 * flink stop --savepointPath s3://bucket/savepoints &lt;jobId&gt;   # savepoint, then stop
 * flink run -s s3://bucket/savepoints/savepoint-… -p 3 job.jar   # restore on 3 subtasks</pre>
 *       Each keyed state backend writes its key groups in order, with their offsets; on restore
 *       StateAssignmentOperation gives each new subtask the key groups of its new range. Whole key
 *       groups move; no key is re-hashed.
 *   <li>A changed max parallelism: the restore fails ("The maximum parallelism (…) with which the
 *       latest checkpoint … has been taken and the current maximum parallelism (…) changed"), as
 *       {@code RestoreParallelProcessor} refuses it.
 * </ul>
 *
 * <p>What differs (docs/PARITY.md): Flink hashes {@code key.hashCode()}, the course {@code
 * kit.StableHash}, so a key's group differs; the range formulas are the same. Flink's subtasks are
 * threads (or processes), each with its own state backend and one snapshot file per subtask. The
 * dedup step before the windows runs on the same subtasks, so at a parallelism above 1 the windows
 * get the watermark over several channels, and the minimum over them may lag a little behind the
 * source's: with {@link Emit#PER_EVENT} watermarks the results are then the course's on streams in
 * which no event comes for a window the watermark has already reached (none late, none a
 * correction), and may differ on others, as with {@link Emit#PERIODIC}.
 */
public final class Stage06Rescaling {
  private Stage06Rescaling() {}

  /** The job's settings: stage 03's, the number of key groups, and the parallelism. */
  public record Config(
      long windowSize, long watermarkDelay, long allowedLateness, int maxParallelism, int parallelism, Emit watermarks) {
    /** The demo's: windows of 10 ms, 8 key groups on 2 subtasks. */
    public static final Config DEFAULTS = new Config(10, 0, 0, 8, 2, Emit.PER_EVENT);

    public Config {
      if (parallelism < 1 || maxParallelism < parallelism || maxParallelism > 32768) {
        throw new IllegalArgumentException(
            "need 1 ≤ parallelism ≤ max parallelism ≤ 32768, got " + parallelism + " and " + maxParallelism);
      }
      new Stage03Lateness.Config(windowSize, watermarkDelay, allowedLateness, watermarks); // checks them
    }
  }

  /** Runs the job on env over the input and returns its results and late events. */
  public static Output run(StreamExecutionEnvironment env, List<Event> input, Config cfg) throws Exception {
    // Key groups are fixed for the life of the job's state; the parallelism may change at every
    // restore, from 1 up to the max parallelism.
    env.setMaxParallelism(cfg.maxParallelism());
    env.setParallelism(cfg.parallelism());

    var w = new Stage03Lateness.Config(cfg.windowSize(), cfg.watermarkDelay(), cfg.allowedLateness(), cfg.watermarks());
    DataStream<Event> events = DedupById.dropRedeliveries(Events.from(env, input, w.watermarkStrategy()), 0);
    // uid: the name a savepoint files this operator's state under, so that a changed job can still
    // find it when restored.
    var windows = Stage03Lateness.windows(events, w.windowSize(), w.allowedLateness()).uid("windows");
    return Output.collect(env, "stage 06: rescaling", windows);
  }

  /** Reads events on stdin, prints results and late events on stdout; see {@link JobMain}. */
  public static void main(String[] args) {
    JobMain.main("Stage06Rescaling", args, Config.DEFAULTS, Stage06Rescaling::run);
  }
}
