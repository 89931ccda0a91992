package solutions

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/flk-byo/course/kit"
)

// This file is stage 12's processor: the tumbling windows of stages 01 and
// 03, with every piece of state (the seen IDs, each window's tallies, the
// windows' timers and the watermark) kept behind a StateBackend rather
// than in Go maps and slices. The processor holds no state of its own: a
// new BackendProcessor over the same backend carries on where the last one
// stopped, which is how a restore works.
//
// The backend is an ordered map of byte keys, like RocksDB under Flink's
// EmbeddedRocksDBStateBackend, and the processor lays its state out in it
// by key group, as Flink does:
//
//	key                                   value
//	kg(ID)  's' ID                        (empty)             a seen ID
//	kg(key) 'w' end key                   uvarint count, varint sum
//	0xFF 0xFF 't' end                     (empty)             a window's timer
//	0xFF 0xFF 'm'                         varint size, delay, lateness, watermark
//
// kg(x) is KeyGroup(x, BackendMaxParallelism) as two bytes big-endian, and
// end is the window's end as eight bytes in which byte order is numeric
// order (the sign bit flipped). So every key group's state is one
// contiguous range of keys, the range a rescale would hand to another
// subtask, and within it a window's keys are one contiguous run. What has
// no key (the timers, the watermark) sorts after every key group, under
// 0xFF 0xFF, which no key group starts with.

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
	// must not exist yet: what the backend's Restore function turns back
	// into a backend holding exactly this state, in this process or
	// another, however the backend changes after Checkpoint returns. If
	// Checkpoint fails, or the process dies before it returns, dir may
	// hold part of a copy: name a checkpoint only once it has returned.
	Checkpoint(dir string) error
	// Close releases what the backend holds open. The backend is not used
	// after it.
	Close() error
}

// State key prefixes: the kind of state after a key group, and the prefix
// of the state that belongs to no key group.
const (
	seenKind   = 's'
	windowKind = 'w'
	timerKind  = 't'
	metaKind   = 'm'
)

// unkeyed begins the keys of the state that has no key: after every key
// group, since a key group's two bytes are below 0xFF 0xFF.
var unkeyed = []byte{0xFF, 0xFF}

// BackendProcessor is stage 01's Processor (with stage 03's allowed
// lateness) whose state lives in a StateBackend: the same results, side
// output, dedup and order, on the heap or on disk. It is not safe for
// concurrent use; every slice it returns is the caller's.
//
// A backend that fails stops the processor: the call that met the error
// and every later one return no results, and Err and Checkpoint report the
// error. Its state is then whatever the backend holds.
type BackendProcessor struct {
	cfg     Config
	backend StateBackend

	// watermark is the stored watermark, cached: every change is written
	// through to the backend at once, so the backend stays the whole truth.
	watermark int64

	// late is the side output. It is output, not state, as in stage 01:
	// it is in no checkpoint.
	late []kit.Event

	// err is the first error the backend returned.
	err error
}

// NewBackendProcessor returns a processor for cfg whose state lives in
// backend. On an empty backend it starts empty (watermark math.MinInt64);
// on a backend that holds a processor's state (the same backend, or one
// restored from its checkpoint) it carries on from that state, with an
// empty Late(). It returns an error for an invalid cfg (as NewProcessor
// does), for a backend holding the state of another config, or if the
// backend fails.
func NewBackendProcessor(cfg Config, backend StateBackend) (*BackendProcessor, error) {
	if _, err := NewProcessor(cfg); err != nil { // one place says what a valid Config is
		return nil, err
	}
	if backend == nil {
		return nil, errors.New("backend: NewBackendProcessor: the backend is nil")
	}
	p := &BackendProcessor{cfg: cfg, backend: backend, watermark: math.MinInt64}
	meta, ok, err := backend.Get(metaKey())
	switch {
	case err != nil:
		return nil, fmt.Errorf("backend: reading the processor's state: %w", err)
	case !ok:
		if err := p.storeWatermark(); err != nil {
			return nil, err
		}
		return p, nil
	}
	stored, wm, err := decodeMeta(meta)
	if err != nil {
		return nil, fmt.Errorf("backend: the backend's processor state is corrupt: %w", err)
	}
	if stored != cfg {
		return nil, fmt.Errorf("backend: the backend holds the state of a processor with config %+v, not %+v", stored, cfg)
	}
	p.watermark = wm
	return p, nil
}

