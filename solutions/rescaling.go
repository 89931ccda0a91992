package solutions

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/flk-byo/course/kit"
)

// Key groups are Flink's unit of keyed state. A key belongs to one of
// maxParallelism key groups forever (KeyGroup); each of the parallelism
// subtasks owns one contiguous range of key groups (KeyGroupRange), and a
// key group's subtask is TaskForKeyGroup. Changing the parallelism moves
// whole key groups between subtasks; a key never changes its key group.
//
// The three functions below compute in int. kg*p and (task+1)*maxP are
// below maxP², which fits a 64-bit int for any maxP under three billion
// (Flink caps maxParallelism at 32768 and computes in 32-bit int).

// KeyGroup returns the key group of key among maxParallelism key groups:
// kit.StableHash(key) % maxParallelism, in [0, maxParallelism). It depends
// on the key's value and maxParallelism only, so it is the same in every
// process and at every parallelism. It panics if maxParallelism < 1 or if
// kit.StableHash does not support the key's type.
func KeyGroup(key any, maxParallelism int) int {
	if maxParallelism < 1 {
		panic(fmt.Sprintf("rescaling: KeyGroup: maxParallelism must be at least 1, got %d", maxParallelism))
	}
	// Reduce in uint64 and convert last: int(hash) may be negative.
	return int(kit.StableHash(key) % uint64(maxParallelism))
}

// TaskForKeyGroup returns the subtask, in [0, parallelism), that owns key
// group keyGroup when maxParallelism key groups are spread over parallelism
// subtasks: keyGroup * parallelism / maxParallelism, Flink's
// computeOperatorIndexForKeyGroup. Consecutive key groups go to the same or
// the next subtask, so every subtask owns one contiguous range, the one
// KeyGroupRange returns. It panics unless 1 ≤ parallelism ≤ maxParallelism
// and 0 ≤ keyGroup < maxParallelism.
func TaskForKeyGroup(keyGroup, maxParallelism, parallelism int) int {
	mustBeParallelism("TaskForKeyGroup", maxParallelism, parallelism)
	if keyGroup < 0 || keyGroup >= maxParallelism {
		panic(fmt.Sprintf("rescaling: TaskForKeyGroup: key group %d is outside [0, %d): there are maxParallelism = %d key groups",
			keyGroup, maxParallelism, maxParallelism))
	}
	return keyGroup * parallelism / maxParallelism
}

// KeyGroupRange returns the key groups that subtask task owns when
// maxParallelism key groups are spread over parallelism subtasks: the
// inclusive range [first, last] with
//
//	first = ⌈task·maxP / p⌉       = (task·maxP + p − 1) / p
//	last  = ⌈(task+1)·maxP / p⌉ − 1 = ((task+1)·maxP − 1) / p
//
// (Flink's computeKeyGroupRangeForOperatorIndex). The ranges of tasks 0 …
// p−1 are contiguous, disjoint, never empty, and cover 0 … maxP−1; their
// sizes differ by at most one. It panics unless 1 ≤ parallelism ≤
// maxParallelism and 0 ≤ task < parallelism.
func KeyGroupRange(task, maxParallelism, parallelism int) (first, last int) {
	mustBeParallelism("KeyGroupRange", maxParallelism, parallelism)
	if task < 0 || task >= parallelism {
		panic(fmt.Sprintf("rescaling: KeyGroupRange: subtask %d is outside [0, %d): there are parallelism = %d subtasks",
			task, parallelism, parallelism))
	}
	// TaskForKeyGroup(kg) = ⌊kg·p / maxP⌋ is task exactly when
	// task·maxP ≤ kg·p < (task+1)·maxP, that is when
	// ⌈task·maxP / p⌉ ≤ kg ≤ ⌊((task+1)·maxP − 1) / p⌋. Integer division
	// floors, so a ceiling is written (a + p − 1) / p.
	first = (task*maxParallelism + parallelism - 1) / parallelism
	last = ((task+1)*maxParallelism - 1) / parallelism
	return first, last
}

