package lab

import "github.com/flk-byo/course/kit"

// Rule is one element of the rules stream: from event time TS on, a window
// result of a key that starts with Prefix alerts when its Sum reaches
// Threshold (Sum ≥ Threshold). The empty prefix matches every key.
type Rule struct {
	Prefix    string
	Threshold int64
	TS        int64
}

// Alert is a window result that reached the threshold of a rule in force
// at the window's end.
type Alert struct {
	Result kit.Result
	Rule   Rule
}

// BroadcastProcessor is your stage 06 ParallelProcessor with a second
// input, the rules stream, broadcast to every subtask: each subtask holds
// its own copy of the rules (the broadcast state) and checks the window
// results of the keys it owns against that copy.
//
// Its two inputs race, and the contract makes the outcome independent of
// how they interleave:
//
//   - The rules stream has a watermark of its own (AdvanceRuleWatermark): a
//     rule with TS < the rules' watermark is late. It goes to LateRules and
//     changes nothing, ever; a rule at the watermark is on time.
//   - The rule in force at a window [start, end) for a prefix is that
//     prefix's on-time rule with the latest TS < end; of two with the same
//     prefix and TS, the one with the lower Threshold.
//   - A window result (a first result or a correction, as ParallelProcessor
//     emits it) waits, pending, until the combined watermark, the min of
//     the events' and the rules' watermarks, reaches its end. Then it is
//     checked, once, against the rule in force for every prefix of its key,
//     and gives one Alert per rule whose Threshold its Sum reaches.
//
// A BroadcastProcessor is used from one goroutine.
type BroadcastProcessor struct {
	// TODO: your fields here
}

// NewBroadcastProcessor returns an empty BroadcastProcessor, or an error for
// any cfg NewParallelProcessor rejects. Both watermarks start at
// math.MinInt64; it holds no rules.
func NewBroadcastProcessor(cfg ParallelConfig) (*BroadcastProcessor, error) {
	panic("TODO: build a ParallelProcessor for cfg, and an empty copy of the rules per subtask")
}

// ProcessEvent feeds e to the keyed windows, as ParallelProcessor.Process
// does, and returns the alerts that became decidable.
//
// The alerts of one call, here and in every method that returns some, are
// ordered by (Result.End, Result.Start, Result.Key); one (key, window)'s
// results in the order the windows emitted them (a first result before its
// corrections); one result's alerts by Rule.Prefix. The slice is the
// caller's.
func (b *BroadcastProcessor) ProcessEvent(e kit.Event) []Alert {
	panic("TODO: process e, keep what fired as pending, return the alerts the combined watermark now allows")
}

// AdvanceEventWatermark raises the events' watermark to wm (as
// ParallelProcessor.AdvanceWatermark does; a lower one changes nothing) and
// returns the alerts that became decidable.
func (b *BroadcastProcessor) AdvanceEventWatermark(wm int64) []Alert {
	panic("TODO: advance the keyed windows, keep what fired as pending, return what is decidable")
}

// ProcessRule adds r to every subtask's copy of the rules, or, if r.TS is
// below the rules' watermark, appends it to LateRules and changes nothing.
// A rule never decides an alert by itself: only a watermark does.
func (b *BroadcastProcessor) ProcessRule(r Rule) {
	panic("TODO: judge r against the rules' watermark, then broadcast it to every subtask's copy")
}

// AdvanceRuleWatermark raises the rules' watermark to wm (a lower one
// changes nothing) and returns the alerts that became decidable.
func (b *BroadcastProcessor) AdvanceRuleWatermark(wm int64) []Alert {
	panic("TODO: raise the rules' watermark, return the pending results it makes decidable")
}

// Watermark returns the combined watermark: the min of the events' and the
// rules' watermarks. math.MinInt64 until both inputs have one.
func (b *BroadcastProcessor) Watermark() int64 {
	panic("TODO: return the min of the two inputs' watermarks")
}

// Flush ends both inputs: it fires every window, raises both watermarks to
// math.MaxInt64 and returns every alert still to decide.
func (b *BroadcastProcessor) Flush() []Alert {
	panic("TODO: flush the keyed windows, end the rules stream, decide everything pending")
}

// Late returns the late events, as ParallelProcessor.Late does.
func (b *BroadcastProcessor) Late() []kit.Event {
	panic("TODO: return the late events")
}

// LateRules returns every late rule, in arrival order, in a new slice the
// caller owns. A restored processor starts with none.
func (b *BroadcastProcessor) LateRules() []Rule {
	panic("TODO: return a copy of the late rules")
}

// RulesOn returns the broadcast state of one subtask: every on-time rule,
// one per (Prefix, TS) (the lowest Threshold), ordered by (Prefix, TS), in a
// new slice the caller owns. It is the same on every subtask. It panics
// with a message of its own unless 0 ≤ subtask < Parallelism.
func (b *BroadcastProcessor) RulesOn(subtask int) []Rule {
	panic("TODO: return a sorted copy of this subtask's rules")
}

// Snapshot returns b's state: the keyed windows (as ParallelProcessor
// snapshots them), the broadcast state, the rules' watermark and the
// pending results, in the order they will be decided. Side outputs are not
// state. The layout is yours, with stage 04's rules: equal state gives
// equal bytes, the bytes are the caller's, any changed, missing or extra
// byte is an error on restore, and every prefix, key and ID is kept byte
// for byte, whatever its bytes.
func (b *BroadcastProcessor) Snapshot() ([]byte, error) {
	panic("TODO: encode the keyed state, the rules, the rules' watermark and the pending results, framed and checksummed")
}

// RestoreBroadcastProcessor returns a BroadcastProcessor with the state of
// snapshot at parallelism subtasks: the keyed state redistributed by key
// group as RestoreParallelProcessor does, and a copy of the broadcast state
// on every subtask, new ones too. It goes on exactly as the snapshotted
// processor would; its side outputs start empty; it shares no memory with
// snapshot. It returns a nil processor and an error, never a panic, for a
// parallelism or maxParallelism RestoreParallelProcessor refuses, or bytes
// that are not a broadcast snapshot, truncated or corrupt.
func RestoreBroadcastProcessor(snapshot []byte, parallelism, maxParallelism int) (*BroadcastProcessor, error) {
	panic("TODO: check the bytes, restore the keyed state at parallelism, give every subtask a copy of the rules")
}
