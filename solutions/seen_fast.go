//go:build fast

package solutions

import (
	"maps"
	"slices"
	"strings"
)

// idSet is the set of event IDs a processor has seen: its dedup state, and
// by far its largest, since it holds every ID ever processed. This is the
// tuned build's (go build -tags fast); seen.go has the plain one, a map of
// strings, with the same methods.
//
// IDs of up to maxInlineID bytes, the common case, are stored inline, as
// the bytes themselves, in a map whose keys hold no pointers; longer IDs
// go to a map of strings. That trades a little simplicity for speed, and
// no change to the reference paid more: the garbage collector never scans
// a map without pointers, and growing it rehashes bytes already in the map
// instead of following a pointer per ID to wherever the event's string
// lives (a cache miss each). Flink's state backends make the same choice
// for the same reasons: they keep state as serialized bytes, not objects.
//
// The zero idSet is not usable; call newIDSet.
type idSet struct {
	short map[inlineID]struct{}
	long  map[string]struct{}
}

// maxInlineID is the longest ID stored inline.
const maxInlineID = 15

// inlineID is an ID of up to maxInlineID bytes: its length and its bytes,
// zero-padded. The length is part of the key, so "a" and "a\x00" differ.
type inlineID struct {
	n     uint8
	bytes [maxInlineID]byte
}

// newIDSet returns an empty set with room for n IDs.
func newIDSet(n int) idSet {
	return idSet{short: make(map[inlineID]struct{}, n), long: make(map[string]struct{})}
}

// add adds id to s and reports whether it was new. One map operation both
// records the ID and tells whether it is new: the map grows only if it is.
func (s idSet) add(id string) bool {
	if len(id) > maxInlineID {
		before := len(s.long)
		s.long[id] = struct{}{}
		return len(s.long) > before
	}
	return s.addInline(inline(id))
}

// addBytes is add for an ID a decoder holds as bytes: an inline ID is
// copied into the map, with no string allocated for it.
func (s idSet) addBytes(id []byte) bool {
	if len(id) > maxInlineID {
		return s.add(string(id))
	}
	return s.addInline(inline(id))
}

// addInline adds an inline ID and reports whether it was new.
func (s idSet) addInline(k inlineID) bool {
	before := len(s.short)
	s.short[k] = struct{}{}
	return len(s.short) > before
}

// inline returns the inline form of an ID of at most maxInlineID bytes.
func inline[ID string | []byte](id ID) inlineID {
	k := inlineID{n: uint8(len(id))}
	copy(k.bytes[:], id)
	return k
}

// len returns the number of IDs in s.
func (s idSet) len() int {
	return len(s.short) + len(s.long)
}

// remove removes id from s: a seen TTL has forgotten it.
func (s idSet) remove(id string) {
	if len(id) > maxInlineID {
		delete(s.long, id)
		return
	}
	delete(s.short, inline(id))
}

// sorted returns every ID in s in ascending byte order, the canonical order
// of a snapshot.
//
// A comparison sort of n IDs takes n log n time, and the seen IDs are most
// of the state, so a snapshot would grow faster than the state it writes.
// The inline IDs are sorted by radix instead, in time linear in n; the
// long IDs, rare, by comparison; then the two runs are merged.
func (s idSet) sorted() []string {
	short := make([]inlineID, 0, len(s.short))
	for k := range s.short {
		short = append(short, k)
	}
	short = radixSort(short)
	long := slices.Sorted(maps.Keys(s.long))

	// The inline IDs become strings by slicing one string that holds them
	// all: two allocations, not one per ID.
	size := 0
	for i := range short {
		size += int(short[i].n)
	}
	var all strings.Builder
	all.Grow(size)
	for i := range short {
		all.Write(short[i].bytes[:short[i].n])
	}
	joined := all.String()

	ids := make([]string, 0, s.len())
	j := 0
	for _, k := range short {
		id := joined[:k.n]
		joined = joined[k.n:]
		for j < len(long) && long[j] < id {
			ids = append(ids, long[j])
			j++
		}
		ids = append(ids, id)
	}
	return append(ids, long[j:]...)
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
	// digit i is bytes[i] for i < maxInlineID, and the length for
	// i == maxInlineID.
	digit := func(k *inlineID, i int) byte {
		if i == maxInlineID {
			return k.n
		}
		return k.bytes[i]
	}
	for i := maxInlineID; i >= 0; i-- {
		var start [256]int
		for j := range ids {
			start[digit(&ids[j], i)]++
		}
		if start[digit(&ids[0], i)] == len(ids) {
			continue // every ID has the same digit here: nothing moves
		}
		// From counts to the index where each digit's run starts.
		sum := 0
		for d, c := range start {
			start[d] = sum
			sum += c
		}
		for j := range ids {
			d := digit(&ids[j], i)
			buf[start[d]] = ids[j]
			start[d]++
		}
		ids, buf = buf, ids
	}
	return ids
}
