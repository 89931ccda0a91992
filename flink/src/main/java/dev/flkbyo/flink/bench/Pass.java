package dev.flkbyo.flink.bench;

/**
 * What one pass of the benchmark job measured and produced.
 *
 * <p>{@code wallNs} and {@code cpuNs} are the whole job's: from building its pipeline on the client
 * to its result, so submitting it, deploying its tasks, opening their state backends, every event,
 * and tearing down. {@code recordsWallNs} and {@code recordsCpuNs} are the records' alone: from the
 * source's first event to the sink's closing after the last result (0 when not seen). CPU time is
 * the JVM's, every thread's. The rest is the job's output, as {@link Digest} folds it: the number
 * of results, the sum of their hashes, of their counts and of their sums, and the late events.
 *
 * @param variant the variant's name ({@link Variant#name})
 * @param events the events the source read
 */
public record Pass(
    String variant,
    long events,
    long wallNs,
    long cpuNs,
    long recordsWallNs,
    long recordsCpuNs,
    long results,
    long hash,
    long counted,
    long summed,
    long late) {}
