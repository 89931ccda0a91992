package solutions

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/flk-byo/course/kit"
)

// A snapshot is a savepoint: bytes a person may keep for months, move to
// another machine and restore with a later build. So the format is written
// down here, versioned, and checked before it is trusted.
//
// Format version 1. A snapshot is a 17-byte header and a body:
//
//	offset  size  field
//	0       4     magic "FLKS"
//	4       1     format version: 1
//	5       8     body length in bytes, uint64 big-endian
//	13      4     CRC-32C (Castagnoli) of the body, uint32 big-endian
//	17      …     body
//
// In the body, "uvarint" and "varint" are encoding/binary's variable-length
// integers (varint is zig-zag, for values that may be negative), and a
// string is a uvarint byte length followed by the bytes. Fields in order:
//
//	config      varint WindowSize, varint WatermarkDelay, varint AllowedLateness
//course:stage 07 following upstream watermarks only
//	            (WatermarkDelay −1 marks a processor made by NewUpstreamProcessor:
//	            see upstreamDelay)
//course:end
//	watermark   varint (math.MinInt64 before any event, math.MaxInt64 after Flush)
//	seen IDs    uvarint n, then n strings in ascending byte order
//	windows     uvarint n, then n windows in ascending end order, each:
//	              varint start, varint end,
//	              uvarint k, then k entries in ascending key order, each:
//	                string key, uvarint count, varint sum
//
// Every window in a snapshot is unexpired and has at least one key. There
// is no "fired" flag: a window has fired exactly when end ≤ watermark (the
// watermark fires every window it reaches), so the watermark carries it.
// The side output is not in the snapshot: it is output, not state.
//
// Everything is written in a canonical order, never in map order, so equal
// state gives equal bytes. A decoder accepts only what an encoder writes:
// no trailing bytes, no repeated or unordered IDs, windows or keys.

const (
	snapshotMagic   = "FLKS"
	snapshotVersion = 1 // the version Snapshot writes

	headerLen = 4 + 1 + 8 + 4 // magic, version, body length, checksum
)

// castagnoli is the CRC-32C table, the checksum of the body. A CRC detects
// every change of one byte (every burst of up to 32 bits, in fact), which
// is what a flipped bit on a disk or a torn copy looks like.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Snapshot returns all of p's state, encoded in format version 1 (see the
// comment above): the config, the watermark, every seen event ID, and every
// unexpired window with its per-key counts and sums. The side output is
// not included. The bytes are the caller's: later processing never changes
// them, and equal state gives equal bytes. The error is always nil here; it
// is in the signature for implementations that can fail.
func (p *Processor) Snapshot() ([]byte, error) {
	//course:stage 10 forgetting seen IDs behind the watermark
	// A processor with a seen TTL writes a kind of its own (seenttl.go):
	// this format has no room for when each ID is forgotten.
	if p.seenTTL > 0 {
		return p.snapshotWithTTL(), nil
	}
	//course:end
	// Encode the body into a fresh buffer, after room for the header: the
	// bytes share nothing with p, so p can go on processing at once (what
	// Flink's asynchronous snapshots achieve with copy-on-write state).
	buf := make([]byte, headerLen, 256)

	delay := p.cfg.WatermarkDelay
	//course:stage 07 following upstream watermarks only
	if p.upstreamOnly {
		delay = upstreamDelay
	}
	//course:end
	buf = binary.AppendVarint(buf, p.cfg.WindowSize)
	buf = binary.AppendVarint(buf, delay)
	buf = binary.AppendVarint(buf, p.cfg.AllowedLateness)
	buf = binary.AppendVarint(buf, p.watermark)

	buf = appendSeenIDs(buf, p.seen)
	buf = p.appendWindows(buf)

	return processorSnapshot.seal(buf), nil
}

