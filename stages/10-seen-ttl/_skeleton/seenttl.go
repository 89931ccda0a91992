package lab

// NewSeenTTLProcessor returns a Processor like NewProcessor's whose seen
// IDs are forgotten behind the watermark, so that its dedup state stays
// bounded on an unbounded stream.
//
//   - An event whose ID is new (counted or late) has its ID remembered until
//     the watermark reaches e.TS + seenTTL, saturating at math.MaxInt64:
//     remembered while watermark < e.TS + seenTTL, forgotten in the call
//     (Process, AdvanceWatermark or Flush) that raises the watermark to it
//     or past it. An ID whose time has come when it arrives is not
//     remembered at all.
//   - While an ID is remembered, a redelivery is a no-op, as in stage 1, and
//     changes nothing, not when the ID is forgotten either. Once it is
//     forgotten, a redelivery is an event like any other: late if its
//     window has expired, counted again if not.
//   - seenTTL 0 remembers every ID forever: exactly NewProcessor(cfg),
//     snapshot included. A negative seenTTL, or a config NewProcessor
//     rejects, is an error (and a nil Processor).
//
// Snapshot and RestoreProcessor keep working: a snapshot of a processor
// with a seen TTL holds the TTL and when each remembered ID is forgotten,
// and the processor restored from it forgets each at the same watermark.
// Stage 4's rules hold for it (integrity, equal state gives equal bytes, a
// copy both ways).
func NewSeenTTLProcessor(cfg Config, seenTTL int64) (*Processor, error) {
	panic("TODO: reject a negative seenTTL, build a Processor with NewProcessor and give it the TTL")
}

// RememberedIDs returns the number of event IDs p remembers now: the IDs a
// redelivery of which would be a no-op. For a processor from NewProcessor
// (or seenTTL 0) that is every distinct ID it has seen, counted or late.
func (p *Processor) RememberedIDs() int {
	panic("TODO: return how many IDs your seen set holds now")
}
