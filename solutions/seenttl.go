package solutions

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/flk-byo/course/kit"
)

// This file is stage 10: seen IDs that are forgotten behind the watermark.
// A Processor's dedup state holds every ID it has ever seen, so it grows
// with the input, forever. With a seen TTL, an event's ID is remembered
// until the watermark reaches the event's timestamp + TTL, and then
// forgotten. The code that must live in stage 01's and stage 04's files
// (windows.go, seen.go, checkpoint.go) is marked there as stage 10 regions.
//
// Where the line is. A window [start, end) expires when the watermark
// reaches end + AllowedLateness, and from then on every event of it goes to
// the side output. An ID forgotten at watermark ts + TTL, with
// TTL ≥ WindowSize + AllowedLateness, is forgotten at or after
// start + WindowSize + AllowedLateness = end + AllowedLateness (ts ≥ start):
// its window has expired, so a redelivery is late anyway and changes no
// result. One less, and an event at its window's start is forgotten at
// end + AllowedLateness − 1, while a redelivery still counts.

// NewSeenTTLProcessor returns a Processor like NewProcessor's whose seen IDs
// are forgotten behind the watermark: an event's ID is remembered until the
// watermark reaches e.TS + seenTTL (saturating at math.MaxInt64), and a
// redelivery after that is an event like any other. seenTTL 0 remembers
// every ID forever: that is NewProcessor(cfg), the same processor and the
// same snapshot. A negative seenTTL, or a config NewProcessor rejects, is an
// error.
func NewSeenTTLProcessor(cfg Config, seenTTL int64) (*Processor, error) {
	if seenTTL < 0 {
		return nil, fmt.Errorf("seen TTL: seenTTL must not be negative, got %d", seenTTL)
	}
	p, err := NewProcessor(cfg)
	if err != nil {
		return nil, err
	}
	p.seenTTL = seenTTL
	return p, nil
}

// RememberedIDs returns the number of event IDs p remembers now: those a
// redelivery of which would be a no-op. Without a seen TTL that is every ID
// p has seen; with one, the IDs whose forgetting watermark is still ahead.
func (p *Processor) RememberedIDs() int {
	return p.seen.len()
}

// forgetLater schedules the ID of e, which p.seen has just added, to be
// forgotten when the watermark reaches e.TS + seenTTL. The time comes from
// the event, not from when it arrived: a redelivery carries the same
// timestamp, so every delivery order forgets an ID at the same watermark.
// An ID whose time has already come (a late event's, often) is forgotten
// at once. Without a seen TTL this does nothing.
func (p *Processor) forgetLater(e kit.Event) {
	if p.seenTTL == 0 {
		return
	}
	expiry := plusSaturating(e.TS, p.seenTTL)
	if p.watermark >= expiry {
		p.seen.remove(e.ID)
		return
	}
	p.expiries.push(expiry, e.ID)
}

// forgetExpired forgets every ID whose time has come at the current
// watermark: the same test as a window's expiry, watermark ≥ expiry. The
// heap gives them soonest first, so this costs one pop (O(log n)) per ID
// forgotten, not a scan of all the IDs remembered.
func (p *Processor) forgetExpired() {
	for p.expiries.Len() > 0 && p.expiries.soonest() <= p.watermark {
		p.expiries.forgetSoonest(p.seen)
	}
}

// idExpiry is a remembered ID and the watermark at which it is forgotten.
type idExpiry struct {
	expiry int64
	id     string
}

// A Processor with a seen TTL writes a snapshot of its own magic, "FLKT",
// with stage 04's header and encodings, and this body:
//
//	config      varint WindowSize, varint WatermarkDelay, varint AllowedLateness,
//	            varint seen TTL (positive)
//	watermark   varint
//	seen IDs    uvarint n, then n entries in ascending byte order of ID, each:
//	              string ID, varint expiry (the watermark that forgets it,
//	              above the snapshot's watermark)
//	windows     as in a Processor snapshot: ascending end, keys ascending
//
// So a processor without a TTL keeps writing "FLKS" bytes exactly as stage
// 04 does, and a build older than stage 10 refuses a TTL snapshot ("not a
// snapshot") instead of restoring a processor that never forgets.
// RestoreProcessor reads both.
const ttlSnapshotMagic = "FLKT"