// appendWindows appends every window of p as the format above lays them
// out: a count, then each window's bounds and its keys' tallies.
func (p *Processor) appendWindows(buf []byte) []byte {
	// p.windows is already in ascending order of end; only the keys need
	// sorting.
	buf = binary.AppendUvarint(buf, uint64(len(p.windows)))
	for _, w := range p.windows {
		buf = binary.AppendVarint(buf, w.start)
		buf = binary.AppendVarint(buf, w.end)
		sorted := p.sortedTallies(w)
		buf = binary.AppendUvarint(buf, uint64(len(sorted)))
		for _, t := range sorted {
			buf = appendString(buf, t.key)
			buf = binary.AppendUvarint(buf, uint64(t.count))
			buf = binary.AppendVarint(buf, t.sum)
		}
	}
	return buf
}

// appendSeenIDs appends the seen IDs as a count and the IDs in ascending
// byte order: maps iterate in random order, and equal state must give equal
// bytes.
func appendSeenIDs(buf []byte, seen idSet) []byte {
	ids := seen.sorted()
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	for _, id := range ids {
		buf = appendString(buf, id)
	}
	return buf
}

// seenIDs reads what appendSeenIDs wrote, refusing IDs out of order (or
// repeated): a decoder accepts only what the encoder writes.
func (r *reader) seenIDs() (idSet, error) {
	n := r.count()
	seen := newIDSet(n)
	var prev []byte
	for i := range n {
		id := r.bytes()
		if r.err != nil {
			return idSet{}, r.err
		}
		if i > 0 && bytes.Compare(id, prev) <= 0 {
			return idSet{}, fmt.Errorf("seen ID %s is not after %s", kit.ShowString(string(id)), kit.ShowString(string(prev)))
		}
		seen.addBytes(id)
		prev = id
	}
	return seen, nil
}

// appendString appends s as a uvarint length and its bytes.
func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// RestoreProcessor returns a Processor with the state saved in snapshot, as
// returned by Snapshot, ready to continue where that processor was: the
// same config, watermark, seen IDs and windows (fired or not), and an empty
// side output. It checks, in this order, the magic, the format version (an
// unknown version is an error that says so), the length and the checksum,
// and only then decodes. Empty, truncated, corrupted or otherwise invalid
// input gives a nil Processor and an error, never a panic; so does a
// snapshot whose checksum holds but which holds what no processor writes
// (a window off the WindowSize grid, or one its watermark has expired).
// The Processor shares no memory with snapshot.
func RestoreProcessor(snapshot []byte) (*Processor, error) {
	//course:stage 10 forgetting seen IDs behind the watermark
	if bytes.HasPrefix(snapshot, []byte(ttlSnapshotMagic)) {
		return restoreWithTTL(snapshot)
	}
	//course:end
	v, err := processorSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	// The version decides how to read everything after it, the rest of the
	// header included. This switch is where a format change goes: keep
	// `case 1` reading version-1 bytes (into the current Processor) for as
	// long as users may hold old savepoints, and add `case 2` for the new
	// layout. That is also why the version comes before the checksum: a
	// newer savepoint is reported as one, not as corrupt.
	switch v {
	case 1:
		body, err := processorSnapshot.verifiedBody(snapshot)
		if err != nil {
			return nil, err
		}
		p, err := decodeV1(body)
		if err != nil {
			return nil, processorSnapshot.corrupt(err)
		}
		return p, nil
	default:
		return nil, processorSnapshot.unsupported(v)
	}
}

// snapshotKind is one kind of snapshot of the course: a Processor's, a
// ParallelProcessor's (stage 06), a SessionProcessor's (stage 08). All
// three are framed alike, with their own magic, so that none restores as
// another; errors name the kind.
type snapshotKind struct {
	magic string // the first 4 bytes
	pkg   string // the error prefix: "checkpoint"
	what  string // how an error names it: "snapshot"
}

// processorSnapshot is a Processor's kind of snapshot.
var processorSnapshot = snapshotKind{magic: snapshotMagic, pkg: "checkpoint", what: "snapshot"}

