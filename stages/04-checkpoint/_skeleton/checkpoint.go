package lab

// Snapshot returns all of p's state as bytes that RestoreProcessor turns
// back into an equivalent Processor: a savepoint a user can keep, copy to
// another machine and restore with a later build.
//
// What the snapshot holds (all of it is state):
//   - the Config;
//   - the watermark, and anything your watermark is derived from;
//   - every unexpired window: its per-key counts and sums, and whether it
//     has fired (fired-but-not-expired windows too: they still get updates);
//   - every event ID seen so far, counted or late.
//
// It holds them exactly: every key and ID byte for byte (empty, 70 000
// bytes long, with NUL bytes or invalid UTF-8, a prefix of another), every
// count, sum, config field and the watermark as the same int64, at the
// edges of the range and beyond 2⁵³ too.
//
// What it does not hold: the side output. Late events were output when
// they happened, like Flink's side outputs; a restored Processor's Late()
// starts empty.
//
// The format is yours, within these rules:
//   - It begins with the 4 bytes "FLKS" and then one format-version byte, 1.
//   - It is checked by RestoreProcessor: a change to any byte (or a missing
//     or extra byte) must be detected.
//   - Equal state gives equal bytes: never write a map in iteration order.
//   - The bytes are the caller's: later processing never changes them.
//
// Snapshot does not change p. The error is for encodings that can fail.
func (p *Processor) Snapshot() ([]byte, error) {
	panic("TODO: encode \"FLKS\", version 1, a checksum and every piece of state, maps in sorted order, into a fresh []byte")
}

// RestoreProcessor returns a Processor with the state saved by Snapshot,
// ready to continue exactly where the snapshotted processor was: feeding
// it the rest of the input gives the results that the uninterrupted
// processor would have given (same watermark, no window fired twice, every
// seen ID still a no-op), in this process or in another.
//
// It checks, in this order:
//  1. the magic "FLKS" (anything else is not a snapshot);
//  2. the version byte: an unknown version is an error whose message
//     contains "version";
//  3. integrity: truncated, extended or corrupted bytes are an error;
//
// and only then decodes. Any invalid input (nil, empty, garbage, any
// prefix of a snapshot, any changed byte) returns a nil Processor and an
// error: never a panic, never a Processor with different state. So does a
// snapshot whose checksum holds but which holds what no processor writes:
// a window that does not start at a multiple of WindowSize or is not
// WindowSize long, or one its watermark has expired (watermark ≥ end +
// AllowedLateness). The returned Processor shares no memory with snapshot.
func RestoreProcessor(snapshot []byte) (*Processor, error) {
	panic("TODO: check magic, then version, then checksum; then decode the state into a new Processor")
}
