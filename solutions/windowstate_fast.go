//go:build fast

package solutions

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// This file holds how a tumbling window's state is kept in memory, in the
// tuned build (-tags fast). windowstate.go has the plain version, with the
// same names: this one recycles expired windows instead of leaving them to
// the garbage collector, keeps a window's tallies in a slice of values
// (with an index once it has many keys) instead of a map of pointers,
// keeps a window with one key in one small struct, and sorts into reused
// scratch space, so that a processor in steady state allocates nothing but
// its results, and an open window with one key costs about what an entry
// of one map of (key, window) tallies would. docs/PERFORMANCE.md has the measurements.

// window is the state of one tumbling window: a running count and sum per
// key that has events in it.
//
// Most open windows of a job with many of them have one key, so that case
// is one struct of 48 bytes, cut from a slab (windowReuse.slab), with the
// tally inline: first. first.count, which a real tally never has below
// zero, also says which of three states the window is in:
//   - noKeys: the window has no key yet;
//   - zero or more: its one key's tally is first;
//   - manyKeys: its keys are in a moreTallies, and first.key is not a key
//     but that moreTallies's handle (handleOf), the one pointer the window
//     needs for it. A window that has had two keys keeps its moreTallies,
//     recycled with it, for good.
//
// A separate pointer field for the moreTallies would be simpler, and it
// was: 56 bytes, and with its 8-byte place in the processor's slice of
// windows an open window cost more than an entry of the naive learner's
// map of (key, window) tallies (docs/PERFORMANCE.md, "Heap per open
// window"). With one key, first.key holds that key's string; with more,
// first is unused: the two never need the field at once.
type window struct {
	start, end int64
	first      keyTally
}

// The states of a window that first.count marks: a tally's count is never
// negative.
const (
	noKeys   = -1
	manyKeys = -2
)

// handleOf returns m's handle: a string of one byte, m's first, which
// first.key of a window in the manyKeys state holds. As a string's data
// pointer it is a pointer the garbage collector follows, so it keeps m
// alive with the window, and more turns it back into m. Nothing reads it
// as a string: a window with many keys compares keys in m, never first.
func handleOf(m *moreTallies) string {
	return unsafe.String((*byte)(unsafe.Pointer(m)), 1)
}

// more returns the moreTallies of w, which is in the manyKeys state.
func (w *window) more() *moreTallies {
	return (*moreTallies)(unsafe.Pointer(unsafe.StringData(w.first.key)))
}

// moreTallies holds the tallies of a window with more than one key, in the
// order the keys first came; index finds a key's tally once there are
// more than scanKeys (empty until then, and after a restore until an event
// comes). A slice of values, rather than a map of pointers, costs no
// allocation per key and is reused whole when the window is recycled.
type moreTallies struct {
	tallies []keyTally
	index   keyIndex
}

// keyIndex finds a key's tally among a window's tallies: a linear-probing
// hash table of words, each the top 32 bits of the key's hash and one
// plus the tally's index (zero is an empty slot), at most half full, its
// length a power of two. Unlike a map of strings it holds no pointer, so
// the garbage collector never scans it, and clearing it for a recycled
// window writes no barrier; a probe compares the key itself only where
// the hashes' 32 bits match.
type keyIndex struct {
	slots []uint64
	shift uint // 32 - log2(len(slots)): a hash's top bits are its home slot
	seed  maphash.Seed
}

// minIndexSlots is the length of a new keyIndex: room for 2*scanKeys keys.
const minIndexSlots = 4 * scanKeys

// scanKeys is how many keys a window holds before tally indexes them:
// below it, a scan of the tallies finds a key about as fast as a map does,
// and a map would cost a small window more than the rest of its state.
const scanKeys = 8

// keyTally is the running aggregate of one key in one window.
type keyTally struct {
	key        string
	count, sum int64
}

// windowReuse is what a Processor keeps for reuse: expired windows,
// emptied; the rest of the slab new windows are cut from; and scratch
// space for a window's tallies in key order and for the sort that puts
// them there.
type windowReuse struct {
	free   pool[*window]
	slab   []window
	sorted []keyTally
	order  []uint64
}

// slabWindows is how many windows a slab holds: as many as fit in 8 KiB,
// a size the allocator gives exactly, so that 170 windows cost one
// allocation, not 170. A slab stays in memory while any of its windows is
// in use; the pool of free windows reuses them.
const slabWindows = 8192 / unsafe.Sizeof(window{})

