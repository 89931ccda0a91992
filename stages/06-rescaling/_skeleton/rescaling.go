package lab

import "github.com/flk-byo/course/kit"

// KeyGroup returns the key group of key among maxParallelism key groups:
// kit.StableHash(key) % maxParallelism, computed in uint64 and converted
// last, so it is in [0, maxParallelism). A key's key group never depends on
// the parallelism.
//
// It panics with a message of its own (not a division by zero) if
// maxParallelism < 1.
func KeyGroup(key any, maxParallelism int) int {
	panic("TODO: check maxParallelism, then return kit.StableHash(key) % maxParallelism (in uint64)")
}

// TaskForKeyGroup returns the subtask, in [0, parallelism), that owns key
// group keyGroup: keyGroup * parallelism / maxParallelism. Consecutive key
// groups go to the same or the next subtask, so each subtask owns one
// contiguous range of key groups: the one KeyGroupRange returns.
//
// It panics with a message of its own unless 1 ≤ parallelism ≤
// maxParallelism and 0 ≤ keyGroup < maxParallelism.
func TaskForKeyGroup(keyGroup, maxParallelism, parallelism int) int {
	panic("TODO: check the arguments, then return keyGroup * parallelism / maxParallelism")
}

// KeyGroupRange returns the key groups [first, last] (both inclusive) that
// subtask task owns:
//
//	first = (task*maxParallelism + parallelism - 1) / parallelism
//	last  = ((task+1)*maxParallelism - 1) / parallelism
//
// so that TaskForKeyGroup(kg, maxParallelism, parallelism) == task exactly
// when first ≤ kg ≤ last. The ranges of subtasks 0 … parallelism−1 are
// contiguous, disjoint, never empty and cover 0 … maxParallelism−1: with
// maxParallelism 128 and parallelism 3 they are [0,42] [43,85] [86,127].
//
// It panics with a message of its own unless 1 ≤ parallelism ≤
// maxParallelism and 0 ≤ task < parallelism.
func KeyGroupRange(task, maxParallelism, parallelism int) (first, last int) {
	panic("TODO: check the arguments, then return the inclusive range [first, last] of task's key groups")
}

// ParallelConfig configures a ParallelProcessor.
type ParallelConfig struct {
	// Processor is the window configuration (stage 01), the same for every key.
	Processor Config
	// Parallelism is the number of subtasks, 1 ≤ Parallelism ≤ MaxParallelism.
	Parallelism int
	// MaxParallelism is the number of key groups (at least 1). It is fixed
	// for the life of the job's state: a snapshot can be restored at another
	// Parallelism, never with another MaxParallelism.
	MaxParallelism int
}

// ParallelProcessor is a keyed window operator run as Parallelism subtasks:
// every key's window state lives on the subtask that owns the key's key
// group, TaskForKeyGroup(KeyGroup(key, maxP), maxP, p). It is one logical
// stream with one watermark, broadcast to every subtask, so its results
// (per call, and Late) are exactly those of one stage-01 Processor over the
// same calls. Dedup by ID happens within a key's key group: a redelivered
// record has the same key, so it reaches the same key group, which remembers
// its IDs (counted or late) as long as it lives, windows or not. An ID
// reused with another key is outside the contract: count it or drop it, as
// your design does; no test sends one.
//
// Subtasks need not be goroutines (one goroutine keeps every call's results
// deterministic); if you use goroutines, keep them race-free and the
// results the same. A ParallelProcessor is used from one goroutine.
type ParallelProcessor struct {
	// TODO: your fields here
}

// NewParallelProcessor returns an empty ParallelProcessor, or an error if
// cfg.Processor is invalid (as NewProcessor judges it), if MaxParallelism < 1,
// or unless 1 ≤ Parallelism ≤ MaxParallelism. Its watermark is math.MinInt64.
func NewParallelProcessor(cfg ParallelConfig) (*ParallelProcessor, error) {
	panic("TODO: validate cfg and create Parallelism empty subtasks, each owning its KeyGroupRange")
}

