package dev.flkbyo.flink.jobs;

/** A window's running count and sum of values for one key: the accumulator of {@link CountAndSum}. */
public record Tally(long count, long sum) {}