// seal fills in the header that the encoder reserved at the front of buf
// (headerLen bytes, the body after them): magic, version, body length,
// checksum. It returns buf.
func (k snapshotKind) seal(buf []byte) []byte {
	body := buf[headerLen:]
	copy(buf, k.magic)
	buf[4] = snapshotVersion
	binary.BigEndian.PutUint64(buf[5:13], uint64(len(body)))
	binary.BigEndian.PutUint32(buf[13:17], crc32.Checksum(body, castagnoli))
	return buf
}

// version checks the magic of a snapshot of kind k and returns its format
// version: what decides how the rest is read.
func (k snapshotKind) version(snapshot []byte) (byte, error) {
	if len(snapshot) < len(k.magic) || string(snapshot[:len(k.magic)]) != k.magic {
		return 0, fmt.Errorf("%s: not a %s: it does not start with %q", k.pkg, k.what, k.magic)
	}
	if len(snapshot) == len(k.magic) {
		return 0, fmt.Errorf("%s: %s truncated: no format version after the magic", k.pkg, k.what)
	}
	return snapshot[4], nil
}

// unsupported is the error of a format version this build cannot read.
func (k snapshotKind) unsupported(v byte) error {
	return fmt.Errorf("%s: unsupported %s format version %d (this build reads version %d)", k.pkg, k.what, v, snapshotVersion)
}

// corrupt is the error of a body that passed its checksum but does not
// decode.
func (k snapshotKind) corrupt(err error) error {
	return fmt.Errorf("%s: %s corrupt: %w", k.pkg, k.what, err)
}

// verifiedBody returns the body of a version-1 framed snapshot after
// checking its length and checksum: any changed, missing or extra byte is
// an error here, before a single field is decoded.
func (k snapshotKind) verifiedBody(snapshot []byte) ([]byte, error) {
	if len(snapshot) < headerLen {
		return nil, fmt.Errorf("%s: %s truncated: %d bytes, shorter than its %d-byte header", k.pkg, k.what, len(snapshot), headerLen)
	}
	want := binary.BigEndian.Uint64(snapshot[5:13])
	body := snapshot[headerLen:]
	switch {
	case uint64(len(body)) < want:
		return nil, fmt.Errorf("%s: %s truncated: header says %d body bytes, found %d", k.pkg, k.what, want, len(body))
	case uint64(len(body)) > want:
		return nil, k.corrupt(fmt.Errorf("%d bytes after the %d-byte body", uint64(len(body))-want, want))
	}
	if got, sum := crc32.Checksum(body, castagnoli), binary.BigEndian.Uint32(snapshot[13:17]); got != sum {
		return nil, k.corrupt(fmt.Errorf("body checksum is %08x, header says %08x", got, sum))
	}
	return body, nil
}

// decodeV1 decodes a version-1 body whose checksum has been verified. It
// still validates every field: the checksum proves the bytes are the ones
// written, not that the writer was right, and a Processor restored from
// inconsistent state would fail much later and far from the cause.
func decodeV1(body []byte) (*Processor, error) {
	r := &reader{buf: body}
	cfg := Config{WindowSize: r.varint(), WatermarkDelay: r.varint(), AllowedLateness: r.varint()}
	watermark := r.varint()
	if r.err != nil {
		return nil, r.err
	}
	//course:stage 07 following upstream watermarks only
	upstream := cfg.WatermarkDelay == upstreamDelay
	if upstream {
		cfg.WatermarkDelay = 0
	}
	//course:end
	p, err := NewProcessor(cfg)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	//course:stage 07 following upstream watermarks only
	p.upstreamOnly = upstream
	//course:end
	p.watermark = watermark

	if p.seen, err = r.seenIDs(); err != nil {
		return nil, err
	}
	if err := p.readWindows(r, p.cfg.WindowSize); err != nil {
		return nil, err
	}
	return p, nil
}

