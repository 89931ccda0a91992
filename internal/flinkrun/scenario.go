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
// the order it emitted them, the events its side output received, the
// watermark the operator had passed on by then (math.MinInt64: none yet),
// and, for session windows, the merges its MergingWindowSet made.
type Step struct {
	Results   []Result `json:"results"`
	Late      []Event  `json:"late"`
	Watermark int64    `json:"watermark"`
	// Dropped and Remembered are the "seenttl" kind's (RunSeenTTL), zero
	// in the others': the deliveries its keyed dedup function dropped as
	// redeliveries on this Op, and how many IDs its keyed state holds
	// after it.
	Dropped    []Event `json:"dropped"`
	Remembered int     `json:"remembered"`
	// Merges are a session window operator's: the merges its
	// MergingWindowSet made on this Op (see Merge).
	Merges []Merge `json:"merges"`
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

// SeenTTLSpec configures the "seenttl" kind: Flink's KeyedProcessOperator,
// keyed by ID, running a dedup function that remembers an ID with an
// event-time timer, followed by the WindowOperator of Window.
type SeenTTLSpec struct {
	Window WindowSpec `json:"window"`
	// TTL is in the course's terms: an ID is forgotten when the course's
	// watermark reaches its TS + TTL (saturating), which the function sets
	// its timer for in Flink's; 0 remembers every ID forever.
	TTL int64 `json:"ttl"`
}

// BroadcastSpec configures the "broadcast" kind: the WindowOperator of
// Window on the events, a ProcessFunction judging the rules' lateness, and
// Flink's CoBroadcastWithKeyedOperator joining the two, run as Parallelism
// subtasks with MaxParallelism key groups.
type BroadcastSpec struct {
	Window         WindowSpec `json:"window"`
	Parallelism    int        `json:"parallelism"`
	MaxParallelism int        `json:"maxParallelism"`
}

// Rule is a rule of the rules stream, as solutions.Rule.
type Rule struct {
	Prefix    string `json:"prefix"`
	Threshold int64  `json:"threshold"`
	TS        int64  `json:"ts"`
}

// BroadcastOp is one arrival of a broadcast scenario: an event ("event") or
// a watermark ("watermark") of the events' input, a rule ("rule") or a
// watermark ("ruleWatermark") of the rules' input, or the end of both
// ("end"). Watermarks are in Flink's terms.
type BroadcastOp struct {
	Op    string `json:"op"`
	Event *Event `json:"event,omitempty"`
	Rule  *Rule  `json:"rule,omitempty"`
	WM    int64  `json:"wm"`
}

// BroadcastEventOp, BroadcastWatermarkOp, RuleOp, RuleWatermarkOp and
// BroadcastEndOp make BroadcastOps.
func BroadcastEventOp(e Event) BroadcastOp      { return BroadcastOp{Op: "event", Event: &e} }
func BroadcastWatermarkOp(wm int64) BroadcastOp { return BroadcastOp{Op: "watermark", WM: wm} }
func RuleOp(r Rule) BroadcastOp                 { return BroadcastOp{Op: "rule", Rule: &r} }
func RuleWatermarkOp(wm int64) BroadcastOp      { return BroadcastOp{Op: "ruleWatermark", WM: wm} }
func BroadcastEndOp() BroadcastOp               { return BroadcastOp{Op: "end", WM: math.MaxInt64} }

// Alerts is one record of the broadcast operator: a window result and the
// rules it reached the threshold of, in no particular order.
type Alerts struct {
	Result Result `json:"result"`
	Rules  []Rule `json:"rules"`
}

// BroadcastStep is what Flink did in answer to one BroadcastOp: the alerts
// the broadcast operator's subtasks emitted, subtask by subtask, each in
// emission order; the events the window operator's side output received;
// the rules the lateness function sent to its side output; the combined
// watermark the broadcast operator passed on (math.MinInt64: none yet);
// and each subtask's broadcast state, as rules in no particular order.
type BroadcastStep struct {
	Alerts    []Alerts `json:"alerts"`
	Late      []Event  `json:"late"`
	LateRules []Rule   `json:"lateRules"`
	Watermark int64    `json:"watermark"`
	Rules     [][]Rule `json:"rules"`
}
