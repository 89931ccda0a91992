package flinkrun

import "math"

// WindowSpec configures Flink's WindowOperator, in milliseconds.
type WindowSpec struct {
	// Assigner is "tumbling" (Size), "sliding" (Size, Slide) or "session"
	// (Gap): Flink's TumblingEventTimeWindows, SlidingEventTimeWindows and
	// EventTimeSessionWindows.
	Assigner string `json:"assigner"`
	Size     int64  `json:"size"`
	Slide    int64  `json:"slide"`
	Gap      int64  `json:"gap"`
	// EventWatermarks makes the watermark from the events too, with Flink's
	// BoundedOutOfOrdernessWatermarks(Delay): max timestamp − Delay − 1,
	// asked for after every event. Without it only "watermark" Ops move it.
	EventWatermarks bool  `json:"eventWatermarks"`
	Delay           int64 `json:"delay"`
	// Lateness is the operator's allowed lateness.
	Lateness int64 `json:"lateness"`
	// Backend is the state backend the operator keeps its keyed state and
	// timers in: "hashmap" (Flink's HashMapStateBackend, also when empty)
	// or "rocksdb" (EmbeddedRocksDBStateBackend, in a temporary folder the
	// runner deletes).
	Backend string `json:"backend,omitempty"`
}

// Op is one arrival: an event, a watermark from upstream (in Flink's
// terms), or the end of a bounded input (Flink's final Long.MAX_VALUE
// watermark); or a restore: the runner snapshots the operator, closes it,
// and carries on with a new one restored from the snapshot (and given the
// last watermark at once, which Flink's snapshot does not hold).
type Op struct {
	Op    string `json:"op"` // "event", "watermark", "end" or "restore"
	Event *Event `json:"event,omitempty"`
	WM    int64  `json:"wm"`
}

// EventOp, WatermarkOp, EndOp and RestoreOp make Ops.
func EventOp(e Event) Op      { return Op{Op: "event", Event: &e} }
func WatermarkOp(wm int64) Op { return Op{Op: "watermark", WM: wm} }
func EndOp() Op               { return Op{Op: "end", WM: math.MaxInt64} }
func RestoreOp() Op           { return Op{Op: "restore"} }

// Event is an input record, as kit.Event.
type Event struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	TS    int64  `json:"ts"`
	Value int64  `json:"value"`
}

// Result is what a Flink window emitted for one key. Update marks a late
// firing of a window that had fired for that key before; Flink's merging
// (session) windows have no per-window state to tell, and never set it.
type Result struct {
	Key    string `json:"key"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Count  int64  `json:"count"`
	Sum    int64  `json:"sum"`
	Update bool   `json:"update"`
}

// Step is what Flink did in answer to one Op: the results it emitted, in
// the order it emitted them, the events its side output received, and the
// watermark the operator had passed on by then (math.MinInt64: none yet).
type Step struct {
	Results   []Result `json:"results"`
	Late      []Event  `json:"late"`
	Watermark int64    `json:"watermark"`
}
