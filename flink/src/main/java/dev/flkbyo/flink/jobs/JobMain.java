package dev.flkbyo.flink.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flkbyo.flink.Event;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The command line every job's {@code main} shares:
 *
 * <pre>
 * java -cp target/classes:$(cat target/classpath.txt) dev.flkbyo.flink.jobs.StageNN… [--flag value]… &lt; events.jsonl
 * </pre>
 *
 * <ul>
 *   <li>Standard input: the events, one JSON object a line, {@code {"id":…,"key":…,"ts":…,"value":…}}
 *       (the course's kit.Event); blank lines are skipped, an unknown field is an error.
 *   <li>Flags: one per component of the job's Config record, named in kebab case ({@code
 *       windowSize} is {@code --window-size}), as {@code --flag value} or {@code --flag=value},
 *       plus {@code --parallelism N}, the job's default parallelism (default 1; a Config with a
 *       {@code parallelism} of its own takes the flag, and its default). Enum values are written in kebab case too
 *       ({@code --watermarks per-event}). {@code --help} lists them with their defaults.
 *   <li>Standard output: what the job emitted, one JSON object a line (see the job's output
 *       record), and nothing else: Flink's own logging goes to standard error.
 *   <li>Exit status: 0 when the job ran, 2 for a bad flag, 1 for any other error, with one line on
 *       standard error.
 * </ul>
 */
public final class JobMain {
  private JobMain() {}

  /** What a job's main prints: one JSON value a line, in this order. */
  public interface Lines {
    /** The values to print, each as one line of JSON. */
    List<?> lines();
  }

  /** One job: builds the pipeline on env from the input and config, runs it, returns what it collected. */
  @FunctionalInterface
  public interface Job<C> {
    /** Runs the job. */
    Lines run(StreamExecutionEnvironment env, List<Event> input, C config) throws Exception;
  }

  /**
   * Runs a job from the command line: flags into a copy of {@code defaults}, events from standard
   * input, the job on a local Flink, its lines to standard output; then exits.
   */
  public static <C extends Record> void main(String name, String[] args, C defaults, Job<C> job) {
    PrintStream stdout = System.out;
    System.setOut(System.err); // whatever else prints to System.out (a logger) goes to stderr
    Flags<C> flags;
    try {
      flags = Flags.parse(args, defaults);
    } catch (IllegalArgumentException e) {
      System.err.println(name + ": " + e.getMessage() + " (--help lists the flags)");
      System.exit(2);
      return;
    }
    int status = 0;
    try {
      if (flags == null) {
        stdout.print(Flags.usage(name, defaults));
        stdout.flush();
      } else {
        List<Event> input = readEvents(System.in);
        var env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(flags.parallelism());
        write(job.run(env, input, flags.config()), stdout);
      }
    } catch (Exception e) {
      System.err.println(name + ": " + oneLine(e));
      status = 1;
    }
    System.exit(status); // a local cluster may leave threads behind
  }

