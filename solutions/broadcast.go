package solutions

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/flk-byo/course/kit"
)

// Rule is one element of the rules stream: from event time TS on, a window
// result of a key that starts with Prefix alerts when its Sum reaches
// Threshold.
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

// BroadcastProcessor is stage 06's ParallelProcessor with a second input,
// the rules stream, broadcast to every subtask (Flink's
// KeyedBroadcastProcessFunction): each subtask holds its own copy of every
// rule, the broadcast state, and checks the window results of its keys
// against it.
//
// The two inputs race. A window result is ready when the events' watermark
// reaches its end, but a rule with a timestamp before that end may still be
// on its way: the result waits, pending, until the rules' watermark reaches
// the end too. So an alert is decided when the combined watermark, the min
// of the two, reaches the window's end, and by then the rules in force are
// known for good.
type BroadcastProcessor struct {
	pp *ParallelProcessor

	// ruleWM is the rules stream's watermark: every rule with TS < ruleWM
	// has arrived, and one that arrives now is late.
	ruleWM int64

	// rules is the broadcast state, one copy per subtask, indexed by
	// subtask. Every rule goes to every copy, so the copies are equal; a
	// subtask reads only its own, as a Flink task does.
	rules []ruleSet

	// pending holds the window results the events' side has emitted whose
	// end the rules' watermark has not reached yet, in emission order. They
	// are state: a snapshot must keep them.
	pending []kit.Result

	// lateRules is the rules side output, in arrival order.
	lateRules []Rule
}

// ruleSet is one subtask's copy of the broadcast state: per prefix, its
// rules in ascending TS, one per TS.
type ruleSet map[string][]Rule

// NewBroadcastProcessor returns an empty BroadcastProcessor, or the error
// NewParallelProcessor gives for cfg. Both watermarks start at
// math.MinInt64.
func NewBroadcastProcessor(cfg ParallelConfig) (*BroadcastProcessor, error) {
	pp, err := NewParallelProcessor(cfg)
	if err != nil {
		return nil, fmt.Errorf("broadcast: %w", err)
	}
	return newBroadcast(pp, make(ruleSet)), nil
}

// newBroadcast wraps pp with a copy of rules on each of its subtasks.
func newBroadcast(pp *ParallelProcessor, rules ruleSet) *BroadcastProcessor {
	b := &BroadcastProcessor{pp: pp, ruleWM: math.MinInt64, rules: make([]ruleSet, len(pp.subtasks))}
	for i := range b.rules {
		b.rules[i] = rules.clone()
	}
	return b
}

// ProcessEvent feeds e to the keyed windows and returns the alerts that
// became decidable.
func (b *BroadcastProcessor) ProcessEvent(e kit.Event) []Alert {
	b.pending = append(b.pending, b.pp.Process(e)...)
	return b.release()
}

// AdvanceEventWatermark raises the events' watermark to wm and returns the
// alerts that became decidable.
func (b *BroadcastProcessor) AdvanceEventWatermark(wm int64) []Alert {
	b.pending = append(b.pending, b.pp.AdvanceWatermark(wm)...)
	return b.release()
}

// ProcessRule broadcasts r to every subtask's copy of the rules, or, if
// r.TS < the rules' watermark, sends it to LateRules and changes nothing.
// A rule never decides an alert by itself: only a watermark does.
func (b *BroadcastProcessor) ProcessRule(r Rule) {
	if r.TS < b.ruleWM {
		// Accepting it would make alerts depend on how the streams
		// interleaved: a window whose alert was decided already would
		// have missed it, and one still pending would see it.
		b.lateRules = append(b.lateRules, r)
		return
	}
	for _, rs := range b.rules {
		rs.add(r)
	}
}

// AdvanceRuleWatermark raises the rules' watermark to wm (a lower one
// changes nothing) and returns the alerts that became decidable.
func (b *BroadcastProcessor) AdvanceRuleWatermark(wm int64) []Alert {
	b.ruleWM = max(b.ruleWM, wm)
	return b.release()
}

// Watermark returns the combined watermark: the min of the two inputs'.
func (b *BroadcastProcessor) Watermark() int64 {
	return min(b.pp.Watermark(), b.ruleWM)
}

// Flush ends both inputs: it fires every window, raises both watermarks to
// math.MaxInt64 and returns every alert still to decide.
func (b *BroadcastProcessor) Flush() []Alert {
	b.pending = append(b.pending, b.pp.Flush()...)
	b.ruleWM = math.MaxInt64
	return b.release()
}

// Late returns the late events, as ParallelProcessor.Late does.
func (b *BroadcastProcessor) Late() []kit.Event {
	return b.pp.Late()
}

// LateRules returns the late rules in arrival order, in a new slice.
func (b *BroadcastProcessor) LateRules() []Rule {
	return slices.Clone(b.lateRules)
}

