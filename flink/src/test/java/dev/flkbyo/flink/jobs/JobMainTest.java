package dev.flkbyo.flink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line every job's main shares, without a cluster: what `de flink` relies on. */
class JobMainTest {
  @Test
  void flagsAreTheConfigsComponentsInKebabCase() {
    var f = JobMain.Flags.parse(
        new String[] {"--window-size", "20", "--watermarks=periodic", "--parallelism", "2"},
        Stage01TumblingWindows.Config.DEFAULTS);
    assertEquals(new Stage01TumblingWindows.Config(20, 5, Emit.PERIODIC), f.config());
    assertEquals(2, f.parallelism());
    assertNull(JobMain.Flags.parse(new String[] {"--help"}, Stage01TumblingWindows.Config.DEFAULTS));
  }

  @Test
  void aConfigWithItsOwnParallelismTakesTheFlag() {
    var f = JobMain.Flags.parse(new String[] {"--max-parallelism", "16"}, Stage06Rescaling.Config.DEFAULTS);
    assertEquals(2, f.parallelism(), "the config's default");
    f = JobMain.Flags.parse(new String[] {"--parallelism", "1"}, Stage06Rescaling.Config.DEFAULTS);
    assertEquals(1, f.config().parallelism());
    assertEquals(1, f.parallelism());
  }

  @Test
  void badFlagsAreOneLineErrors() {
    var d = Stage01TumblingWindows.Config.DEFAULTS;
    assertEquals("unknown flag --size", assertThrows(IllegalArgumentException.class,
        () -> JobMain.Flags.parse(new String[] {"--size", "3"}, d)).getMessage());
    assertEquals("--window-size: not a long: x", assertThrows(IllegalArgumentException.class,
        () -> JobMain.Flags.parse(new String[] {"--window-size", "x"}, d)).getMessage());
    assertEquals("window size must be positive, got 0", assertThrows(IllegalArgumentException.class,
        () -> JobMain.Flags.parse(new String[] {"--window-size", "0"}, d)).getMessage());
    assertTrue(JobMain.Flags.usage("Stage01TumblingWindows", d).contains("--watermarks           periodic|per-event (default per-event)"));
  }

  @Test
  void eventsInAndLinesOut() throws IOException {
    String in = "{\"id\":\"e1\",\"key\":\"a\",\"ts\":-1,\"value\":4}\n\n{\"id\":\"e2\",\"key\":\"\",\"ts\":0,\"value\":0}\n";
    assertEquals(
        List.of(new Event("e1", "a", -1, 4), new Event("e2", "", 0, 0)),
        JobMain.readEvents(new ByteArrayInputStream(in.getBytes(StandardCharsets.UTF_8))));
    var bad = new ByteArrayInputStream("{\"id\":\"e1\",\"tss\":1}\n".getBytes(StandardCharsets.UTF_8));
    assertTrue(assertThrows(IOException.class, () -> JobMain.readEvents(bad)).getMessage().startsWith("standard input, line 1: "));

    var out = new ByteArrayOutputStream();
    JobMain.write(
        new Output(List.of(new Result("a", -10, 0, 1, 4, false)), List.of(new Event("e3", "b", 2, 1))),
        new PrintStream(out, true, StandardCharsets.UTF_8));
    assertEquals(
        "{\"key\":\"a\",\"start\":-10,\"end\":0,\"count\":1,\"sum\":4,\"update\":false}\n"
            + "{\"late\":{\"id\":\"e3\",\"key\":\"b\",\"ts\":2,\"value\":1}}\n",
        out.toString(StandardCharsets.UTF_8));
  }
}