  /** Reads events, one JSON object a line; blank lines are skipped. */
  public static List<Event> readEvents(InputStream in) throws IOException {
    ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    var r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    List<Event> events = new ArrayList<>();
    int n = 0;
    for (String line; (line = r.readLine()) != null; ) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        events.add(json.readValue(line, Event.class));
      } catch (JsonProcessingException e) {
        throw new IOException("standard input, line " + n + ": " + e.getOriginalMessage()); // no cause: one message
      }
    }
    return events;
  }

  /** Writes each line of the output as one line of JSON. */
  public static void write(Lines output, PrintStream out) throws IOException {
    ObjectMapper json = new ObjectMapper();
    var w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    for (Object line : output.lines()) {
      w.write(json.writeValueAsString(line));
      w.newLine();
    }
    w.flush();
  }

  /** The messages of e and its causes, each once, on one line. */
  static String oneLine(Throwable e) {
    var b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String msg = t.getMessage();
      if (msg == null || !msg.contains(" ")) { // a bare path or nothing: say what it was
        msg = t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
      }
      if (b.indexOf(msg) < 0) {
        b.append(b.length() == 0 ? "" : ": ").append(msg);
      }
    }
    return b.toString().replace('\n', ' ');
  }

  /** The command line's flags: the job's config and the parallelism. */
  record Flags<C extends Record>(C config, int parallelism) {
    /** Parses args onto defaults; returns null for --help. */
    static <C extends Record> Flags<C> parse(String[] args, C defaults) {
      Map<String, RecordComponent> byFlag = new LinkedHashMap<>();
      for (RecordComponent c : defaults.getClass().getRecordComponents()) {
        byFlag.put(kebab(c.getName()), c);
      }
      Map<String, Object> values = new LinkedHashMap<>();
      for (RecordComponent c : byFlag.values()) {
        values.put(c.getName(), get(c, defaults));
      }
      int parallelism = 1;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--help") || a.equals("-h")) {
          return null;
        }
        if (!a.startsWith("--")) {
          throw new IllegalArgumentException("unexpected argument " + a);
        }
        String flag = a.substring(2);
        String value;
        int eq = flag.indexOf('=');
        if (eq >= 0) {
          value = flag.substring(eq + 1);
          flag = flag.substring(0, eq);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("--" + flag + " needs a value");
        }
        if (flag.equals("parallelism")) {
          parallelism = (int) parseValue(flag, int.class, value);
          if (parallelism < 1) {
            throw new IllegalArgumentException("--parallelism must be at least 1, got " + value);
          }
          if (!byFlag.containsKey(flag)) {
            continue;
          }
        }
        RecordComponent c = byFlag.get(flag);
        if (c == null) {
          throw new IllegalArgumentException("unknown flag --" + flag);
        }
        values.put(c.getName(), parseValue(flag, c.getType(), value));
      }
      try {
        var types = byFlag.values().stream().map(RecordComponent::getType).toArray(Class<?>[]::new);
        @SuppressWarnings("unchecked")
        C config = (C) defaults.getClass().getDeclaredConstructor(types).newInstance(values.values().toArray());
        if (values.get("parallelism") instanceof Integer p) {
          parallelism = p; // the job's own parallelism setting, its default included
        }
        return new Flags<>(config, parallelism);
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw new IllegalArgumentException(e.getCause().getMessage(), e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The --help text: every flag with its default. */
    static String usage(String name, Record defaults) {
      var b = new StringBuilder("usage: " + name + " [flags] < events.jsonl\n");
      for (RecordComponent c : defaults.getClass().getRecordComponents()) {
        b.append(String.format("  --%-20s %s (default %s)%n", kebab(c.getName()), typeName(c.getType()), show(get(c, defaults))));
      }
      if (!hasParallelism(defaults)) {
        b.append(String.format("  --%-20s %s (default %s)%n", "parallelism", "int", 1));
      }
      b.append("Times are milliseconds: of event time, except --checkpoint-interval and --idle-timeout,\n");
      b.append("which are processing time. Output: one JSON object a line on standard output.\n");
      return b.toString();
    }

    private static boolean hasParallelism(Record r) {
      for (RecordComponent c : r.getClass().getRecordComponents()) {
        if (c.getName().equals("parallelism")) {
          return true;
        }
      }
      return false;
    }

    private static Object get(RecordComponent c, Record r) {
      try {
        return c.getAccessor().invoke(r);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    private static Object parseValue(String flag, Class<?> type, String v) {
      try {
        if (type == long.class) {
          return Long.parseLong(v);
        } else if (type == int.class) {
          return Integer.parseInt(v);
        } else if (type == boolean.class) {
          if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException();
          }
          return Boolean.parseBoolean(v);
        } else if (type == String.class) {
          return v;
        } else if (type.isEnum()) {
          for (Object o : type.getEnumConstants()) {
            if (show(o).equals(v)) {
              return o;
            }
          }
          throw new IllegalArgumentException();
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--" + flag + ": not a " + typeName(type) + ": " + v);
      }
      throw new IllegalStateException("no flag parser for " + type);
    }

    private static String typeName(Class<?> type) {
      if (!type.isEnum()) {
        return type.getSimpleName().toLowerCase(Locale.ROOT);
      }
      var names = new ArrayList<String>();
      for (Object o : type.getEnumConstants()) {
        names.add(show(o));
      }
      return String.join("|", names);
    }

    private static String show(Object v) {
      if (v instanceof Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
      }
      return v instanceof String str ? '"' + str + '"' : String.valueOf(v);
    }

    private static String kebab(String camel) {
      return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
  }
}
