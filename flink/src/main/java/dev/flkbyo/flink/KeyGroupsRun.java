package dev.flkbyo.flink;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Answers key-group questions (kind "keygroups") with Flink's own KeyGroupRangeAssignment, the
 * class behind keyBy's KeyGroupStreamPartitioner and behind the assignment of key-group state to
 * subtasks on restore: which subtask owns each key group, which key groups each subtask owns, the
 * default maxParallelism, and the key group and subtask of a String key.
 *
 * <p>Nothing here is stateful: a scenario is one (maxParallelism, parallelism) pair and a batch of
 * questions about it, so that one line can hold every key group of a maxParallelism of 32768.
 */
final class KeyGroupsRun {
  private KeyGroupsRun() {}

  /**
   * The pair every question of a scenario is asked about.
   *
   * @param maxParallelism the number of key groups
   * @param parallelism the number of subtasks
   */
  record Spec(int maxParallelism, int parallelism) {}

  /**
   * One question: "operators" (the subtask of every key group, computeOperatorIndexForKeyGroup),
   * "ranges" (the key groups of every subtask, computeKeyGroupRangeForOperatorIndex), "default"
   * (computeDefaultMaxParallelism of {@code parallelism}) or "key" (assignToKeyGroup and
   * assignKeyToParallelOperator of {@code key}, hashed with String.hashCode as Flink hashes a
   * String key).
   */
  record Op(String op, String key, int parallelism) {}

  /**
   * Flink's answer to one question; only the fields of its kind are set. {@code rejected} is the
   * message of the IllegalArgumentException with which Flink refused the arguments, if it did.
   */
  record Step(
      List<Integer> operators,
      List<int[]> ranges,
      Integer defaultMaxParallelism,
      Integer keyGroup,
      Integer operator,
      String rejected) {
    static Step rejected(IllegalArgumentException e) {
      return new Step(null, null, null, null, null, e.getMessage());
    }
  }

  /** Runs a "keygroups" scenario for the Runner: spec is a Spec, ops a list of Ops. */
  static List<Step> run(JsonNode spec, JsonNode ops, ObjectMapper json) throws Exception {
    return run(json.treeToValue(spec, Spec.class), json.convertValue(ops, new TypeReference<List<Op>>() {}));
  }

  /** Answers each question about s, in order. */
  static List<Step> run(Spec s, List<Op> ops) {
    List<Step> steps = new ArrayList<>(ops.size());
    for (Op o : ops) {
      steps.add(
          switch (o.op()) {
            case "operators" -> operators(s);
            case "ranges" -> ranges(s);
            case "default" -> defaultMaxParallelism(o.parallelism());
            case "key" -> key(s, o.key());
            default -> throw new IllegalArgumentException("unknown op " + o.op());
          });
    }
    return steps;
  }

  /**
   * The subtask of each key group 0 … maxParallelism − 1. Flink's computeOperatorIndexForKeyGroup
   * checks nothing (its callers have), so only valid pairs are asked.
   */
  static Step operators(Spec s) {
    List<Integer> out = new ArrayList<>(Math.max(s.maxParallelism(), 0));
    for (int kg = 0; kg < s.maxParallelism(); kg++) {
      out.add(KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(s.maxParallelism(), s.parallelism(), kg));
    }
    return new Step(out, null, null, null, null, null);
  }

  /**
   * The inclusive range [first, last] of each subtask 0 … parallelism − 1, or Flink's refusal of
   * the pair: asked for subtask 0 at least, so that a parallelism below 1 meets Flink's checks.
   */
  static Step ranges(Spec s) {
    List<int[]> out = new ArrayList<>();
    try {
      for (int i = 0; i < Math.max(s.parallelism(), 1); i++) {
        KeyGroupRange r =
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(s.maxParallelism(), s.parallelism(), i);
        out.add(new int[] {r.getStartKeyGroup(), r.getEndKeyGroup()});
      }
    } catch (IllegalArgumentException e) {
      return Step.rejected(e);
    }
    return new Step(null, out, null, null, null, null);
  }

  /** computeDefaultMaxParallelism(parallelism), or Flink's refusal of the parallelism. */
  static Step defaultMaxParallelism(int parallelism) {
    try {
      return new Step(
          null, null, KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism), null, null, null);
    } catch (IllegalArgumentException e) {
      return Step.rejected(e);
    }
  }

  /** The key group of a String key and the subtask keyBy sends it to. */
  static Step key(Spec s, String key) {
    return new Step(
        null,
        null,
        null,
        KeyGroupRangeAssignment.assignToKeyGroup(key, s.maxParallelism()),
        KeyGroupRangeAssignment.assignKeyToParallelOperator(key, s.maxParallelism(), s.parallelism()),
        null);
  }
}