// RulesOn returns the rules subtask holds, ordered by (Prefix, TS), in a
// new slice. It panics unless 0 ≤ subtask < Parallelism.
func (b *BroadcastProcessor) RulesOn(subtask int) []Rule {
	if subtask < 0 || subtask >= len(b.rules) {
		panic(fmt.Sprintf("broadcast: RulesOn: subtask %d is outside [0, %d)", subtask, len(b.rules)))
	}
	return b.rules[subtask].all()
}

// release takes from pending the results whose end the combined watermark
// has reached and returns their alerts, ordered by (End, Start, Key), one
// window's results in emission order, and one result's alerts by prefix.
func (b *BroadcastProcessor) release() []Alert {
	wm := b.Watermark()
	var ready []kit.Result
	b.pending = slices.DeleteFunc(b.pending, func(r kit.Result) bool {
		if r.End <= wm {
			ready = append(ready, r)
			return true
		}
		return false
	})
	slices.SortStableFunc(ready, func(x, y kit.Result) int {
		return cmp.Or(cmp.Compare(x.End, y.End), cmp.Compare(x.Start, y.Start), strings.Compare(x.Key, y.Key))
	})
	var out []Alert
	for _, r := range ready {
		// The alert is decided on the subtask that owns the key, with its
		// own copy of the rules: the copy every subtask must agree on.
		task := TaskForKeyGroup(KeyGroup(r.Key, b.pp.cfg.MaxParallelism), b.pp.cfg.MaxParallelism, len(b.rules))
		for _, rule := range b.rules[task].inForce(r.Key, r.End) {
			if r.Sum >= rule.Threshold {
				out = append(out, Alert{Result: r, Rule: rule})
			}
		}
	}
	return out
}

// add inserts r, keeping each prefix's rules in ascending TS. Of two rules
// with the same prefix and TS the lower threshold stays, so the state does
// not depend on which of them arrived first.
func (rs ruleSet) add(r Rule) {
	list := rs[r.Prefix]
	i, found := slices.BinarySearchFunc(list, r.TS, func(x Rule, ts int64) int { return cmp.Compare(x.TS, ts) })
	if found {
		list[i].Threshold = min(list[i].Threshold, r.Threshold)
		return
	}
	rs[r.Prefix] = slices.Insert(list, i, r)
}

// inForce returns, ordered by prefix, the rule in force at end for each
// prefix of key: its latest rule with TS < end. A window is [start, end),
// so a rule at end belongs to the windows after it.
func (rs ruleSet) inForce(key string, end int64) []Rule {
	var out []Rule
	for prefix, list := range rs {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		i, _ := slices.BinarySearchFunc(list, end, func(x Rule, ts int64) int { return cmp.Compare(x.TS, ts) })
		if i > 0 {
			out = append(out, list[i-1])
		}
	}
	slices.SortFunc(out, func(x, y Rule) int { return strings.Compare(x.Prefix, y.Prefix) })
	return out
}

// all returns every rule, ordered by (Prefix, TS).
func (rs ruleSet) all() []Rule {
	var out []Rule
	for _, prefix := range slices.Sorted(maps.Keys(rs)) {
		out = append(out, rs[prefix]...)
	}
	return out
}

// clone returns a copy of rs that shares no memory with it.
func (rs ruleSet) clone() ruleSet {
	c := make(ruleSet, len(rs))
	for prefix, list := range rs {
		c[prefix] = slices.Clone(list)
	}
	return c
}

// A broadcast snapshot is framed as stage 04's, with its own magic, "FLBR"
// (FLink BRoadcast state).
// The body:
//
//	keyed state   uvarint n, then the n bytes of the ParallelProcessor's snapshot
//	rules wm      varint
//	rules         uvarint n, then n rules ordered by (Prefix, TS), each:
//	                string Prefix, varint TS, varint Threshold
//	pending       uvarint n, then n results in emission order, each:
//	                string Key, varint Start, varint End, uvarint Count,
//	                varint Sum, uvarint IsUpdate (0 or 1)
//
// Every subtask's copy of the rules is the same, so the snapshot holds one,
// and a restore gives each new subtask its own copy of it. (Flink has every
// task write its copy, so that no one task writes for all, and on rescale
// hands the old copies round-robin to the new tasks.)
const broadcastSnapshotMagic = "FLBR"

// broadcastSnapshot is a BroadcastProcessor's kind of snapshot.
var broadcastSnapshot = snapshotKind{magic: broadcastSnapshotMagic, pkg: "broadcast", what: "broadcast snapshot"}

