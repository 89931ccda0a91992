package dev.flkbyo.flink.bench;

import dev.flkbyo.flink.jobs.Emit;
import java.util.Locale;

/**
 * One way of running the benchmark job: its state backend, whether it drops redeliveries first,
 * and when its watermarks are emitted. Named as the Go side names it: the backend, then {@code
 * +nodedup} and {@code +periodic} where they apply ({@code rocksdb+nodedup}).
 *
 * <p>The course's processor is the job with dedup and per-event watermarks, on either backend:
 * {@code hashmap} and {@code rocksdb}. The others are there to say what those two cost.
 */
public record Variant(String backend, boolean dedup, Emit watermarks) {
  public Variant {
    if (!backend.equals("hashmap") && !backend.equals("rocksdb")) {
      throw new IllegalArgumentException("unknown state backend " + backend + "; known: hashmap, rocksdb");
    }
  }

  /** Parses a variant's name: {@code hashmap}, {@code rocksdb+nodedup+periodic}, … */
  public static Variant parse(String name) {
    String[] parts = name.split("\\+");
    boolean dedup = true;
    Emit watermarks = Emit.PER_EVENT;
    for (int i = 1; i < parts.length; i++) {
      switch (parts[i]) {
        case "nodedup" -> dedup = false;
        case "periodic" -> watermarks = Emit.PERIODIC;
        default -> throw new IllegalArgumentException("unknown part +" + parts[i] + " of variant " + name + "; known: +nodedup, +periodic");
      }
    }
    return new Variant(parts[0], dedup, watermarks);
  }

  /** The variant's name, as {@link #parse} reads it. */
  public String name() {
    return backend + (dedup ? "" : "+nodedup") + (watermarks == Emit.PER_EVENT ? "" : "+" + watermarks.name().toLowerCase(Locale.ROOT));
  }
}
