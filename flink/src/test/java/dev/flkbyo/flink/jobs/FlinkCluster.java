package dev.flkbyo.flink.jobs;

import java.util.Collections;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Flink MiniCluster (one task manager, 2 slots) for every job test of the run: its start-up is
 * most of a small job's cost. flink-test-utils' MiniClusterExtension starts one per test class;
 * this starts it once, in JUnit's root store, and stops it when the whole run ends.
 *
 * <p>Use {@code @ExtendWith(FlinkCluster.class)} on a test class, then {@link #env(int)}.
 */
public final class FlinkCluster implements BeforeAllCallback {
  /** The most parallelism a job may ask for: the cluster's slots. */
  public static final int SLOTS = 2;

  private static volatile MiniCluster cluster;

  @Override
  public void beforeAll(ExtensionContext ctx) {
    ctx.getRoot()
        .getStore(ExtensionContext.Namespace.create(FlinkCluster.class))
        .getOrComputeIfAbsent("cluster", k -> start(), Running.class);
  }

  /** A fresh environment on the shared cluster, with the given default parallelism. */
  public static StreamExecutionEnvironment env(int parallelism) {
    if (cluster == null) {
      throw new IllegalStateException("the test class needs @ExtendWith(FlinkCluster.class)");
    }
    return new TestStreamEnvironment(
        cluster, new Configuration(), parallelism, Collections.emptyList(), Collections.emptyList());
  }

  private static Running start() {
    try {
      // Any free port for the REST endpoint, as flink-test-utils'
      // MiniClusterResource does: the default, 8081, fails the run whenever
      // something else (another build, a Flink on the machine) holds it.
      var conf = new Configuration();
      conf.set(RestOptions.BIND_PORT, "0");
      var c = new MiniCluster(
          new MiniClusterConfiguration.Builder()
              .setNumTaskManagers(1)
              .setNumSlotsPerTaskManager(SLOTS)
              .setConfiguration(conf)
              .build());
      c.start();
      cluster = c;
      return new Running(c);
    } catch (Exception e) {
      throw new IllegalStateException("starting a MiniCluster", e);
    }
  }

  /** The running cluster, closed by JUnit when the root context closes. */
  private record Running(MiniCluster cluster) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() throws Exception {
      cluster.close();
    }
  }
}