// Snapshot returns b's state in the format above: the keyed state, the
// rules' watermark, the broadcast state and the pending results. The side
// outputs are not state. Equal state gives equal bytes; they are the
// caller's.
func (b *BroadcastProcessor) Snapshot() ([]byte, error) {
	keyed, err := b.pp.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("broadcast: %w", err)
	}
	buf := make([]byte, headerLen, headerLen+len(keyed)+256)
	buf = appendString(buf, string(keyed))
	buf = binary.AppendVarint(buf, b.ruleWM)
	rules := b.rules[0].all()
	buf = binary.AppendUvarint(buf, uint64(len(rules)))
	for _, r := range rules {
		buf = appendString(buf, r.Prefix)
		buf = binary.AppendVarint(buf, r.TS)
		buf = binary.AppendVarint(buf, r.Threshold)
	}
	buf = binary.AppendUvarint(buf, uint64(len(b.pending)))
	for _, r := range b.pending {
		buf = appendString(buf, r.Key)
		buf = binary.AppendVarint(buf, r.Start)
		buf = binary.AppendVarint(buf, r.End)
		buf = binary.AppendUvarint(buf, uint64(r.Count))
		buf = binary.AppendVarint(buf, r.Sum)
		update := uint64(0)
		if r.IsUpdate {
			update = 1
		}
		buf = binary.AppendUvarint(buf, update)
	}
	return broadcastSnapshot.seal(buf), nil
}

// RestoreBroadcastProcessor returns a BroadcastProcessor with the state of
// snapshot at parallelism subtasks: the keyed state redistributed by key
// group as RestoreParallelProcessor does, and a copy of the broadcast state
// on every subtask. Its side outputs start empty; it shares no memory with
// snapshot. Invalid arguments or bytes give a nil processor and an error,
// never a panic.
func RestoreBroadcastProcessor(snapshot []byte, parallelism, maxParallelism int) (*BroadcastProcessor, error) {
	v, err := broadcastSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	if v != snapshotVersion {
		return nil, broadcastSnapshot.unsupported(v)
	}
	body, err := broadcastSnapshot.verifiedBody(snapshot)
	if err != nil {
		return nil, err
	}
	r := &reader{buf: body}
	keyed := r.bytes()
	if r.err != nil {
		return nil, broadcastSnapshot.corrupt(r.err)
	}
	pp, err := RestoreParallelProcessor(keyed, parallelism, maxParallelism)
	if err != nil {
		return nil, fmt.Errorf("broadcast: keyed state: %w", err)
	}
	ruleWM := r.varint()
	rules, err := r.broadcastRules()
	if err != nil {
		return nil, broadcastSnapshot.corrupt(err)
	}
	b := newBroadcast(pp, rules)
	b.ruleWM = ruleWM
	if b.pending, err = r.pendingResults(pp.Watermark(), ruleWM); err != nil {
		return nil, broadcastSnapshot.corrupt(err)
	}
	if len(r.buf) > 0 {
		return nil, broadcastSnapshot.corrupt(fmt.Errorf("%d unread bytes after the pending results", len(r.buf)))
	}
	return b, nil
}

// broadcastRules reads the broadcast state, accepting only what Snapshot writes:
// rules in strictly ascending (Prefix, TS) order.
func (r *reader) broadcastRules() (ruleSet, error) {
	rs := make(ruleSet)
	var prev Rule
	for i := range r.count() {
		x := Rule{Prefix: r.string(), TS: r.varint(), Threshold: r.varint()}
		if r.err != nil {
			return nil, r.err
		}
		if i > 0 && cmp.Or(strings.Compare(prev.Prefix, x.Prefix), cmp.Compare(prev.TS, x.TS)) >= 0 {
			return nil, fmt.Errorf("rule %d is not after rule %d in (Prefix, TS) order", i, i-1)
		}
		rs[x.Prefix] = append(rs[x.Prefix], x)
		prev = x
	}
	return rs, r.err
}

// pendingResults reads the pending results, accepting only results that
// can be pending: fired (End ≤ the events' watermark), not decidable yet
// (End > the rules' watermark), with Start < End and at least one event.
func (r *reader) pendingResults(eventWM, ruleWM int64) ([]kit.Result, error) {
	var out []kit.Result
	for range r.count() {
		x := kit.Result{Key: r.key(), Start: r.varint(), End: r.varint()}
		count := r.uvarint()
		x.Sum = r.varint()
		flag := r.uvarint()
		if r.err != nil {
			return nil, r.err
		}
		x.Count, x.IsUpdate = int64(count), flag == 1
		switch {
		case count < 1 || count > math.MaxInt64 || flag > 1:
			return nil, fmt.Errorf("pending result %v: bad count or flag", x)
		case x.Start >= x.End || x.End > eventWM || x.End <= ruleWM:
			return nil, fmt.Errorf("pending result %v cannot be pending at events' watermark %d, rules' %d", x, eventWM, ruleWM)
		}
		out = append(out, x)
	}
	return out, r.err
}
