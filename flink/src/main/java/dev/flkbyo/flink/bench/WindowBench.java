package dev.flkbyo.flink.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flkbyo.flink.Event;
import dev.flkbyo.flink.Result;
import dev.flkbyo.flink.StateBackends;
import dev.flkbyo.flink.jobs.DedupById;
import dev.flkbyo.flink.jobs.Events;
import dev.flkbyo.flink.jobs.JobMain;
import dev.flkbyo.flink.jobs.Stage03Lateness;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * The benchmark stream through Flink: stage 01's window job, {@link Stage03Lateness#windows} with
 * no allowed lateness behind {@link DedupById}, with the course's benchmark config (windows of
 * kit.BenchmarkWindow = 1 s, a watermark kit.BenchmarkDisorder = 5 s behind, asked after every
 * event), on one MiniCluster in this JVM at parallelism 1 with object reuse, on the
 * HashMapStateBackend or the EmbeddedRocksDBStateBackend. flink/parity's BenchmarkFlinkPeer times it
 * beside the course's reference, in turns, and checks that both produce the same results.
 *
 * <p>What a pass runs, and so what it costs: the source hands out events already in memory ({@link
 * HeldEvents}); the watermark generator (BoundedOutOfOrdernessWatermarks) is asked after every
 * event; {@code keyBy(id)} sends each event to the dedup task ({@link DedupById}, a
 * {@code ValueState} per ID, never forgotten, as the course's NewProcessor remembers every ID);
 * {@code keyBy(key)} sends it on to the window task (Flink's WindowOperator with {@link
 * dev.flkbyo.flink.jobs.CountAndSum} and {@link dev.flkbyo.flink.jobs.WindowResult}), whose
 * results go to the {@link Digest} sink, chained. Even at parallelism 1 each {@code keyBy} is an
 * exchange between tasks, so every event is serialized and deserialized twice (once without dedup),
 * and the three tasks are three threads (WindowBenchTest pins the tasks). The JVM starts once, the
 * MiniCluster with the first pass (an untimed one in the Go benchmark), and both serve every pass.
 *
 * <p>Two ways in: as a kind of {@link dev.flkbyo.flink.Runner} ("windowbench": a spec naming a file
 * of events, one operation per pass, one {@link Pass} per operation), which is how the Go benchmark
 * drives it, in turns with the reference; and {@link #main}, which warms up and times passes on its
 * own, for profiling Flink alone.
 */
public final class WindowBench {
  /** kit.BenchmarkWindow and kit.BenchmarkDisorder, in ms of event time. */
  static final long WINDOW = 1_000, DELAY = 5_000;

  /**
   * The task manager's managed memory, which RocksDB's memtables and block cache share
   * (state.backend.rocksdb.memory.managed, on by default): set here so that every machine runs
   * with the same budget, whatever its RAM.
   */
  static final MemorySize MANAGED_MEMORY = MemorySize.parse("128m");

  private static MiniCluster cluster;
  private static Path rocksDir;
  private static String heldFile;
  private static HeldEvents held;

  private WindowBench() {}

  /** A request's spec: the file of events, JSON lines as kit.Event encodes them. */
  record Spec(String events) {}

  /** One operation: a pass of a variant (its {@link Variant#name}). */
  record Op(String variant) {}

  /**
   * The Runner's "windowbench" kind: loads the spec's events (once for a file, outside any timing)
   * and runs one pass per operation, in order.
   */
  public static List<Pass> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    Spec s = json.treeToValue(spec, Spec.class);
    HeldEvents events = load(Path.of(s.events()));
    List<Pass> passes = new ArrayList<>();
    for (JsonNode op : ops) {
      passes.add(pass(events, Variant.parse(json.treeToValue(op, Op.class).variant())));
    }
    return passes;
  }

  /** The events of file, read once and held until another file is asked for. */
  private static synchronized HeldEvents load(Path file) throws IOException {
    String key = file.toAbsolutePath().toString();
    if (key.equals(heldFile)) {
      return held;
    }
    if (held != null) {
      held.release();
      held = null;
      heldFile = null;
    }
    try (InputStream in = new FileInputStream(file.toFile())) {
      held = HeldEvents.hold(internKeys(JobMain.readEvents(in)));
    }
    heldFile = key;
    return held;
  }

  /**
   * The events as an array, their keys shared as the Go stream shares its 10 000 key strings: each
   * decoded line has its own copy of its key, where every event of a key holds the same string.
   */
  private static Event[] internKeys(List<Event> events) {
    Map<String, String> keys = new HashMap<>();
    Event[] out = new Event[events.size()];
    for (int i = 0; i < out.length; i++) {
      Event e = events.get(i);
      out[i] = new Event(e.id(), keys.computeIfAbsent(e.key(), k -> k), e.ts(), e.value());
    }
    return out;
  }

  /** Runs the job once over the held events and returns what it took and what it produced. */
  static Pass pass(HeldEvents events, Variant v) throws Exception {
    System.gc(); // no earlier pass's garbage is this one's cost, as the Go side collects before a pass
    Phase.reset();
    long cpu0 = Phase.cpu(), wall0 = System.nanoTime();
    StreamExecutionEnvironment env = env(v);
    job(env, events, v);
    JobExecutionResult r = env.execute("window bench, " + v.name());
    long wall = System.nanoTime() - wall0, cpu = Phase.cpu() - cpu0;
    return new Pass(
        v.name(),
        events.size(),
        wall,
        cpu,
        Phase.recordsWall(),
        Phase.recordsCpu(),
        counter(r, Digest.RESULTS),
        counter(r, Digest.HASH),
        counter(r, Digest.COUNTED),
        counter(r, Digest.SUMMED),
        counter(r, Digest.LateCount.LATE));
  }

  /**
   * Adds the benchmark job to env: the held events through the source, timestamps and
   * watermarks, dedup by ID (unless v says not to), the windows, and the digest sinks.
   */
  static void job(StreamExecutionEnvironment env, HeldEvents events, Variant v) {
    WatermarkStrategy<Event> watermarks = new Stage03Lateness.Config(WINDOW, DELAY, 0, v.watermarks()).watermarkStrategy();
    DataStream<Event> in = Events.timed(
        env.fromSource(new DataGeneratorSource<>(events, events.size(), Events.TYPE), WatermarkStrategy.noWatermarks(), "events"),
        watermarks);
    if (v.dedup()) {
      in = DedupById.dropRedeliveries(in, 0);
    }
    SingleOutputStreamOperator<Result> windows = Stage03Lateness.windows(in, WINDOW, 0);
    windows.process(new Digest()).name("digest").sinkTo(new DiscardingSink<>());
    windows.getSideOutput(Events.LATE).process(new Digest.LateCount()).name("late").sinkTo(new DiscardingSink<>());
  }

  private static long counter(JobExecutionResult r, String name) {
    Long v = r.getAccumulatorResult(name);
    return v == null ? 0 : v;
  }

  /**
   * An environment on the shared MiniCluster (started on first use) for one pass of v: parallelism
   * 1, object reuse, v's state backend, no checkpoints.
   */
  private static synchronized StreamExecutionEnvironment env(Variant v) throws Exception {
    if (cluster == null) {
      start();
    }
    var conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, v.backend());
    conf.set(RocksDBOptions.LOCAL_DIRECTORIES, rocksDir.toString());
    var env = new TestStreamEnvironment(cluster, conf, 1, List.of(), List.of());
    env.getConfig().enableObjectReuse();
    return env;
  }

  /**
   * Starts the MiniCluster (one task manager, one slot, its REST endpoint on any free port) and
   * makes RocksDB's folder, in memory where the machine has /dev/shm ({@link
   * StateBackends#scratchDir}), so that a shared machine's disk does not time the passes; both go
   * when the JVM exits.
   */
  private static void start() throws Exception {
    rocksDir = StateBackends.scratchDir("flkbyo-bench-rocksdb-");
    var conf = new Configuration();
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MANAGED_MEMORY);
    conf.set(RestOptions.BIND_PORT, "0"); // any free port: 8081, the default, may be another cluster's
    var c = new MiniCluster(
        new MiniClusterConfiguration.Builder()
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(1)
            .setConfiguration(conf)
            .build());
    try {
      c.start();
    } catch (Exception e) {
      Files.deleteIfExists(rocksDir); // still empty: a later pass starts again with a new one
      throw e;
    }
    cluster = c;
    Runtime.getRuntime().addShutdownHook(new Thread(WindowBench::stop, "window bench: stop"));
  }

  private static synchronized void stop() {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } catch (Exception e) {
      System.err.println("window bench: closing the MiniCluster: " + e);
    }
    try (Stream<Path> files = Files.walk(rocksDir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("window bench: deleting " + rocksDir + ": " + e);
    }
  }

  /**
   * Times the job on its own: {@code --events FILE} (JSON lines, as flinkrun.WriteEvents writes
   * them), {@code --variants hashmap,rocksdb}, {@code --warmup 1} untimed passes of each variant,
   * then {@code --passes 5} rounds, each a pass of every variant in turn; one JSON {@link Pass} a
   * line on standard output, warm-up passes included, marked.
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>(Map.of("events", "", "variants", "hashmap,rocksdb", "warmup", "1", "passes", "5"));
    for (int i = 0; i < args.length; i++) {
      String flag = args[i].replaceFirst("^--", "");
      if (!args[i].startsWith("--") || !flags.containsKey(flag) || i + 1 == args.length) {
        System.err.println("usage: WindowBench --events FILE [--variants hashmap,rocksdb] [--warmup 1] [--passes 5]");
        System.exit(2);
      }
      flags.put(flag, args[++i]);
    }
    if (flags.get("events").isEmpty()) {
      System.err.println("WindowBench: --events FILE is required");
      System.exit(2);
    }
    HeldEvents events = load(Path.of(flags.get("events")));
    List<Variant> variants = Stream.of(flags.get("variants").split(",")).map(Variant::parse).toList();
    var json = new ObjectMapper();
    int warmup = Integer.parseInt(flags.get("warmup")), passes = Integer.parseInt(flags.get("passes"));
    for (int round = 0; round < warmup + passes; round++) {
      for (Variant v : variants) {
        Pass p = pass(events, v);
        System.out.println((round < warmup ? "{\"warmup\":true,\"pass\":" : "{\"warmup\":false,\"pass\":") + json.writeValueAsString(p) + "}");
      }
    }
    System.exit(0); // the shutdown hook stops the MiniCluster
  }
}
