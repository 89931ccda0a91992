//go:build !fast

package solutions

//course:stage 04 the seen IDs in a snapshot
import (
	"maps"
	"slices"
)

//course:end

// idSet is the set of event IDs a processor has seen: its dedup state, and
// by far its largest, since it holds every ID ever processed (a real job
// bounds it with a TTL).
//
// This is the plain build's: a map of strings. The tuned build (-tags fast,
// seen_fast.go) keeps short IDs inline in a map without pointers and sorts
// them by radix; docs/PERFORMANCE.md measures what that buys.
type idSet struct {
	ids map[string]struct{}
}

// newIDSet returns an empty set with room for n IDs.
func newIDSet(n int) idSet {
	return idSet{ids: make(map[string]struct{}, n)}
}

// add adds id to s and reports whether it was new.
func (s idSet) add(id string) bool {
	if _, ok := s.ids[id]; ok {
		return false
	}
	s.ids[id] = struct{}{}
	return true
}

// len returns the number of IDs in s.
func (s idSet) len() int {
	return len(s.ids)
}

//course:stage 10 forgetting seen IDs behind the watermark

// remove removes id from s: a seen TTL has forgotten it.
func (s idSet) remove(id string) {
	delete(s.ids, id)
}

//course:end

//course:stage 04 the seen IDs in a snapshot

// addBytes is add for an ID a decoder holds as bytes; the set keeps a
// copy.
func (s idSet) addBytes(id []byte) bool {
	return s.add(string(id))
}

// sorted returns every ID in s in ascending byte order, the canonical order
// of a snapshot: a map iterates in random order, and equal state must give
// equal bytes.
func (s idSet) sorted() []string {
	return slices.Sorted(maps.Keys(s.ids))
}

//course:end