// Process routes e to the subtask that owns KeyGroup(e.Key) and returns the
// results it caused, on every subtask, ordered by (End, Start, Key): what
// one Processor would return for the same call. If e raises the watermark
// (to e.TS − WatermarkDelay), every subtask gets the new watermark, so
// windows of keys on other subtasks fire in this call too. A duplicate ID
// of the same key is a no-op; an event whose window expired goes to Late.
func (pp *ParallelProcessor) Process(e kit.Event) []kit.Result {
	panic("TODO: route e to its key group's subtask, then broadcast any watermark raise to every subtask; merge and sort")
}

// AdvanceWatermark raises the watermark of every subtask to wm and returns
// the results of the windows that fire, on any subtask, ordered by (End,
// Start, Key). A wm at or below the current watermark changes nothing.
func (pp *ParallelProcessor) AdvanceWatermark(wm int64) []kit.Result {
	panic("TODO: broadcast wm to every subtask; merge and sort what fires")
}

// Watermark returns the stream's one watermark (the same on every
// subtask): the watermark a single Processor would have after the same
// calls. math.MinInt64 before anything happened, math.MaxInt64 after Flush.
func (pp *ParallelProcessor) Watermark() int64 {
	panic("TODO: return the stream's watermark")
}

// Flush fires every remaining window on every subtask, returns the results
// ordered by (End, Start, Key), and leaves the watermark at math.MaxInt64.
func (pp *ParallelProcessor) Flush() []kit.Result {
	panic("TODO: fire everything on every subtask, as a watermark of math.MaxInt64 would")
}

// Late returns the side output of all subtasks together, in arrival order
// (not subtask by subtask), in a new slice that the caller owns. Calling it
// does not clear it. A processor restored from a snapshot starts with an
// empty side output.
func (pp *ParallelProcessor) Late() []kit.Event {
	panic("TODO: return the side output of all subtasks, in arrival order")
}

// KeysOn returns the keys that have window state on the given subtask (an
// event in a window that has not expired), sorted, each once, in a new
// slice that the caller owns; none after Flush. It panics with a message of
// its own unless 0 ≤ subtask < Parallelism.
func (pp *ParallelProcessor) KeysOn(subtask int) []string {
	panic("TODO: list, sorted and without repeats, the keys with window state on this subtask")
}

// Snapshot returns the state of every subtask, split by key group, plus
// MaxParallelism, the watermark and the window config: everything
// RestoreParallelProcessor needs to continue at any parallelism. (Stage 04's
// Processor.Snapshot per key group is a fine building block.)
//
// The layout is yours, with stage 04's rules: the bytes are checked on
// restore (any changed, missing or extra byte is an error), equal state
// gives equal bytes (write the key groups in a fixed order, never in map
// order: restored at the same parallelism, a processor snapshots to the
// bytes it was restored from), they are the caller's (later processing
// never changes them), and they hold the state exactly (every key and ID
// byte for byte, every int64 as itself). Every key group that has seen an
// event is in it, even one whose windows are all gone: its seen IDs are
// state. The side output is not state. Snapshot does not change pp.
func (pp *ParallelProcessor) Snapshot() ([]byte, error) {
	panic("TODO: encode maxParallelism, the watermark, the config and each key group's state, framed and checksummed")
}

// RestoreParallelProcessor returns a ParallelProcessor with the state of
// snapshot redistributed over parallelism subtasks: each key group's state
// goes, whole, to the subtask whose KeyGroupRange holds it at the new
// parallelism. It continues exactly where the snapshotted processor was:
// feeding it the rest of the calls gives the results a single Processor
// gives for them. Its Late() starts empty. It shares no memory with
// snapshot: the caller may reuse its buffer at once.
//
// It returns a nil processor and an error, never a panic:
//   - if parallelism < 1, maxParallelism < 1 or parallelism > maxParallelism;
//   - if maxParallelism differs from the one the snapshot was taken with:
//     keys would land in other key groups than their state. The message
//     names both values and says that maxParallelism is fixed;
//   - if snapshot is not a parallel snapshot, or is truncated or corrupt;
//   - if its checksum holds but it holds what no processor writes: a key
//     group outside 0…maxParallelism−1, or a window config
//     NewParallelProcessor refuses.
func RestoreParallelProcessor(snapshot []byte, parallelism, maxParallelism int) (*ParallelProcessor, error) {
	panic("TODO: check the arguments and the bytes, refuse another maxParallelism, then place each key group on its new subtask")
}
