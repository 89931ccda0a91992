package dev.flkbyo.flink;

import java.util.List;

/**
 * What Flink did in answer to one operation of a scenario: the results it emitted, the events its
 * side output received, and the watermark the operator had passed on by then.
 */
public record Step(List<Result> results, List<Event> late, long watermark) {}
