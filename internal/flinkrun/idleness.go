package flinkrun

import "time"

// IdlenessSpec configures the event-time logic of Flink's FLIP-27 source
// (ProgressiveTimestampsAndWatermarks): Partitions splits, each with
// WatermarkStrategy.forBoundedOutOfOrderness(OutOfOrderness ms), and
// withIdleness(IdleTimeout) unless it is 0, combined by Flink's
// WatermarkOutputMultiplexer.
type IdlenessSpec struct {
	Partitions     int           `json:"partitions"`
	OutOfOrderness int64         `json:"outOfOrderness"`
	IdleTimeout    time.Duration `json:"idleTimeoutNanos"`
}

// IdlenessOp is one operation on the source: a record from a split, or
// processing time moving on.
type IdlenessOp struct {
	Op        string        `json:"op"` // "observe" or "advance"
	Partition int           `json:"partition"`
	TS        int64         `json:"ts"`
	D         time.Duration `json:"nanos"`
}

// ObserveOp and AdvanceOp make IdlenessOps.
func ObserveOp(partition int, ts int64) IdlenessOp {
	return IdlenessOp{Op: "observe", Partition: partition, TS: ts}
}
func AdvanceOp(d time.Duration) IdlenessOp { return IdlenessOp{Op: "advance", D: d} }

// IdlenessStep is the source after one IdlenessOp.
type IdlenessStep struct {
	// Watermark is the highest watermark the source handed downstream,
	// math.MinInt64 before the first.
	Watermark int64 `json:"watermark"`
	// Idle and PartitionWatermarks are each split's idleness and
	// watermark as the multiplexer holds them.
	Idle                []bool  `json:"idle"`
	PartitionWatermarks []int64 `json:"partitionWatermarks"`
	// SourceIdle is whether the source last announced IDLE downstream.
	SourceIdle bool `json:"sourceIdle"`
}

// RunIdleness runs an idleness scenario: Flink's source event-time logic
// built from spec, on a manual processing-time clock, one IdlenessStep per
// op.
func (r *Runner) RunIdleness(spec IdlenessSpec, ops []IdlenessOp) ([]IdlenessStep, error) {
	return runSteps[IdlenessStep](r, "idleness", spec, ops)
}
