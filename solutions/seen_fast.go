//go:build fast

package solutions

import (
	"encoding/binary"
	"maps"
	"math/bits"
	"slices"
	"strings"
)

// idSet is the set of event IDs a processor has seen: its dedup state, and
// by far its largest, since it holds every ID ever processed. This is the
// tuned build's (go build -tags fast); seen.go has the plain one, a map of
// strings, with the same methods.
//
// IDs of up to maxInlineID bytes, the common case, are stored inline, as
// 16 bytes each, in an open-addressing table of its own (idTable); longer
// IDs go to a map of strings. That trades some simplicity for speed, and
// no change to the reference paid more:
//   - the table holds no pointers, so the garbage collector never scans
//     it, and growing it rehashes bytes already in the table instead of
//     following a pointer per ID to wherever the event's string lives (a
//     cache miss each). Flink's state backends make the same choice for
//     the same reasons: they keep state as serialized bytes, not objects;
//   - an insert into a table larger than the caches costs a trip to
//     memory. A slot is 16 bytes, four to a cache line, and linear
//     probing reads the next slots, in the same line or the next, so an
//     insert costs about one miss, where a Go map's group of 8 slots and
//     its control word span three lines.
//
// An idSet is a handle: copies share the same table. The zero idSet is not
// usable; call newIDSet.
type idSet struct {
	t *idTable
}

// idTable is an idSet's state: a linear-probing hash table of inline IDs
// whose length is a power of two, grown (grow) before it is more than
// maxLoadNum/maxLoadDen full, and a map for the long IDs.
type idTable struct {
	slots []inlineID // an empty slot is the zero inlineID, which no ID encodes to
	n     int        // inline IDs in slots
	shift uint       // 64 - log2(len(slots)): a hash's top bits are its home slot
	long  map[string]struct{}
}

// The table grows when an insert would leave it more than 13/16 full. At
// that load a miss probes about 15 slots, four cache lines, at worst, and
// half of that on average over a doubling; the load averages about 0.6 over
// a doubling, which keeps the bytes per ID below a Go map's (BenchmarkHeap
// reports them). Below quadSlots the table grows fourfold and is emptier.
const (
	maxLoadNum = 13
	maxLoadDen = 16
	minSlots   = 16
)

// While the table is smaller than quadSlots, 16 384 slots (256 KiB), it
// grows fourfold rather than doubling: a new processor's set reaches that
// size in half as many growths, which reinsert a third as many IDs as
// the doublings would (those, about 1.3 times the IDs). That costs at most 128 KiB more than doubling would
// (a 256 KiB table for 3 329 to 6 656 IDs, where doubling has 128 KiB);
// from quadSlots on, where it would cost a fraction of a large state, the
// table doubles.
const quadSlots = 1 << 14

// maxInlineID is the longest ID stored inline.
const maxInlineID = 15

// inlineID is an ID of up to maxInlineID bytes as two words, little-endian:
// byte 0 is its length plus one (so that no ID is the zero inlineID, the
// empty slot, and "a" and "a\x00" differ), bytes 1 to 15 its bytes,
// zero-padded.
type inlineID struct {
	lo, hi uint64
}

// inline returns the inline form of an ID of at most maxInlineID bytes.
func inline[ID string | []byte](id ID) inlineID {
	var b [16]byte
	b[0] = byte(len(id)) + 1
	copy(b[1:], id)
	return inlineID{lo: binary.LittleEndian.Uint64(b[:8]), hi: binary.LittleEndian.Uint64(b[8:])}
}

// len returns the ID's length in bytes.
func (k inlineID) len() int {
	return int(byte(k.lo)) - 1
}

// form returns k's 16 bytes: its length plus one, then the ID's bytes.
func (k inlineID) form() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], k.lo)
	binary.LittleEndian.PutUint64(b[8:], k.hi)
	return b
}

// hash mixes both words into 64 bits, every input bit reaching the top
// bits that pick the home slot: a multiply folded to 64 bits (wyhash's
// mum), with fixed odd constants. The IDs come from the job's own sources,
// not from an adversary choosing collisions, so the seed need not be
// secret.
func (k inlineID) hash() uint64 {
	hi, lo := bits.Mul64(k.lo^0xa0761d6478bd642f, k.hi^0xe7037ed1a0b428db)
	return hi ^ lo
}

// newIDSet returns an empty set with room for n IDs.
func newIDSet(n int) idSet {
	size := minSlots
	for size*maxLoadNum < n*maxLoadDen {
		size *= 2
	}
	t := &idTable{long: make(map[string]struct{})}
	t.alloc(size)
	return idSet{t: t}
}

// alloc gives t an empty table of size slots, a power of two.
func (t *idTable) alloc(size int) {
	t.slots = make([]inlineID, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
}

// add adds id to s and reports whether it was new.
func (s idSet) add(id string) bool {
	if len(id) > maxInlineID {
		before := len(s.t.long)
		s.t.long[id] = struct{}{}
		return len(s.t.long) > before
	}
	return s.t.insert(inline(id))
}

// addBytes is add for an ID a decoder holds as bytes: an inline ID is
// copied into the table, with no string allocated for it.
func (s idSet) addBytes(id []byte) bool {
	if len(id) > maxInlineID {
		return s.add(string(id))
	}
	return s.t.insert(inline(id))
}

// insert adds k and reports whether it was new: one probe sequence both
// finds it, if it is there, and the empty slot where it goes if not.
func (t *idTable) insert(k inlineID) bool {
	if (t.n+1)*maxLoadDen > len(t.slots)*maxLoadNum {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := int(k.hash() >> t.shift); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case k:
			return false
		case inlineID{}:
			t.slots[i] = k
			t.n++
			return true
		}
	}
}