// readWindows reads what appendWindows wrote, the last field of a body,
// into p, whose config and watermark are already restored. Window starts
// are multiples of step: the window size for tumbling windows (the slide
// for stage 09's sliding ones).
func (p *Processor) readWindows(r *reader, step int64) error {
	n := r.count()
	p.windows = make([]*window, 0, n)
	for range n {
		start, end := r.varint(), r.varint()
		if r.err != nil {
			return r.err
		}
		if err := p.checkWindow(start, end, step); err != nil {
			return err
		}
		k := r.count()
		if r.err != nil {
			return r.err
		}
		if k == 0 {
			return fmt.Errorf("window [%d,%d) has no keys", start, end)
		}
		w := p.newWindow(start, end)
		prev := ""
		for i := range k {
			key, count, sum := r.key(), r.uvarint(), r.varint()
			if r.err != nil {
				return r.err
			}
			if i > 0 && key <= prev {
				return fmt.Errorf("key %s of window [%d,%d) is not after %s", kit.ShowString(key), start, end, kit.ShowString(prev))
			}
			if count == 0 || count > math.MaxInt64 {
				return fmt.Errorf("key %s of window [%d,%d) has count %d", kit.ShowString(key), start, end, count)
			}
			w.restoreTally(key, int64(count), sum)
			prev = key
		}
		p.windows = append(p.windows, w)
	}
	if r.err != nil {
		return r.err
	}
	if len(r.buf) > 0 {
		return fmt.Errorf("%d unread bytes after the last window", len(r.buf))
	}
	return nil
}

// checkWindow returns an error unless [start, end) is a window of p's size
// starting at a multiple of step, after the window last restored, and not
// yet expired at p's watermark.
func (p *Processor) checkWindow(start, end, step int64) error {
	size := p.cfg.WindowSize
	if start > math.MaxInt64-size || end != start+size {
		return fmt.Errorf("window [%d,%d) is not %d long", start, end, size)
	}
	if s, _ := AssignWindow(start, step); s != start {
		return fmt.Errorf("window [%d,%d) does not start at a multiple of %d", start, end, step)
	}
	if n := len(p.windows); n > 0 && end <= p.windows[n-1].end {
		return fmt.Errorf("window [%d,%d) is not after the window ending at %d", start, end, p.windows[n-1].end)
	}
	if p.watermark >= p.cleanupTime(end) {
		return fmt.Errorf("window [%d,%d) had expired at watermark %d", start, end, p.watermark)
	}
	return nil
}

// errShort is the error of a body that ends inside a field.
var errShort = errors.New("body ends inside a field")

// reader decodes a body front to back. The first error sticks: every later
// read returns a zero value, so a decoder checks r.err once per record
// instead of after every field.
type reader struct {
	buf []byte
	err error
	// keys interns the keys read by key.
	keys map[string]string
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf)
	if n <= 0 { // 0: the buffer ended; < 0: more than 64 bits
		r.err = errShort
		if n < 0 {
			r.err = errors.New("integer overflows 64 bits")
		}
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf)
	if n <= 0 {
		r.err = errShort
		if n < 0 {
			r.err = errors.New("integer overflows 64 bits")
		}
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

// count reads the number of items that follow. Each item takes at least
// one byte, so a count above the bytes left is corrupt: checking it here
// keeps a bad count from allocating gigabytes before the decoder notices.
func (r *reader) count() int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.buf)) {
		r.err = fmt.Errorf("count %d is more than the %d bytes left", n, len(r.buf))
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// string reads a uvarint length and that many bytes, copied: the Processor
// must not keep the caller's snapshot alive, nor change if the caller
// reuses it.
func (r *reader) string() string {
	return string(r.bytes()) // string() of a byte slice copies
}

// key reads a string as string does, interned: a key with state in many
// windows is one string in memory after a restore, as it was before the
// snapshot, not one copy per window.
func (r *reader) key() string {
	b := r.bytes()
	if s, ok := r.keys[string(b)]; ok { // this conversion does not allocate
		return s
	}
	if r.keys == nil {
		r.keys = make(map[string]string)
	}
	s := string(b)
	r.keys[s] = s
	return s
}

// bytes reads a uvarint length and that many bytes, returned in the
// memory of the snapshot: the caller must copy what it keeps.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.buf)) {
		r.err = errShort
	}
	if r.err != nil {
		return nil
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}
