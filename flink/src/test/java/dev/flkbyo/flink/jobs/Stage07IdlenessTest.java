package dev.flkbyo.flink.jobs;

import static dev.flkbyo.flink.jobs.Fixtures.ev;
import static dev.flkbyo.flink.jobs.Fixtures.first;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stage 07's job: partitions with their own watermarks, and a quiet one that goes idle. */
@ExtendWith(FlinkCluster.class)
class Stage07IdlenessTest {
  /** The stream of `de demo 07`: key a on one partition, b on the other. */
  static final List<Event> DEMO =
      List.of(
          ev("e1", "a", 1, 1), ev("e2", "b", 2, 2), ev("e3", "a", 8, 3), ev("e4", "a", 14, 4),
          ev("e5", "a", 23, 5), ev("e6", "a", 31, 6), ev("e7", "b", 5, 7));

  @Test
  void aFiniteInputGivesTheResultsOfNoIdlenessAtAll() throws Exception {
    assertNotEquals(
        Stage07Idleness.partitionOf(DEMO.get(0), 2), Stage07Idleness.partitionOf(DEMO.get(1), 2), "a and b apart");
    Output out = Stage07Idleness.run(FlinkCluster.env(1), DEMO, Stage07Idleness.Config.DEFAULTS);
    // Each partition is in order, so no event is late at any watermark the windows see, in
    // whatever order the two partitions' records interleave. b's partition reads e7@5 within
    // milliseconds of e2@2, and never idles: e7 counts, where the course's demo, whose partition
    // is quiet for 9 s of its clock, sends it to the side output.
    assertEquals(
        List.of(
            first("a", 0, 10, 2, 4), first("b", 0, 10, 2, 9), first("a", 10, 20, 1, 4), first("a", 20, 30, 1, 5),
            first("a", 30, 40, 1, 6)),
        out.sortedResults());
    assertEquals(List.of(), out.late());
  }

  @Test
  void aPartitionThatGoesQuietStopsHoldingTheWindowsBack() throws Exception {
    // b's partition speaks once (e2@2), then stays open and says nothing more, as a quiet Kafka
    // partition does: its watermark would hold every window back forever. With an idle timeout of
    // 500 ms (processing time, the only wall-clock wait in these tests) it leaves the minimum, the
    // windows fire on a's watermark alone, and the job is cancelled once all five results are in.
    // (Should the quiet partition take longer than that to send its one event, it would go idle
    // first, e2 would come late and the fifth result never: the timeout below says so.)
    var cfg = new Stage07Idleness.Config(10, 2, 0, 500, Emit.PER_EVENT);
    var env = FlinkCluster.env(1);
    List<Event> a = DEMO.stream().filter(e -> e.key().equals("a")).toList();
    DataStream<Event> busy = Events.from(env, a, cfg.watermarkStrategy());
    // One event, then a source that never ends: without checkpoints, perCheckpoint(1) lets one
    // record through and then waits for a checkpoint that never comes.
    DataStream<Event> quiet =
        env.fromSource(
            new DataGeneratorSource<>(i -> ev("e2", "b", 2, 2), Long.MAX_VALUE, RateLimiterStrategy.perCheckpoint(1), Events.TYPE),
            cfg.watermarkStrategy(),
            "quiet partition");
    var windows = Stage07Idleness.windows(busy.union(quiet), cfg);
    List<Result> got = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> windows.executeAndCollect(5));
    assertEquals(
        List.of(
            first("a", 0, 10, 2, 4), first("b", 0, 10, 1, 2), first("a", 10, 20, 1, 4), first("a", 20, 30, 1, 5),
            first("a", 30, 40, 1, 6)),
        new Output(got, List.of()).sortedResults());
  }
}
