package dev.flkbyo.flink;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Reads scenarios, one JSON object a line, from standard input and writes, for each, one line:
 * {@code {"steps": [...]}} with one step per operation, or {@code {"error": "..."}}. It runs them
 * one after another in one JVM, so that a few hundred scenarios cost one start-up.
 *
 * <p>A scenario is {@code {"kind": ..., "spec": {...}, "ops": [...]}}: the kind names the Flink
 * operator to build, and its Kind reads the spec and the operations in its own types.
 */
public final class Runner {
  private Runner() {}

  /** One kind of scenario: the Flink operator it builds, and how it runs the operations. */
  @FunctionalInterface
  interface Kind {
    /** Runs the operations and returns one step per operation, for JSON. */
    List<?> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception;
  }

  /** Every kind of scenario, by the name a scenario's "kind" gives. */
  static final Map<String, Kind> KINDS =
      Map.of(
          "window", WindowRun::run,
          "keygroups", KeyGroupsRun::run,
          "idleness", IdlenessRun::run,
          "seenttl", SeenTTLRun::run,
          "broadcast", BroadcastRun::run,
          "twophase", TwoPhaseRun::run,
          "windowbench", dev.flkbyo.flink.bench.WindowBench::run);

  /** The answer to one scenario. */
  record Answer(List<?> steps, String error) {}

  /** The scenario as it arrives; spec and ops are read by its kind. */
  record Request(String kind, JsonNode spec, JsonNode ops) {}

  public static void main(String[] args) throws Exception {
    ObjectMapper json =
        new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    var out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) {
        continue;
      }
      Answer a;
      try {
        a = new Answer(run(json.readValue(line, Request.class), json), null);
      } catch (Exception | AssertionError e) {
        var trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        a = new Answer(null, trace.toString());
      }
      out.write(json.writeValueAsString(a));
      out.newLine();
      out.flush();
    }
    System.exit(0); // a kind may have started a local Flink cluster (windowbench), whose threads would keep the JVM alive
  }

  static List<?> run(Request r, ObjectMapper json) throws Exception {
    Kind k = KINDS.get(r.kind());
    if (k == null) {
      throw new IllegalArgumentException("unknown scenario kind " + r.kind() + "; known: " + KINDS.keySet());
    }
    return k.run(r.spec(), r.ops(), json);
  }
}
