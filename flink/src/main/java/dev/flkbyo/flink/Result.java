package dev.flkbyo.flink;

/**
 * What a window emits for one key, as the course's kit.Result: the count and sum of its events'
 * values over [start, end). {@code update} marks a late firing of a window that had fired for
 * this key before.
 */
public record Result(String key, long start, long end, long count, long sum, boolean update) {}
