package dev.flkbyo.flink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The benchmark job: its digest pinned to the Go side's known answers, its shape (the tasks and
 * exchanges the benchmark's documentation describes), and its results on both state backends equal
 * to a plain fold's, so that a digest the Go benchmark compares is the job's real output.
 */
class WindowBenchTest {
  /** The same results and hashes as TestDigestKnownAnswers in internal/flinkrun. */
  @Test
  void digestMatchesTheGoSidesKnownAnswers() {
    assertEquals(0x4d4933c8e4c02433L, Digest.hash(new Result("a", 0, 1000, 1, 5, false)));
    assertEquals(0x2f7b54663da3a2b2L, Digest.hash(new Result("", Long.MIN_VALUE, Long.MAX_VALUE, -2, -7, true)));
    assertEquals(0xbd48b320b41fa44bL, Digest.hash(new Result("ключ 🙂", -1000, 0, 3, Long.MAX_VALUE, false)));
  }

  /**
   * Each keyBy is an exchange, which breaks the chain even at parallelism 1: source and watermarks,
   * then dedup, then the windows with both sinks chained, three tasks; two without dedup.
   */
  @Test
  void theJobIsThreeTasksAndTwoWithoutDedup() {
    HeldEvents events = HeldEvents.hold(new Event[] {new Event("e1", "a", 1, 1)});
    try {
      assertEquals(3, vertices(events, "hashmap"));
      assertEquals(2, vertices(events, "hashmap+nodedup"));
    } finally {
      events.release();
    }
  }

  private static int vertices(HeldEvents events, String variant) {
    var env = StreamExecutionEnvironment.getExecutionEnvironment(); // built, never run
    env.setParallelism(1);
    WindowBench.job(env, events, Variant.parse(variant));
    return env.getStreamGraph().getJobGraph().getNumberOfVertices();
  }

  /**
   * Events in timestamp order over 7 keys, every tenth delivered twice: on each backend, and with
   * periodic watermarks, the job's digest is that of a fold of the first deliveries into 1 s windows.
   */
  @Test
  void everyVariantGivesTheFoldsResults() throws Exception {
    List<Event> list = new ArrayList<>();
    Map<String, long[]> fold = new TreeMap<>(); // "key start" -> {count, sum}
    for (int i = 0; i < 300; i++) {
      var e = new Event("e" + i, "k" + (i % 7), 37L * i, i % 5 - 2);
      list.add(e);
      if (i % 10 == 0) {
        list.add(e);
      }
      long start = Math.floorDiv(e.ts(), WindowBench.WINDOW) * WindowBench.WINDOW;
      long[] t = fold.computeIfAbsent(e.key() + " " + start, k -> new long[2]);
      t[0]++;
      t[1] += e.value();
    }
    long results = 0, hash = 0, counted = 0, summed = 0;
    for (var f : fold.entrySet()) {
      String[] ks = f.getKey().split(" ");
      long start = Long.parseLong(ks[1]), count = f.getValue()[0], sum = f.getValue()[1];
      results++;
      hash += Digest.hash(new Result(ks[0], start, start + WindowBench.WINDOW, count, sum, false));
      counted += count;
      summed += sum;
    }
    HeldEvents events = HeldEvents.hold(list.toArray(new Event[0]));
    try {
      for (String variant : List.of("hashmap", "rocksdb", "hashmap+periodic")) {
        Pass p = WindowBench.pass(events, Variant.parse(variant));
        assertEquals(List.of(variant, (long) list.size(), results, hash, counted, summed, 0L),
            List.of(p.variant(), p.events(), p.results(), p.hash(), p.counted(), p.summed(), p.late()));
      }
    } finally {
      events.release();
    }
  }
}
