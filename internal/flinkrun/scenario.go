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
}

// Op is one arrival: an event, a watermark from upstream (in Flink's
// terms), or the end of a bounded input (Flink's final Long.MAX_VALUE
// watermark).
type Op struct {
	Op    string `json:"op"` // "event", "watermark" or "end"
	Event *Event `json:"event,omitempty"`
	WM    int64  `json:"wm"`
}

// EventOp, WatermarkOp and EndOp make Ops.
func EventOp(e Event) Op      { return Op{Op: "event", Event: &e} }
func WatermarkOp(wm int64) Op { return Op{Op: "watermark", WM: wm} }
func EndOp() Op               { return Op{Op: "end", WM: math.MaxInt64} }

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
// the order it emitted them, the events its side output received, the
// watermark the operator had passed on by then (math.MinInt64: none yet),
// and, for session windows, the merges its MergingWindowSet made.
type Step struct {
	Results   []Result `json:"results"`
	Late      []Event  `json:"late"`
	Watermark int64    `json:"watermark"`
	Merges    []Merge  `json:"merges"`
}

// Merge is one merge of a key's session windows, as Flink's
// MergingWindowSet made it: an event's own Window merged With the windows
// of its key that held state (in start order) Into their cover. Flink's
// output does not say which earlier firings a merged window's firing
// replaces; its merges do.
type Merge struct {
	Key    string   `json:"key"`
	Window Window   `json:"window"`
	With   []Window `json:"with"`
	Into   Window   `json:"into"`
}

// Window is a window's bounds, [Start, End), as Flink's TimeWindow.
type Window struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}