// pool keeps emptied state (windows, sessions, slices) for new state to
// reuse, so that a processor in steady state allocates none: as much
// state expires as opens.
type pool[T any] []T

// maxFree is how much a pool keeps at least. Beyond that it keeps no more
// than the state it came from held: one watermark may expire many windows
// at once and as many open after it, but reuse must not more than double
// the memory of the largest state.
const maxFree = 64

// get returns a kept item, if there is one.
func (p *pool[T]) get() (x T, ok bool) {
	n := len(*p)
	if n == 0 {
		return x, false
	}
	x, *p = (*p)[n-1], (*p)[:n-1]
	return x, true
}

// put keeps x, unless the pool already holds max(maxFree, live) items,
// where live is the size of the state x was part of.
func (p *pool[T]) put(x T, live int) {
	if len(*p) < max(maxFree, live) {
		*p = append(*p, x)
	}
}

// newWindow returns an empty window [start, end), a recycled one if there
// is one.
func (p *Processor) newWindow(start, end int64) *window {
	w, ok := p.reuse.free.get()
	if !ok {
		if len(p.reuse.slab) == 0 {
			p.reuse.slab = make([]window, slabWindows)
		}
		w, p.reuse.slab = &p.reuse.slab[0], p.reuse.slab[1:]
		w.first.count = noKeys
	}
	w.start, w.end = start, end
	return w
}

// dropWindows drops the first n windows, which have expired, keeping their
// memory for new windows.
func (p *Processor) dropWindows(n int) {
	for _, w := range p.windows[:n] {
		w.reset()
		p.reuse.free.put(w, len(p.windows))
	}
	clear(p.windows[:n])
	p.windows = p.windows[n:] // slicing off the front moves no open window
}

// reset empties w for reuse, keeping the memory of its tallies and index
// but not the keys: a recycled window must not keep old keys' strings
// alive.
func (w *window) reset() {
	if w.first.count != manyKeys {
		w.first = keyTally{count: noKeys}
		return
	}
	m := w.more()
	clear(m.tallies)
	m.tallies = m.tallies[:0]
	clear(m.index.slots)
}

// tally returns the tally of key in w, adding an empty one if key is new
// to w.
func (w *window) tally(key string) *keyTally {
	switch w.first.count {
	case noKeys:
		w.first = keyTally{key: key}
		return &w.first
	case manyKeys: // its keys are in more(), below
	default:
		if w.first.key == key {
			return &w.first
		}
		w.spill()
	}
	return w.more().tally(key)
}

// spill moves the one key of w from first to a moreTallies of its own,
// for a second key to join.
func (w *window) spill() {
	m := &moreTallies{tallies: append(make([]keyTally, 0, 2), w.first)}
	w.first = keyTally{key: handleOf(m), count: manyKeys}
}

// tally returns the tally of key in m, adding an empty one if key is new.
func (m *moreTallies) tally(key string) *keyTally {
	if m.index.slots == nil && len(m.tallies) <= scanKeys {
		for i := range m.tallies {
			if m.tallies[i].key == key {
				return &m.tallies[i]
			}
		}
		if len(m.tallies) < scanKeys {
			m.tallies = append(m.tallies, keyTally{key: key})
			return &m.tallies[len(m.tallies)-1]
		}
	}
	if m.index.slots == nil {
		m.index.build(m.tallies)
	}
	h := m.index.hash(key)
	slot := m.index.find(m.tallies, key, h)
	if i := uint32(m.index.slots[slot]); i != 0 {
		return &m.tallies[i-1]
	}
	m.tallies = append(m.tallies, keyTally{key: key})
	m.index.add(slot, h, len(m.tallies))
	return &m.tallies[len(m.tallies)-1]
}

// build gives x a new table indexing tallies, each of whose keys is new
// to it.
func (x *keyIndex) build(tallies []keyTally) {
	x.seed = maphash.MakeSeed()
	x.alloc(max(minIndexSlots, 1<<bits.Len(uint(4*len(tallies)-1))))
	for i, t := range tallies {
		h := x.hash(t.key)
		x.add(x.find(tallies[:i], t.key, h), h, i+1)
	}
}

// alloc gives x an empty table of size slots, a power of two.
func (x *keyIndex) alloc(size int) {
	x.slots = make([]uint64, size)
	x.shift = uint(32 - bits.TrailingZeros(uint(size)))
}

// hash returns the top 32 bits of key's hash.
func (x *keyIndex) hash(key string) uint32 {
	return uint32(maphash.String(x.seed, key) >> 32)
}

