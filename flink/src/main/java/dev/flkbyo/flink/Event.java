package dev.flkbyo.flink;

/**
 * One input record, as the course's kit.Event: times are milliseconds of event time.
 *
 * <p>Flink has no use for the ID (the course deduplicates by it); it is carried so that the side
 * output can be compared event by event.
 */
public record Event(String id, String key, long ts, long value) {}