// mustBeParallelism panics, naming fn, unless 1 ≤ parallelism ≤
// maxParallelism.
func mustBeParallelism(fn string, maxParallelism, parallelism int) {
	if err := checkParallelism(parallelism, maxParallelism); err != nil {
		panic(fmt.Sprintf("rescaling: %s: %v", fn, err))
	}
}

// checkParallelism returns an error unless 1 ≤ parallelism ≤ maxParallelism.
func checkParallelism(parallelism, maxParallelism int) error {
	switch {
	case maxParallelism < 1:
		return fmt.Errorf("maxParallelism must be at least 1, got %d", maxParallelism)
	case parallelism < 1:
		return fmt.Errorf("parallelism must be at least 1, got %d", parallelism)
	case parallelism > maxParallelism:
		return fmt.Errorf("parallelism %d is above maxParallelism %d: a subtask owns at least one key group, "+
			"and there are only %d", parallelism, maxParallelism, maxParallelism)
	}
	return nil
}

// ParallelConfig configures a ParallelProcessor.
type ParallelConfig struct {
	// Processor is the window configuration, the same for every key.
	Processor Config
	// Parallelism is the number of subtasks, 1 ≤ Parallelism ≤ MaxParallelism.
	Parallelism int
	// MaxParallelism is the number of key groups (at least 1). It is fixed
	// for the life of the job's state: a snapshot can be restored at another
	// Parallelism, never with another MaxParallelism.
	MaxParallelism int
}

// ParallelProcessor is a keyed window operator run as Parallelism subtasks:
// stage 01's windows, with every key's state on the subtask that owns the
// key's key group. It is one logical stream with one watermark, so its
// results are exactly those of one Processor over the same calls.
//
// The subtasks are not goroutines. Each call routes the event to its
// subtask, broadcasts the watermark to every subtask and merges what they
// emit, in the caller's goroutine: the point of this stage is where state
// lives and how it moves, and one goroutine keeps every call's results
// deterministic. Stage 02 showed the threads; Flink gives each subtask its
// own. A ParallelProcessor is not safe for concurrent use.
type ParallelProcessor struct {
	cfg ParallelConfig

	// watermark is the one watermark of the stream: the watermark one
	// Processor would have over the same calls. Every key-group processor
	// is kept at it.
	watermark int64

	subtasks []*keyedSubtask

	// late is the side output of all subtasks, in arrival order. Each
	// key-group processor has its own, but merging those would lose the
	// order between key groups.
	late []kit.Event
}

// keyedSubtask is one parallel instance of the operator: the state of the
// key groups in its range. Like Flink's keyed state backends, it keeps its
// state per key group, so that a key group can move to another subtask
// whole: here, one stage-01 Processor per key group. (Flink's heap
// backend keeps an array of per-key-group maps, indexed kg − first.)
type keyedSubtask struct {
	first, last int                // its key-group range, inclusive
	groups      map[int]*Processor // key group → its state, from the group's first event on
}

// NewParallelProcessor returns an empty ParallelProcessor for cfg, or an
// error if cfg.Processor is invalid (as NewProcessor judges it), if
// MaxParallelism < 1, or unless 1 ≤ Parallelism ≤ MaxParallelism.
func NewParallelProcessor(cfg ParallelConfig) (*ParallelProcessor, error) {
	if _, err := NewProcessor(cfg.Processor); err != nil {
		return nil, fmt.Errorf("rescaling: invalid Processor config: %w", err)
	}
	if err := checkParallelism(cfg.Parallelism, cfg.MaxParallelism); err != nil {
		return nil, fmt.Errorf("rescaling: %w", err)
	}
	pp := &ParallelProcessor{
		cfg:       cfg,
		watermark: math.MinInt64,
		subtasks:  make([]*keyedSubtask, cfg.Parallelism),
	}
	for i := range pp.subtasks {
		first, last := KeyGroupRange(i, cfg.MaxParallelism, cfg.Parallelism)
		pp.subtasks[i] = &keyedSubtask{first: first, last: last, groups: make(map[int]*Processor)}
	}
	return pp, nil
}