// Process adds e to its window and returns the results this event caused,
// exactly as Processor.Process does: a seen ID is a no-op, an event whose
// window has expired goes to Late, one for a fired window within the
// allowed lateness returns its key's corrected result, and otherwise the
// event may raise the watermark and fire windows, in (End, Start, Key)
// order.
func (p *BackendProcessor) Process(e kit.Event) []kit.Result {
	if p.err != nil {
		return nil
	}
	out, err := p.process(e)
	return p.check(out, err)
}

// process is Process, with the backend's error.
func (p *BackendProcessor) process(e kit.Event) ([]kit.Result, error) {
	// 1. Dedup first, as in stage 01: the seen ID is state like any other.
	seen := seenKey(e.ID)
	if _, ok, err := p.backend.Get(seen); err != nil || ok {
		return nil, err
	}
	if err := p.backend.Set(seen, nil); err != nil {
		return nil, err
	}

	// 2. Lateness against the watermark the event arrived to.
	start, end := AssignWindow(e.TS, p.cfg.WindowSize)
	if p.watermark >= p.cleanupTime(end) {
		p.late = append(p.late, e)
		return nil, nil
	}

	// 3. Read, update and write back the key's tally. A key new to the
	// window (re)sets the window's timer, so that the watermark finds it.
	key := tallyKey(e.Key, end)
	var count, sum int64
	v, ok, err := p.backend.Get(key)
	if err != nil {
		return nil, err
	}
	if ok {
		if count, sum, err = decodeTally(v); err != nil {
			return nil, fmt.Errorf("backend: the tally of %s in [%d,%d) is corrupt: %w", kit.ShowString(e.Key), start, end, err)
		}
	} else if err := p.backend.Set(timerKey(end), nil); err != nil {
		return nil, err
	}
	count++
	sum += e.Value
	if err := p.backend.Set(key, encodeTally(count, sum)); err != nil {
		return nil, err
	}

	// 4. A fired, unexpired window corrects at once (stage 03); otherwise
	// the event may raise the watermark.
	if end <= p.watermark {
		r := kit.Result{Key: e.Key, Start: start, End: end, Count: count, Sum: sum, IsUpdate: count > 1}
		return []kit.Result{r}, nil
	}
	return p.advanceTo(minusSaturating(e.TS, p.cfg.WatermarkDelay))
}

// AdvanceWatermark raises the watermark to wm, as Processor.AdvanceWatermark
// does, and returns the results of the windows that fire.
func (p *BackendProcessor) AdvanceWatermark(wm int64) []kit.Result {
	if p.err != nil {
		return nil
	}
	return p.check(p.advanceTo(wm))
}

// Watermark returns the current watermark.
func (p *BackendProcessor) Watermark() int64 {
	return p.watermark
}

// Flush fires every window that has not fired, as Processor.Flush does,
// leaving the watermark at math.MaxInt64.
func (p *BackendProcessor) Flush() []kit.Result {
	return p.AdvanceWatermark(math.MaxInt64)
}

// Late returns a copy of the side output, in arrival order.
func (p *BackendProcessor) Late() []kit.Event {
	return slices.Clone(p.late)
}

// Err returns the first error the backend returned, or nil.
func (p *BackendProcessor) Err() error {
	return p.err
}

// Checkpoint writes all of the processor's state to dir through the
// backend's Checkpoint: restore the backend from dir and hand it to
// NewBackendProcessor with the same config to carry on from here. The side
// output is not included.
func (p *BackendProcessor) Checkpoint(dir string) error {
	if p.err != nil {
		return p.err
	}
	if err := p.backend.Checkpoint(dir); err != nil {
		return fmt.Errorf("backend: checkpoint to %s: %w", dir, err)
	}
	return nil
}