// find returns the slot of key, whose hash is h, if tallies has it, or else
// the empty slot where it goes.
func (x *keyIndex) find(tallies []keyTally, key string, h uint32) int {
	mask := len(x.slots) - 1
	for i := int(h >> x.shift); ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 || uint32(s>>32) == h && tallies[uint32(s)-1].key == key {
			return i
		}
	}
}

// add puts the n'th tally (counted from 1), whose key hashes to h, in the
// empty slot find returned, and doubles the table once it is half full.
func (x *keyIndex) add(slot int, h uint32, n int) {
	x.slots[slot] = uint64(h)<<32 | uint64(n)
	if 2*n < len(x.slots) {
		return
	}
	old := x.slots
	x.alloc(2 * len(old))
	mask := len(x.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(uint32(s>>32) >> x.shift)
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}

// restoreTally adds the tally of a key new to w, as a snapshot holds it.
// The window's index is left for tally to build if an event ever comes for
// the window: most restored windows only fire and expire.
func (w *window) restoreTally(key string, count, sum int64) {
	t := keyTally{key: key, count: count, sum: sum}
	switch w.first.count {
	case noKeys:
		w.first = t
		return
	case manyKeys: // its keys are in more(), below
	default:
		w.spill()
	}
	m := w.more()
	m.tallies = append(m.tallies, t)
	if m.index.slots != nil {
		h := m.index.hash(key)
		m.index.add(m.index.find(m.tallies, key, h), h, len(m.tallies))
	}
}

// sortedTallies returns the tallies of w in ascending key order, in the
// processor's scratch space: valid until the next call. The window's own
// tallies stay in arrival order: with allowed lateness a fired window
// still takes events, and its index must stay valid.
func (p *Processor) sortedTallies(w *window) []keyTally {
	switch w.first.count {
	case noKeys:
		return p.reuse.sorted[:0]
	case manyKeys: // its keys are in more(), below
	default:
		p.reuse.sorted = append(p.reuse.sorted[:0], w.first)
		return p.reuse.sorted
	}
	tallies := w.more().tallies
	p.reuse.order = sortKeys(p.reuse.order[:0], tallies)
	sorted, mask := p.reuse.sorted[:0], indexMask(len(tallies))
	for _, o := range p.reuse.order {
		sorted = append(sorted, tallies[o&mask])
	}
	p.reuse.sorted = sorted
	return sorted
}

// sortKeys appends to order one word per tally, its index in tallies in
// the low bits (indexMask), and returns them sorted by the tallies' keys
// in ascending byte order, as strings.Compare orders them.
//
// Sorting the tallies themselves moves 32 bytes holding a string per
// swap, each move under the garbage collector's write barrier while it
// runs; a word holds no pointer and compares in one instruction. The
// bits above the index are the top bits of the key's first 8 bytes, big
// endian and zero-padded (keyPrefix). Where two words' prefixes differ,
// the keys are in the same order: the first byte that differs decides
// both, and where one key has ended, its zero padding is below the other
// key's byte, or, if that byte is zero too, the prefixes do not differ
// there. Keys whose prefixes are equal, a run of words after the sort,
// are then ordered by comparing the keys whole.
func sortKeys(order []uint64, tallies []keyTally) []uint64 {
	mask := indexMask(len(tallies))
	for i, t := range tallies {
		order = append(order, keyPrefix(t.key)&^mask|uint64(i))
	}
	slices.Sort(order)
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j]&^mask == order[i]&^mask {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], func(a, b uint64) int {
				return strings.Compare(tallies[a&mask].key, tallies[b&mask].key)
			})
		}
		i = j
	}
	return order
}

// indexMask is the mask of the low bits of a word of sortKeys that hold
// an index into n tallies: as few as fit n, so that the rest hold as much
// of the key as they can.
func indexMask(n int) uint64 {
	return 1<<bits.Len(uint(n-1)) - 1
}

// keyPrefix returns the first 8 bytes of key as a big-endian number,
// zero-padded if key is shorter: a larger prefix is a larger key.
func keyPrefix(key string) uint64 {
	if len(key) >= 8 {
		return uint64(key[0])<<56 | uint64(key[1])<<48 | uint64(key[2])<<40 | uint64(key[3])<<32 |
			uint64(key[4])<<24 | uint64(key[5])<<16 | uint64(key[6])<<8 | uint64(key[7])
	}
	var x uint64
	for i := range len(key) {
		x |= uint64(key[i]) << (56 - 8*i)
	}
	return x
}
