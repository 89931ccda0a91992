package lab

import "github.com/flk-byo/course/kit"

// SessionConfig configures a SessionProcessor. Times are milliseconds of
// event time.
type SessionConfig struct {
	// Gap is the inactivity that ends a session: a session closes after Gap
	// of event time with no event of its key. It must be positive.
	Gap int64
	// AllowedLateness is how long a session keeps its state after it has
	// fired, to take late events (as in stage 03). It must not be negative.
	AllowedLateness int64
}

// SessionProcessor counts and sums events per key in event-time session
// windows. It is used from one goroutine.
//
// Sessions. Each event opens the window [ts, ts+Gap). Windows of the same
// key that intersect or touch merge into the interval that covers them
// ([10,20) and [20,30) touch: they merge into [10,30)), and so on until no
// two sessions of a key intersect or touch. A session is [first ts, last ts
// + Gap): its end is its last event plus the gap, not the last event.
//
// Watermark. The processor only follows the watermark that AdvanceWatermark
// hands it; events never raise it. A session fires when watermark ≥ its
// end, and expires (its state is dropped) when watermark ≥ end +
// AllowedLateness.
//
// Output is a changelog. A downstream that sums Count and Sum per (Key,
// Start, End) and drops the entries that reach zero always holds exactly
// the sessions as last fired. So when a session fires:
//
//   - if nothing it contains was emitted before, it emits its result, with
//     IsUpdate false;
//   - otherwise it first retracts, one by one in ascending Start order,
//     every result downstream holds for its events (the sessions it merged
//     with that had fired, or its own earlier result), each as
//     Result{Key, Start, End, Count: −count, Sum: −sum, IsUpdate: true},
//     and then emits its result with IsUpdate true.
//
// Retractions are emitted when the session that supersedes them fires,
// immediately before its result, never earlier: downstream keeps the old
// sessions until the new one replaces them.
//
// Every slice it returns (the results of Process, AdvanceWatermark and
// Flush, and Late) is the caller's: the processor never writes to it again
// and never reads it back, whatever the caller does with it.
type SessionProcessor struct {
	// TODO: your fields here
}

// NewSessionProcessor returns an empty SessionProcessor for cfg, or an error
// if cfg is invalid: Gap ≤ 0 or AllowedLateness < 0. Its watermark is
// math.MinInt64.
func NewSessionProcessor(cfg SessionConfig) (*SessionProcessor, error) {
	panic("TODO: validate cfg and return an empty SessionProcessor")
}

// Process takes one event and returns what it emits.
//
//   - An event whose ID was seen before (counted or late) is a no-op.
//   - Otherwise its window [ts, ts+Gap) is merged with every session of its
//     key that it intersects or touches. If that merged session is expired
//     (watermark ≥ its end + AllowedLateness), the event goes to Late and
//     changes nothing else. (Only an event that merges with no session can
//     be late: every session in state is unexpired.)
//   - Otherwise the merged session replaces the sessions it covers, with
//     their counts and sums plus the event's. If its end ≤ watermark it
//     fires at once (see SessionProcessor): its retractions, then its
//     result. Else Process returns nothing: the session fires later.
//
// Process never changes the watermark.
func (s *SessionProcessor) Process(e kit.Event) []kit.Result {
	panic("TODO: dedup, merge [ts, ts+Gap) with the key's sessions it intersects or touches, side-output if expired, fire at once if due")
}

// AdvanceWatermark raises the watermark to wm, fires every session with
// end ≤ wm that has not fired since it last changed, and drops every
// session with end + AllowedLateness ≤ wm (after firing it). A wm at or
// below the current watermark changes nothing and returns nothing.
//
// Order of the results of one call: the firing sessions in (End, Start,
// Key) order, each one's retractions (ascending Start) immediately before
// its result. Sessions that end together go by Start before Key: z's
// [5,20) comes before a's [10,20).
func (s *SessionProcessor) AdvanceWatermark(wm int64) []kit.Result {
	panic("TODO: raise the watermark, fire the sessions it reaches (retractions first), drop the expired ones")
}

// Watermark returns the current watermark: math.MinInt64 before the first
// AdvanceWatermark, math.MaxInt64 after Flush. It never decreases.
func (s *SessionProcessor) Watermark() int64 {
	panic("TODO: return the current watermark")
}

// Flush ends a bounded input: it fires every session that has not fired,
// as AdvanceWatermark(math.MaxInt64) would, and leaves the watermark at
// math.MaxInt64, so every later event goes to Late.
func (s *SessionProcessor) Flush() []kit.Result {
	panic("TODO: fire everything, as a watermark of math.MaxInt64 would")
}

// Late returns every event sent to the side output so far, in arrival
// order, in a slice the caller owns. Calling it does not clear the side
// output.
func (s *SessionProcessor) Late() []kit.Event {
	panic("TODO: return the side output, in arrival order")
}

// Snapshot returns all of s's state as bytes that RestoreSessionProcessor
// turns back into an equivalent SessionProcessor, with stage 04's rules:
//
//   - It begins with the 4 bytes "FLSW" (not stage 04's "FLKS": neither kind
//     of snapshot may restore as the other) and the format-version byte 1.
//   - A change to any byte, or a missing or extra byte, is detected.
//   - Equal state gives equal bytes; the bytes are the caller's: later
//     processing never changes them.
//
// The state: the config, the watermark, every seen ID, every unexpired
// session of every key with its count and sum, and what downstream holds
// for it (the results its next firing must retract). Not the side output.
// Keys and IDs are any bytes (empty, NUL, invalid UTF-8, 70 000 of them);
// counts and sums are any int64 (sums wrap as Go's int64 addition does).
func (s *SessionProcessor) Snapshot() ([]byte, error) {
	panic("TODO: encode \"FLSW\", version 1, a checksum and all session state, in a canonical order")
}

// RestoreSessionProcessor returns a SessionProcessor with the state saved
// by Snapshot, ready to continue exactly where the snapshotted one was,
// with an empty side output. It checks the magic "FLSW", then the version
// (an unknown one is an error whose message contains "version"), then
// integrity, and only then decodes. Any invalid input returns a nil
// SessionProcessor and an error, never a panic. The returned processor
// shares no memory with snapshot: the caller may reuse the bytes.
func RestoreSessionProcessor(snapshot []byte) (*SessionProcessor, error) {
	panic("TODO: check magic, version and checksum, then decode the state into a new SessionProcessor")
}