// grow enlarges the table, fourfold while it is smaller than quadSlots and
// twofold beyond, and reinserts every ID, none of which is there yet, so
// each goes to the first empty slot from its home.
func (t *idTable) grow() {
	old, n := t.slots, t.n
	if len(old) < quadSlots {
		t.alloc(4 * len(old))
	} else {
		t.alloc(2 * len(old))
	}
	mask := len(t.slots) - 1
	for _, k := range old {
		if k == (inlineID{}) {
			continue
		}
		i := int(k.hash() >> t.shift)
		for t.slots[i] != (inlineID{}) {
			i = (i + 1) & mask
		}
		t.slots[i] = k
	}
	t.n = n
}

// len returns the number of IDs in s.
func (s idSet) len() int {
	return s.t.n + len(s.t.long)
}

// remove removes id from s: a seen TTL has forgotten it.
func (s idSet) remove(id string) {
	if len(id) > maxInlineID {
		delete(s.t.long, id)
		return
	}
	s.t.remove(inline(id))
}

// remove removes k from t if it is there. Linear probing leaves no
// tombstone: the IDs after the hole, up to the next empty slot, that the
// hole is between their home and where they are move back into it, so
// every ID stays reachable from its home without crossing an empty slot.
func (t *idTable) remove(k inlineID) {
	mask := len(t.slots) - 1
	i := int(k.hash() >> t.shift)
	for t.slots[i] != k {
		if t.slots[i] == (inlineID{}) {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.slots[j] != (inlineID{}); j = (j + 1) & mask {
		home := int(t.slots[j].hash() >> t.shift)
		// The hole i is in [home, j) cyclically: j's ID may move back to it.
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = inlineID{}
	t.n--
}

// sorted returns every ID in s in ascending byte order, the canonical order
// of a snapshot.
//
// A comparison sort of n IDs takes n log n time, and the seen IDs are most
// of the state, so a snapshot would grow faster than the state it writes.
// The inline IDs are sorted by radix instead, in time linear in n; the
// long IDs, rare, by comparison; then the two runs are merged.
func (s idSet) sorted() []string {
	short := make([]inlineID, 0, s.t.n)
	for _, k := range s.t.slots {
		if k != (inlineID{}) {
			short = append(short, k)
		}
	}
	short = radixSort(short)
	long := slices.Sorted(maps.Keys(s.t.long))

	ids := make([]string, 0, s.len())
	j := 0
	for _, id := range stringsOf(short) {
		for j < len(long) && long[j] < id {
			ids = append(ids, long[j])
			j++
		}
		ids = append(ids, id)
	}
	return append(ids, long[j:]...)
}

// stringsOf returns the IDs ks hold, as strings, in the order of ks. They
// are slices of one string that holds them all: a snapshot turns every
// inline ID into a string, and this costs two allocations, not one per ID.
func stringsOf(ks []inlineID) []string {
	size := 0
	for _, k := range ks {
		size += k.len()
	}
	var all strings.Builder
	all.Grow(size)
	for _, k := range ks {
		b := k.form()
		all.Write(b[1 : 1+k.len()])
	}
	joined := all.String()
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i], joined = joined[:k.len()], joined[k.len():]
	}
	return out
}

// byteAt returns byte i of k's 16-byte form.
func (k inlineID) byteAt(i int) byte {
	if i < 8 {
		return byte(k.lo >> (8 * i))
	}
	return byte(k.hi >> (8 * (i - 8)))
}

// radixSort sorts ids in ascending string order and returns them (in ids'
// memory or in a buffer of the same length). It is an LSD radix sort: one
// stable counting pass per byte position, the last byte first, so after
// the pass for position 0 the IDs are in order of all their bytes.
//
// The zero padding makes this the string order: where one ID is a prefix
// of another, the shorter has zeros where the longer has its next bytes,
// so it sorts first unless those bytes are zeros too; and then the length,
// the least significant digit and so sorted by the first pass, decides.
func radixSort(ids []inlineID) []inlineID {
	if len(ids) < 2 {
		return ids
	}
	buf := make([]inlineID, len(ids))
	// digit i is the ID's byte i (byte i+1 of the form) for i <
	// maxInlineID, and its length (byte 0, the length plus one) for i ==
	// maxInlineID.
	digit := func(k inlineID, i int) byte {
		return k.byteAt((i + 1) % 16)
	}
	for i := maxInlineID; i >= 0; i-- {
		var start [256]int
		for j := range ids {
			start[digit(ids[j], i)]++
		}
		if start[digit(ids[0], i)] == len(ids) {
			continue // every ID has the same digit here: nothing moves
		}
		// From counts to the index where each digit's run starts.
		sum := 0
		for d, c := range start {
			start[d] = sum
			sum += c
		}
		for j := range ids {
			d := digit(ids[j], i)
			buf[start[d]] = ids[j]
			start[d]++
		}
		ids, buf = buf, ids
	}
	return ids
}