// Process routes e to the subtask that owns KeyGroup(e.Key) and returns the
// results it caused on every subtask, ordered by (End, Start, Key): exactly
// what one Processor would return. The event is counted (or deduplicated,
// or side-output) by its key group's state; if it raises the watermark,
// the new watermark is broadcast to every subtask, and windows of other
// keys fire too.
func (pp *ParallelProcessor) Process(e kit.Event) []kit.Result {
	g := pp.group(KeyGroup(e.Key, pp.cfg.MaxParallelism))

	// The key-group processor judges the event against the stream's
	// watermark (it is kept at it) and dedups by ID within the key group: a
	// redelivered record has the same key, so it reaches the same group. (An
	// ID reused with another key is outside the contract; here it counts in
	// its own key group.)
	out, late := g.processLate(e)
	if late {
		pp.late = append(pp.late, e)
	}

	// g raised its watermark to max(watermark, e.TS − delay) unless e was a
	// duplicate or late: that is the stream's new watermark. Broadcast it,
	// as Flink broadcasts a watermark to every downstream channel.
	if wm := g.Watermark(); wm > pp.watermark {
		out = pp.broadcast(wm, out)
	}
	return kit.SortResults(out)
}

// AdvanceWatermark raises the watermark of every subtask to wm and returns
// the results of the windows that fire, on any subtask, ordered by (End,
// Start, Key). A wm at or below the current watermark changes nothing.
func (pp *ParallelProcessor) AdvanceWatermark(wm int64) []kit.Result {
	if wm <= pp.watermark {
		return nil
	}
	return kit.SortResults(pp.broadcast(wm, nil))
}

// Watermark returns the stream's watermark, the same on every subtask:
// math.MinInt64 before any event, math.MaxInt64 after Flush.
func (pp *ParallelProcessor) Watermark() int64 {
	return pp.watermark
}

// Flush fires every window on every subtask, returns the results ordered by
// (End, Start, Key), and leaves the watermark at math.MaxInt64.
func (pp *ParallelProcessor) Flush() []kit.Result {
	return pp.AdvanceWatermark(math.MaxInt64)
}

// Late returns the side output of all subtasks, in arrival order, in a new
// slice the caller owns. A ParallelProcessor restored from a snapshot starts
// with an empty one.
func (pp *ParallelProcessor) Late() []kit.Event {
	return slices.Clone(pp.late)
}

// KeysOn returns, sorted and each once, in a new slice the caller owns, the
// keys that have window state on the given subtask: a key with an event in
// a window that has not expired. It panics unless 0 ≤ subtask <
// Parallelism.
func (pp *ParallelProcessor) KeysOn(subtask int) []string {
	if subtask < 0 || subtask >= len(pp.subtasks) {
		panic(fmt.Sprintf("rescaling: KeysOn: subtask %d is outside [0, %d)", subtask, len(pp.subtasks)))
	}
	var keys []string
	for _, g := range pp.subtasks[subtask].groups {
		keys = append(keys, g.keys()...)
	}
	slices.Sort(keys) // a key belongs to one key group: no duplicates across groups
	return keys
}

