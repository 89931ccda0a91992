package dev.flkbyo.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The "keygroups" kind on values worked out by hand from Flink's formulas, so that the differential
 * test compares the course with KeyGroupRangeAssignment and not with a mistake of the runner's.
 */
class KeyGroupsRunTest {
  private static KeyGroupsRun.Step ask(int maxP, int p, KeyGroupsRun.Op op) {
    return KeyGroupsRun.run(new KeyGroupsRun.Spec(maxP, p), List.of(op)).get(0);
  }

  private static KeyGroupsRun.Op op(String name) {
    return new KeyGroupsRun.Op(name, null, 0);
  }

  @Test
  void rangesAreInclusiveAndRoundTheFirstKeyGroupUp() {
    // [(i*128 + 2)/3, ((i+1)*128 − 1)/3]: [0,42] [43,85] [86,127], stage 06's card's example.
    List<int[]> r = ask(128, 3, op("ranges")).ranges();
    assertEquals(3, r.size());
    assertArrayEquals(new int[] {0, 42}, r.get(0));
    assertArrayEquals(new int[] {43, 85}, r.get(1));
    assertArrayEquals(new int[] {86, 127}, r.get(2));
  }

  @Test
  void operatorOfAKeyGroupIsKeyGroupTimesParallelismOverMaxParallelism() {
    // kg * 4 / 10 for kg = 0 … 9: the ranges [0,2] [3,4] [5,7] [8,9].
    assertEquals(List.of(0, 0, 0, 1, 1, 2, 2, 2, 3, 3), ask(10, 4, op("operators")).operators());
  }

  @Test
  void parallelismAboveMaxParallelismIsRefused() {
    KeyGroupsRun.Step s = ask(2, 3, op("ranges"));
    assertNull(s.ranges());
    assertEquals("Maximum parallelism must not be smaller than parallelism.", s.rejected());
    assertNotNull(ask(8, 0, op("ranges")).rejected(), "parallelism 0");
  }

  @Test
  void defaultMaxParallelismRoundsOneAndAHalfTimesUpToAPowerOfTwoWithin128And32768() {
    int[][] cases = {
      {1, 128}, // 1 + 0 → 1, raised to 128
      {85, 128}, // 85 + 42 = 127 → 128
      {86, 256}, // 86 + 43 = 129 → 256
      {21845, 32768}, // 21845 + 10922 = 32767 → 32768
      {21846, 32768}, // 32769 → 65536, capped at 32768
      {32768, 32768},
    };
    for (int[] c : cases) {
      assertEquals(c[1], ask(1, 1, new KeyGroupsRun.Op("default", null, c[0])).defaultMaxParallelism(), "parallelism " + c[0]);
    }
    assertNotNull(ask(1, 1, new KeyGroupsRun.Op("default", null, 0)).rejected(), "parallelism 0");
    assertNotNull(ask(1, 1, new KeyGroupsRun.Op("default", null, 32769)).rejected(), "parallelism 32769");
  }

  @Test
  void aStringKeyIsHashedWithMurmurOverItsHashCode() {
    // Worked out apart from Flink, from MathUtils.murmurHash's constants: "a".hashCode() = 97,
    // murmurHash(97) = 1455541201, % 128 = 81, and 81 * 3 / 128 = 1. "🦀" is a surrogate pair:
    // hashCode 55358 * 31 + 56712 = 1772802, murmurHash 1347425385, % 128 = 105, → subtask 2.
    KeyGroupsRun.Step a = ask(128, 3, new KeyGroupsRun.Op("key", "a", 0));
    assertEquals(81, a.keyGroup());
    assertEquals(1, a.operator());
    KeyGroupsRun.Step crab = ask(128, 3, new KeyGroupsRun.Op("key", "🦀", 0));
    assertEquals(105, crab.keyGroup());
    assertEquals(2, crab.operator());
  }
}
