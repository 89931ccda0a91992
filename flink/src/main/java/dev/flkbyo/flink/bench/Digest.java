package dev.flkbyo.flink.bench;

import dev.flkbyo.flink.Result;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The benchmark job's sink: folds every window result into an order-independent digest, kept in
 * Flink accumulators ({@link LongCounter}s, which the job's {@code JobExecutionResult} returns), so
 * that the client can check the job's results equal the course's reference's without collecting a
 * million of them.
 *
 * <p>The digest is the number of results, the sum (modulo 2^64) of {@link #hash} over them, and the
 * sums of their counts and of their sums. A sum does not depend on the order the results came in,
 * which differs between Flink (its timers' order) and the course (sorted by End, Start, Key within a
 * call), and equal multisets of results give equal digests. internal/flinkrun's Digest computes the
 * same on the Go side, and both are pinned to the same known answers (WindowBenchTest, and
 * TestDigestKnownAnswers in Go).
 */
public final class Digest extends ProcessFunction<Result, Void> {
  /** The accumulators' names, as {@link Pass} reads them. */
  static final String RESULTS = "results", HASH = "hash", COUNTED = "counted", SUMMED = "summed";

  private transient LongCounter results, hash, counted, summed;

  @Override
  public void open(OpenContext ctx) {
    results = counter(RESULTS);
    hash = counter(HASH);
    counted = counter(COUNTED);
    summed = counter(SUMMED);
  }

  private LongCounter counter(String name) {
    var c = new LongCounter();
    getRuntimeContext().addAccumulator(name, c);
    return c;
  }

  @Override
  public void processElement(Result r, Context ctx, Collector<Void> out) {
    results.add(1);
    hash.add(hash(r)); // wraps around: a sum modulo 2^64
    counted.add(r.count());
    summed.add(r.sum());
  }

  @Override
  public void close() {
    Phase.resultsDone();
  }

  /**
   * A result's 64-bit hash: FNV-1a over the key's UTF-8 bytes, then each of start, end, count, sum
   * and update (1 or 0) xor-ed in and mixed with SplitMix64's finalizer.
   */
  public static long hash(Result r) {
    long h = fnv1a(r.key());
    h = mix(h ^ r.start());
    h = mix(h ^ r.end());
    h = mix(h ^ r.count());
    h = mix(h ^ r.sum());
    return mix(h ^ (r.update() ? 1 : 0));
  }

  /** FNV-1a, 64 bits, over s's UTF-8 bytes (without encoding an ASCII string first). */
  static long fnv1a(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        return fnv1a(s.getBytes(StandardCharsets.UTF_8));
      }
      h = (h ^ c) * 0x100000001b3L;
    }
    return h;
  }

  private static long fnv1a(byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return h;
  }

  /** SplitMix64's finalizer. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Counts the late events of the job's side output: the course's Late(), compared by number. */
  static final class LateCount extends ProcessFunction<dev.flkbyo.flink.Event, Void> {
    /** The accumulator's name. */
    static final String LATE = "late";

    private transient LongCounter late;

    @Override
    public void open(OpenContext ctx) {
      late = new LongCounter();
      getRuntimeContext().addAccumulator(LATE, late);
    }

    @Override
    public void processElement(dev.flkbyo.flink.Event e, Context ctx, Collector<Void> out) {
      late.add(1);
    }
  }
}