// keys returns the keys that have state in some window, sorted, each once
// (what KeysOn lists).
func (p *Processor) keys() []string {
	var keys []string
	for _, w := range p.windows {
		for _, t := range p.sortedTallies(w) {
			keys = append(keys, t.key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys) // a key with state in two windows is listed once
}

// processLate is Process, and also reports whether e went to p's side
// output: a ParallelProcessor keeps one side output for all its key
// groups, in arrival order.
func (p *Processor) processLate(e kit.Event) (out []kit.Result, late bool) {
	n := len(p.late)
	out = p.Process(e)
	return out, len(p.late) > n
}

// group returns the processor of key group kg, on the subtask that owns
// it, creating it at the stream's watermark on the group's first event.
func (pp *ParallelProcessor) group(kg int) *Processor {
	st := pp.subtasks[TaskForKeyGroup(kg, pp.cfg.MaxParallelism, pp.cfg.Parallelism)]
	g := st.groups[kg]
	if g == nil {
		// The config was validated by NewParallelProcessor.
		g, _ = NewProcessor(pp.cfg.Processor)
		// A new group joins the stream where it is: without this, its first
		// event would be judged against math.MinInt64 and never be late.
		g.AdvanceWatermark(pp.watermark)
		st.groups[kg] = g
	}
	return g
}

// broadcast raises the watermark of every key-group processor to wm
// (> pp.watermark) and appends what fires to out. The processor that raised
// the watermark already has it; its AdvanceWatermark is a no-op.
func (pp *ParallelProcessor) broadcast(wm int64, out []kit.Result) []kit.Result {
	pp.watermark = wm
	for _, st := range pp.subtasks {
		for _, g := range st.groups { // any order: the caller sorts
			out = append(out, g.AdvanceWatermark(wm)...)
		}
	}
	return out
}

// A parallel snapshot is a savepoint of all subtasks, written by key group,
// never by subtask: the parallelism it was taken at is not in it, so any
// parallelism can restore it. Format version 1, framed like a Processor
// snapshot (see checkpoint.go) under its own magic:
//
//	offset  size  field
//	0       4     magic "FLKP"
//	4       1     format version: 1
//	5       8     body length in bytes, uint64 big-endian
//	13      4     CRC-32C (Castagnoli) of the body, uint32 big-endian
//	17      …     body
//
// Body, with checkpoint.go's uvarint, varint and length-prefixed byte
// strings:
//
//	maxParallelism  uvarint
//	watermark       varint
//	config          varint WindowSize, varint WatermarkDelay, varint AllowedLateness
//	key groups      uvarint n, then n key groups in ascending order, each:
//	                  uvarint key group, then that key group's Processor
//	                  Snapshot() as a byte string
//
// A key group is in the snapshot once it has seen an event (its seen IDs
// are state even when its windows are gone). Its Processor snapshot holds
// the same config and watermark as the header, which restore checks.
//
// Flink writes one file per subtask, with an index of where each key group
// starts in it (KeyGroupRangeOffsets), so that a new subtask reads only its
// key groups from each old file. One blob in key-group order is the same
// idea without files.
const (
	parallelSnapshotMagic   = "FLKP"
	parallelSnapshotVersion = 1
)

// parallelSnapshot is a ParallelProcessor's kind of snapshot.
var parallelSnapshot = snapshotKind{magic: parallelSnapshotMagic, pkg: "rescaling", what: "parallel snapshot"}

// Snapshot returns the state of every subtask, split by key group, with
// maxParallelism, the watermark and the config: what
// RestoreParallelProcessor needs to restore it at any parallelism. The
// side output is not state. Equal state gives equal bytes, whatever the
// parallelism; the bytes are the caller's.
func (pp *ParallelProcessor) Snapshot() ([]byte, error) {
	buf := make([]byte, headerLen, 1024)
	buf = binary.AppendUvarint(buf, uint64(pp.cfg.MaxParallelism))
	buf = binary.AppendVarint(buf, pp.watermark)
	buf = binary.AppendVarint(buf, pp.cfg.Processor.WindowSize)
	buf = binary.AppendVarint(buf, pp.cfg.Processor.WatermarkDelay)
	buf = binary.AppendVarint(buf, pp.cfg.Processor.AllowedLateness)

	// Subtasks own ascending ranges: walking each range in order, subtask
	// after subtask, writes the key groups in ascending order, never in map
	// order, so equal state gives equal bytes at any parallelism.
	n := 0
	for _, st := range pp.subtasks {
		n += len(st.groups)
	}
	buf = binary.AppendUvarint(buf, uint64(n))
	for _, st := range pp.subtasks {
		for kg := st.first; kg <= st.last; kg++ {
			g := st.groups[kg]
			if g == nil {
				continue
			}
			snap, err := g.Snapshot()
			if err != nil {
				return nil, fmt.Errorf("rescaling: snapshot of key group %d: %w", kg, err)
			}
			buf = binary.AppendUvarint(buf, uint64(kg))
			buf = binary.AppendUvarint(buf, uint64(len(snap)))
			buf = append(buf, snap...)
		}
	}

	return parallelSnapshot.seal(buf), nil
}

// RestoreParallelProcessor returns a ParallelProcessor with the state of
// snapshot (from ParallelProcessor.Snapshot) redistributed over parallelism
// subtasks: each key group's state goes, whole, to the subtask whose
// KeyGroupRange holds it at the new parallelism. It continues exactly where
// the snapshotted processor was: same watermark, windows, seen IDs; an
// empty side output. It shares no memory with snapshot.
//
// It returns a nil processor and an error if parallelism < 1,
// maxParallelism < 1 or parallelism > maxParallelism; if maxParallelism is
// not the one the snapshot was taken with (the error names both); if the
// snapshot is not one, or is truncated or corrupt; or if its checksum holds
// but it holds what no processor writes (a key group outside
// 0…maxParallelism−1, a config NewParallelProcessor refuses). It never
// panics.
func RestoreParallelProcessor(snapshot []byte, parallelism, maxParallelism int) (*ParallelProcessor, error) {
	if err := checkParallelism(parallelism, maxParallelism); err != nil {
		return nil, fmt.Errorf("rescaling: cannot restore: %w", err)
	}
	body, err := parallelBody(snapshot)
	if err != nil {
		return nil, err
	}
	r := &reader{buf: body}
	snapMaxP := r.uvarint()
	watermark := r.varint()
	cfg := Config{WindowSize: r.varint(), WatermarkDelay: r.varint(), AllowedLateness: r.varint()}
	if r.err != nil {
		return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: %w", r.err)
	}

	// The check that makes key groups work. A key's key group is its hash
	// modulo maxParallelism; with another modulus most keys would belong to
	// another key group than the one their state was saved under, and every
	// range computed from the new value would find the wrong keys' state.
	if snapMaxP != uint64(maxParallelism) {
		return nil, fmt.Errorf("rescaling: the snapshot was taken with maxParallelism %d, not %d: a key's key group is "+
			"its hash modulo maxParallelism, so changing it would move keys to other key groups than the ones their "+
			"state was saved in; maxParallelism is fixed for the life of the job's state (restore with %d, "+
			"at any parallelism from 1 to %d)", snapMaxP, maxParallelism, snapMaxP, snapMaxP)
	}

	pp, err := NewParallelProcessor(ParallelConfig{Processor: cfg, Parallelism: parallelism, MaxParallelism: maxParallelism})
	if err != nil {
		return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: %w", err)
	}
	pp.watermark = watermark

	n := r.count()
	prev := -1
	for range n {
		kg, snap := r.uvarint(), r.string()
		if r.err != nil {
			break
		}
		if kg >= uint64(maxParallelism) || int(kg) <= prev {
			return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: key group %d out of order or range", kg)
		}
		prev = int(kg)
		g, err := RestoreProcessor([]byte(snap))
		if err != nil {
			return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: key group %d: %w", kg, err)
		}
		if g.cfg != cfg || g.watermark != watermark {
			return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: key group %d has another config or watermark", kg)
		}
		// Rescaling is this line: the key group goes, whole, to the subtask
		// that owns it at the new parallelism. No key is rehashed.
		pp.subtasks[TaskForKeyGroup(int(kg), maxParallelism, parallelism)].groups[int(kg)] = g
	}
	if r.err != nil {
		return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: %w", r.err)
	}
	if len(r.buf) > 0 {
		return nil, fmt.Errorf("rescaling: parallel snapshot corrupt: %d unread bytes after the last key group", len(r.buf))
	}
	return pp, nil
}

// parallelBody checks the magic, version, length and checksum of a
// parallel snapshot and returns its body.
func parallelBody(snapshot []byte) ([]byte, error) {
	v, err := parallelSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	if v != parallelSnapshotVersion {
		return nil, parallelSnapshot.unsupported(v)
	}
	return parallelSnapshot.verifiedBody(snapshot)
}