// check records the first backend error and returns out, or nothing once
// the backend has failed: a half-done call's results are not to be trusted.
func (p *BackendProcessor) check(out []kit.Result, err error) []kit.Result {
	if err != nil {
		p.err = err
		return nil
	}
	return out
}

// advanceTo raises the watermark to wm if that is higher, returns the
// results of every window that fires, in (End, Start, Key) order, and
// deletes the state of every window that expires.
func (p *BackendProcessor) advanceTo(wm int64) ([]kit.Result, error) {
	if wm <= p.watermark {
		return nil, nil
	}
	old := p.watermark
	p.watermark = wm
	if err := p.storeWatermark(); err != nil {
		return nil, err
	}

	// The timers are in end order, so the windows that fire now (old <
	// end ≤ wm) and those that expire (cleanup time ≤ wm) are runs of them.
	ends, err := p.timers(old+1, wm)
	if err != nil {
		return nil, err
	}
	var out []kit.Result
	for _, end := range ends {
		if out, err = p.appendResults(out, end); err != nil {
			return nil, err
		}
	}
	expired, err := p.timers(math.MinInt64, p.expiredUpTo(wm))
	if err != nil {
		return nil, err
	}
	for _, end := range expired {
		if err := p.dropWindow(end); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// expiredUpTo returns the largest end of a window that has expired at
// watermark wm: end + AllowedLateness ≤ wm.
func (p *BackendProcessor) expiredUpTo(wm int64) int64 {
	if wm == math.MaxInt64 {
		return math.MaxInt64 // cleanupTime saturates: every window expires
	}
	// Below math.MaxInt64, end + AllowedLateness ≤ wm cannot have
	// saturated, so it is end ≤ wm − AllowedLateness; if that underflows,
	// no window has expired (every end is above math.MinInt64).
	return minusSaturating(wm, p.cfg.AllowedLateness)
}

// timers returns the ends of the windows with a timer and lo ≤ end ≤ hi,
// ascending.
func (p *BackendProcessor) timers(lo, hi int64) ([]int64, error) {
	if lo > hi {
		return nil, nil
	}
	var ends []int64
	err := p.backend.Scan(timerKey(lo), timersEnd(), func(k, _ []byte) error {
		end := decodeEnd(k[len(unkeyed)+1:])
		if end > hi {
			return errStop
		}
		ends = append(ends, end)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return ends, err
}

// errStop ends a Scan early; it never leaves this file.
var errStop = errors.New("stop scanning")

// appendResults appends the result of every key of the window ending at
// end to out, in key order. The window's tallies are spread over the key
// groups, a run in each, so they are read group by group and then sorted.
func (p *BackendProcessor) appendResults(out []kit.Result, end int64) ([]kit.Result, error) {
	start := end - p.cfg.WindowSize
	first := len(out)
	err := p.scanWindow(end, func(k, v []byte) error {
		count, sum, err := decodeTally(v)
		if err != nil {
			return fmt.Errorf("backend: a tally in [%d,%d) is corrupt: %w", start, end, err)
		}
		key := string(k[tallyHeaderLen:]) // a copy: k is the backend's
		out = append(out, kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum})
		return nil
	})
	slices.SortFunc(out[first:], kit.CompareResults) // one window: by key
	return out, err
}

// dropWindow deletes every tally of the window ending at end, and its
// timer. The keys are collected first: a Scan's callback must not change
// the backend.
func (p *BackendProcessor) dropWindow(end int64) error {
	var keys [][]byte
	err := p.scanWindow(end, func(k, _ []byte) error {
		keys = append(keys, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	keys = append(keys, timerKey(end))
	for _, k := range keys {
		if err := p.backend.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// scanWindow calls fn for every tally of the window ending at end: one
// contiguous run of keys in each key group.
func (p *BackendProcessor) scanWindow(end int64, fn func(k, v []byte) error) error {
	for kg := range BackendMaxParallelism {
		prefix := windowPrefix(kg, end)
		if err := p.backend.Scan(prefix, prefixEnd(prefix), fn); err != nil {
			return err
		}
	}
	return nil
}

// storeWatermark writes the config and the watermark to the backend.
func (p *BackendProcessor) storeWatermark() error {
	return p.backend.Set(metaKey(), encodeMeta(p.cfg, p.watermark))
}

// cleanupTime is Processor.cleanupTime: end + AllowedLateness, saturating.
func (p *BackendProcessor) cleanupTime(end int64) int64 {
	if end > math.MaxInt64-p.cfg.AllowedLateness {
		return math.MaxInt64
	}
	return end + p.cfg.AllowedLateness
}

// tallyHeaderLen is the length of a tally key before the window key: key
// group, kind and end.
const tallyHeaderLen = 2 + 1 + 8

// keyGroupPrefix returns the two bytes that begin every state key of key
// group kg.
func keyGroupPrefix(kg int) []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(kg))
}

// seenKey returns the key of a seen ID: the ID's key group, 's', the ID.
func seenKey(id string) []byte {
	k := append(keyGroupPrefix(KeyGroup(id, BackendMaxParallelism)), seenKind)
	return append(k, id...)
}

// windowPrefix returns the prefix of every tally of the window ending at
// end in key group kg.
func windowPrefix(kg int, end int64) []byte {
	return appendEnd(append(keyGroupPrefix(kg), windowKind), end)
}

// tallyKey returns the key of key's tally in the window ending at end.
func tallyKey(key string, end int64) []byte {
	return append(windowPrefix(KeyGroup(key, BackendMaxParallelism), end), key...)
}

// timerKey returns the key of the timer of the window ending at end.
func timerKey(end int64) []byte {
	return appendEnd(append(bytes.Clone(unkeyed), timerKind), end)
}

// timersEnd returns the key just after every timer.
func timersEnd() []byte {
	return append(bytes.Clone(unkeyed), timerKind+1)
}

// metaKey returns the key of the config and the watermark.
func metaKey() []byte {
	return append(bytes.Clone(unkeyed), metaKind)
}

// appendEnd appends end as eight bytes whose byte order is numeric order:
// big-endian with the sign bit flipped, so that negative ends sort first.
func appendEnd(b []byte, end int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(end)^(1<<63))
}

// decodeEnd reads what appendEnd wrote.
func decodeEnd(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
}

// prefixEnd returns the first key after every key that starts with
// prefix: the prefix with its last byte below 0xFF incremented, and what
// follows that byte cut off.
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil // every byte is 0xFF: no upper bound
}

// encodeTally encodes a key's count and sum in a window.
func encodeTally(count, sum int64) []byte {
	return binary.AppendVarint(binary.AppendUvarint(nil, uint64(count)), sum)
}

// decodeTally reads what encodeTally wrote.
func decodeTally(v []byte) (count, sum int64, err error) {
	c, n := binary.Uvarint(v)
	if n <= 0 || c == 0 || c > math.MaxInt64 {
		return 0, 0, errors.New("bad count")
	}
	s, m := binary.Varint(v[n:])
	if m <= 0 || n+m != len(v) {
		return 0, 0, errors.New("bad sum")
	}
	return int64(c), s, nil
}

// encodeMeta encodes the config and the watermark.
func encodeMeta(cfg Config, wm int64) []byte {
	b := binary.AppendVarint(nil, cfg.WindowSize)
	b = binary.AppendVarint(b, cfg.WatermarkDelay)
	b = binary.AppendVarint(b, cfg.AllowedLateness)
	return binary.AppendVarint(b, wm)
}

// decodeMeta reads what encodeMeta wrote.
func decodeMeta(v []byte) (cfg Config, wm int64, err error) {
	fields := []*int64{&cfg.WindowSize, &cfg.WatermarkDelay, &cfg.AllowedLateness, &wm}
	for _, f := range fields {
		x, n := binary.Varint(v)
		if n <= 0 {
			return Config{}, 0, errors.New("truncated")
		}
		*f, v = x, v[n:]
	}
	if len(v) != 0 {
		return Config{}, 0, errors.New("trailing bytes")
	}
	return cfg, wm, nil
}