// ttlSnapshot is the kind of snapshot of a Processor with a seen TTL.
var ttlSnapshot = snapshotKind{magic: ttlSnapshotMagic, pkg: "checkpoint", what: "seen-TTL snapshot"}

// snapshotWithTTL returns p's state in the format above.
func (p *Processor) snapshotWithTTL() []byte {
	buf := make([]byte, headerLen, 256)
	buf = binary.AppendVarint(buf, p.cfg.WindowSize)
	buf = binary.AppendVarint(buf, p.cfg.WatermarkDelay)
	buf = binary.AppendVarint(buf, p.cfg.AllowedLateness)
	buf = binary.AppendVarint(buf, p.seenTTL)
	buf = binary.AppendVarint(buf, p.watermark)

	// The heap's order depends on the order of arrival; the ID order is
	// canonical, so that equal state gives equal bytes.
	byID := p.expiries.all()
	slices.SortFunc(byID, func(a, b idExpiry) int { return strings.Compare(a.id, b.id) })
	buf = binary.AppendUvarint(buf, uint64(len(byID)))
	for _, x := range byID {
		buf = appendString(buf, x.id)
		buf = binary.AppendVarint(buf, x.expiry)
	}

	buf = p.appendWindows(buf)
	return ttlSnapshot.seal(buf)
}

// restoreWithTTL is RestoreProcessor for a snapshot of ttlSnapshot's kind:
// the same checks in the same order, then decodeTTLV1.
func restoreWithTTL(snapshot []byte) (*Processor, error) {
	v, err := ttlSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	if v != snapshotVersion {
		return nil, ttlSnapshot.unsupported(v)
	}
	body, err := ttlSnapshot.verifiedBody(snapshot)
	if err != nil {
		return nil, err
	}
	p, err := decodeTTLV1(body)
	if err != nil {
		return nil, ttlSnapshot.corrupt(err)
	}
	return p, nil
}

// decodeTTLV1 decodes a verified body of a seen-TTL snapshot, accepting
// only what snapshotWithTTL writes: a positive TTL, IDs in ascending order,
// each with an expiry the watermark has not reached (one it had reached
// would have been forgotten), then the windows.
func decodeTTLV1(body []byte) (*Processor, error) {
	r := &reader{buf: body}
	cfg := Config{WindowSize: r.varint(), WatermarkDelay: r.varint(), AllowedLateness: r.varint()}
	ttl, watermark := r.varint(), r.varint()
	if r.err != nil {
		return nil, r.err
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("seen TTL %d: a seen-TTL snapshot holds a positive one", ttl)
	}
	p, err := NewSeenTTLProcessor(cfg, ttl)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	p.watermark = watermark

	n := r.count()
	p.expiries = newExpiryQueue(n)
	var prev []byte
	for i := range n {
		id, expiry := r.bytes(), r.varint()
		if r.err != nil {
			return nil, r.err
		}
		if i > 0 && bytes.Compare(id, prev) <= 0 {
			return nil, fmt.Errorf("seen ID %s is not after %s", kit.ShowString(string(id)), kit.ShowString(string(prev)))
		}
		if expiry <= watermark {
			return nil, fmt.Errorf("seen ID %s is forgotten at watermark %d, which watermark %d has reached", kit.ShowString(string(id)), expiry, watermark)
		}
		p.seen.addBytes(id)
		p.expiries.appendBytes(expiry, id)
		prev = id
	}
	p.expiries.init()

	if err := p.readWindows(r, cfg.WindowSize); err != nil {
		return nil, err
	}
	return p, nil
}
