package windowtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"
)

// A snapshot's layout is the learner's, but what a restore must refuse is
// not only bytes its checksum catches: a snapshot whose checksum holds and
// whose content no processor could have written (a window off the slide's
// grid, an ID whose expiry the watermark has passed) is as wrong, and a
// suite can only try it by making one. ForgeValue makes one from a good
// snapshot when it can: it finds one int64 in the snapshot, in whichever
// of the usual encodings holds it exactly once, puts another of the same
// length in its place, and seals the snapshot again, when its checksum is
// one of the usual ones. A suite whose forgery fails (an unusual format)
// has tried what it could; the reference's format and the common ones are
// found.

// sealing is how a snapshot's checksum was found to be made: sum over
// snap[from : len(snap)-trailing], stored at at (from the start when
// before the body, else from the end).
type sealing struct {
	sum      func([]byte) []byte
	from     int
	trailing int
	at       int
	atEnd    bool
}

// checksums are the usual ones a snapshot is sealed with: CRC-32C and
// CRC-32 (IEEE), big- and little-endian, and SHA-256.
var checksums = []func([]byte) []byte{
	func(b []byte) []byte {
		return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	},
	func(b []byte) []byte {
		return binary.LittleEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	},
	func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)) },
	func(b []byte) []byte { return binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)) },
	func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
}

// findSealing finds how snap was sealed: a usual checksum of a span that
// starts within its first 64 bytes, ends at its end or right before a
// checksum at its end, and is at least half of it, stored outside that
// span. ok is false when none is.
func findSealing(snap []byte) (s sealing, ok bool) {
	for _, sum := range checksums {
		n := len(sum(nil))
		for from := 0; from <= min(64, len(snap)); from++ {
			for _, trailing := range []int{0, n} {
				end := len(snap) - trailing
				if end-from < len(snap)/2 {
					continue // a checksum covers the body, most of the snapshot
				}
				d := sum(snap[from:end])
				if trailing > 0 && bytes.Equal(snap[end:], d) {
					return sealing{sum: sum, from: from, trailing: trailing, at: n, atEnd: true}, true
				}
				if trailing == 0 {
					if at := bytes.Index(snap[:from], d); at >= 0 && at+n <= from {
						return sealing{sum: sum, from: from, at: at}, true
					}
				}
			}
		}
	}
	return sealing{}, false
}

// reseal writes into snap the checksum s makes of it.
func (s sealing) reseal(snap []byte) {
	d := s.sum(snap[s.from : len(snap)-s.trailing])
	if s.atEnd {
		copy(snap[len(snap)-s.at:], d)
		return
	}
	copy(snap[s.at:], d)
}

// encodings are the usual ways an int64 is written: 8 bytes big- or
// little-endian, a zigzag varint (binary.AppendVarint), an unsigned varint
// (for one that is not negative), and decimal text.
var encodings = []func(int64) []byte{
	func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) },
	func(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) },
	func(v int64) []byte { return binary.AppendVarint(nil, v) },
	func(v int64) []byte {
		if v < 0 {
			return nil
		}
		return binary.AppendUvarint(nil, uint64(v))
	},
	func(v int64) []byte { return []byte(strconv.FormatInt(v, 10)) },
}

// ForgeValue returns a copy of snap in which the one int64 from it holds
// is to instead, sealed again so that its checksum holds, and true; or
// false when it cannot: no usual checksum is found, or no usual encoding
// holds from exactly once (in the part the checksum covers) with to of the
// same length. Pick from to be unlike anything else in the state (a
// window start of 123 456 789 500), so that exactly once is the value
// meant.
func ForgeValue(snap []byte, from, to int64) ([]byte, bool) {
	s, ok := findSealing(snap)
	if !ok {
		return nil, false
	}
	body := snap[s.from : len(snap)-s.trailing]
	for _, enc := range encodings {
		old, repl := enc(from), enc(to)
		if len(old) == 0 || len(old) != len(repl) || bytes.Count(body, old) != 1 {
			continue
		}
		if isDecimal(old) && !alone(body, old) {
			continue // a decimal inside a longer number
		}
		forged := bytes.Clone(snap)
		i := s.from + bytes.Index(body, old)
		copy(forged[i:], repl)
		s.reseal(forged)
		return forged, true
	}
	return nil, false
}

// isDecimal reports whether b is decimal text.
func isDecimal(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return len(b) > 0
}

// alone reports whether the one occurrence of digits in body stands alone,
// not inside a longer number.
func alone(body, digits []byte) bool {
	i := bytes.Index(body, digits)
	isDigit := func(j int) bool { return j >= 0 && j < len(body) && body[j] >= '0' && body[j] <= '9' }
	return !isDigit(i-1) && !isDigit(i+len(digits))
}

// A Forgery is a snapshot whose checksum holds but which no processor
// writes, described by how to make it from a good one: CheckForged makes it
// with ForgeValue and checks that a restore refuses it.
type Forgery struct {
	// What the forged snapshot holds, for messages: "with Slide −123456789".
	What string
	// Snap is the good snapshot the forgery starts from.
	Snap []byte
	// Moves are the values to move, each from [0] to [1]. Each one found is
	// moved; the forgery is tried when any is (a format may store a window's
	// start and end, or its start alone).
	Moves [][2]int64
	// Why no processor writes what the forged snapshot holds.
	Why string
}

// CheckForged checks, as CheckRefused does, that restore refuses each
// forgery it can make. A forgery none of whose values it finds in the
// snapshot's format (or whose checksum it cannot make) is logged as not
// tried: the suite tries what it can read and says so where it cannot.
func CheckForged[T any](t testing.TB, call string, forgeries []Forgery, restore func([]byte) (*T, error)) {
	t.Helper()
	for _, f := range forgeries {
		forged, found := f.Snap, false
		for _, m := range f.Moves {
			if next, ok := ForgeValue(forged, m[0], m[1]); ok {
				forged, found = next, true
			}
		}
		if !found {
			t.Logf("the suite found no value it could move in this snapshot's format: a snapshot %s is not tried", f.What)
			continue
		}
		CheckRefused(t, call, []Damaged{{What: "a snapshot whose checksum holds, " + f.What, Input: forged}}, restore,
			f.Why+"\nA checksum proves the bytes are the ones written, not that a processor wrote them: check what you decode.")
	}
}
