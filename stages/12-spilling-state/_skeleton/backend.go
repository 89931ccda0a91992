package lab

import "github.com/flk-byo/course/kit"

// BackendMaxParallelism is the number of key groups a BackendProcessor
// spreads its keyed state over: Flink's default maxParallelism.
const BackendMaxParallelism = 128

// StateBackend is where a BackendProcessor keeps all of its state: an
// ordered map from byte keys to byte values. HeapBackend keeps it in
// memory, PebbleBackend on disk.
//
// Keys and values may be any bytes, the empty value too. A backend keeps
// copies: the caller may reuse the slices it passed once the call returns.
// What Get returns is the caller's; the slices Scan hands its callback are
// the backend's until the callback returns (copy what you keep). A backend
// is used from one goroutine.
type StateBackend interface {
	// Get returns the value stored under key, and whether there is one.
	Get(key []byte) (value []byte, ok bool, err error)
	// Set stores value under key, replacing what was there.
	Set(key, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(key []byte) error
	// Scan calls fn for every entry with start ≤ key < end, in ascending
	// byte order of key; an empty end (nil or of length 0) means no upper
	// bound, since no key is below the empty one. It stops at the
	// first error fn returns and returns it. fn must not change the
	// backend.
	Scan(start, end []byte, fn func(key, value []byte) error) error
	// Checkpoint writes a consistent copy of all the state to dir, which
	// must not exist yet (an error if it does): what the backend's Restore
	// function turns back into a backend holding exactly this state, in
	// this process or another, however the backend changes after
	// Checkpoint returns. If the process dies before it returns, dir may
	// hold part of a copy: name a checkpoint only once it has returned.
	Checkpoint(dir string) error
	// Close releases what the backend holds open.
	Close() error
}

// HeapBackend is a StateBackend in memory (Flink's HashMapStateBackend).
type HeapBackend struct {
	// TODO: your fields here
}

// NewHeapBackend returns an empty HeapBackend.
func NewHeapBackend() *HeapBackend {
	panic("TODO: return an empty ordered map of byte keys")
}

// RestoreHeapBackend returns a HeapBackend holding the state that
// Checkpoint wrote to dir, or an error (never a panic) if dir holds no
// such checkpoint. The backend shares nothing with dir.
func RestoreHeapBackend(dir string) (*HeapBackend, error) {
	panic("TODO: read back what Checkpoint wrote")
}

func (h *HeapBackend) Get(key []byte) ([]byte, bool, error) {
	panic("TODO: look key up")
}

func (h *HeapBackend) Set(key, value []byte) error {
	panic("TODO: store copies of key and value")
}

func (h *HeapBackend) Delete(key []byte) error {
	panic("TODO: remove key")
}

func (h *HeapBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	panic("TODO: visit start ≤ key < end in byte order")
}

func (h *HeapBackend) Checkpoint(dir string) error {
	panic("TODO: write every entry to a file in the new directory dir")
}

func (h *HeapBackend) Close() error {
	panic("TODO: nothing to release, probably")
}

// BackendProcessor is your stage 1 Processor (with stage 3's allowed
// lateness) whose state lives in a StateBackend: the same results, side
// output, dedup and (End, Start, Key) order, on the heap or on disk. All
// of its state is in the backend (seen IDs, window tallies, which windows
// are open, the watermark), none in its own fields, so that a new
// processor over the same backend carries on where this one stopped.
//
// Every key it stores begins with a key group as two bytes big-endian:
// KeyGroup(event key, BackendMaxParallelism) for a window's tally,
// KeyGroup(ID, BackendMaxParallelism) for a seen ID. State with no key
// (the watermark, the open windows) goes under keys beginning 0xFF 0xFF.
//
// When the backend returns an error the processor stops: that call and
// every later one return no results, and Err and Checkpoint report an
// error that errors.Is matches with the backend's. It is used from one
// goroutine, and every slice it returns is the caller's.
type BackendProcessor struct {
	// TODO: your fields here (the config, the backend, the side output)
}

// NewBackendProcessor returns a processor for cfg whose state lives in
// backend. It returns an error for what NewProcessor rejects, for a nil
// backend, for a backend holding the state of another config, or if the
// backend fails. On an empty backend it starts empty (watermark
// math.MinInt64); on a backend that holds a processor's state (the same
// backend, or one restored from its checkpoint) it carries on from that
// state, with an empty Late().
func NewBackendProcessor(cfg Config, backend StateBackend) (*BackendProcessor, error) {
	panic("TODO: validate, then read the stored config and watermark, or store them")
}

// Process is Processor.Process, with every read and write of state going
// through the backend.
func (p *BackendProcessor) Process(e kit.Event) []kit.Result {
	panic("TODO: dedup, lateness, tally, correction or watermark, as in stage 1 and 3")
}

// AdvanceWatermark is Processor.AdvanceWatermark.
func (p *BackendProcessor) AdvanceWatermark(wm int64) []kit.Result {
	panic("TODO: store the watermark, fire and expire windows in end order")
}

// Watermark is Processor.Watermark.
func (p *BackendProcessor) Watermark() int64 {
	panic("TODO: return the watermark")
}

// Flush is Processor.Flush.
func (p *BackendProcessor) Flush() []kit.Result {
	panic("TODO: advance to math.MaxInt64")
}

// Late is Processor.Late: the side output, which is output, not state, and
// is in no checkpoint.
func (p *BackendProcessor) Late() []kit.Event {
	panic("TODO: return a copy of the side output")
}

// Err returns the first error the backend returned, or nil.
func (p *BackendProcessor) Err() error {
	panic("TODO: return the first backend error")
}

// Checkpoint writes all of the processor's state to the new directory dir
// through the backend's Checkpoint; after a backend error it returns an
// error instead.
func (p *BackendProcessor) Checkpoint(dir string) error {
	panic("TODO: the backend's checkpoint")
}
