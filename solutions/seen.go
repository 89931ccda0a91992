package solutions

import (
	"slices"
	"strings"
)

// idSet is the set of event IDs a processor has seen: its dedup state, and
// by far its largest, since it holds every ID ever processed.
//
// IDs of up to maxInlineID bytes, the common case, are stored inline, as
// the bytes themselves, in a map whose keys hold no pointers; longer IDs go
// to a map of strings. This is the one place the reference trades a little
// simplicity for speed, and it pays: the garbage collector never scans a
// map without pointers, and growing it rehashes bytes already in the map
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

// sorted returns every ID in s in ascending byte order, the canonical order
// of a snapshot.
func (s idSet) sorted() []string {
	ids := make([]string, 0, s.len())
	// The inline IDs become strings by slicing one string that holds them
	// all: a few allocations, not one per ID.
	var all strings.Builder
	all.Grow(len(s.short) * maxInlineID)
	ends := make([]int, 0, len(s.short))
	for k := range s.short {
		all.Write(k.bytes[:k.n])
		ends = append(ends, all.Len())
	}
	joined, start := all.String(), 0
	for _, end := range ends {
		ids = append(ids, joined[start:end])
		start = end
	}
	for id := range s.long {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
