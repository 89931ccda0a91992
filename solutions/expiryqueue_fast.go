//go:build fast

package solutions

// expiryQueue holds the IDs a Processor with a seen TTL remembers, as a
// min-heap by expiry: every ID in the processor's seen set, once. This is
// the tuned build's (go build -tags fast); expiryqueue.go has the plain
// one, container/heap over a slice of (expiry, ID string), with the same
// methods.
//
// The plain heap costs most where the garbage collector runs often (a small
// heap, so short cycles close together): during a cycle every swap of an
// entry that holds a string pointer takes a write barrier, and
// container/heap boxes every entry it pushes and pops, an allocation each.
// Here the heap's entries hold no pointers, so moving them is a plain copy
// the collector never sees, nothing is boxed, and the collector never scans
// the heap either:
//   - an ID of up to maxInlineID bytes, the common case, is in its entry,
//     inline as seen_fast.go keeps it, and forgetting it removes that
//     inlineID from the seen table directly, with no string in between;
//   - a longer ID is held once in long, a slab of strings with a free list,
//     and its entry holds its index there. Entries move, the strings do not.
//
// The heap is 4-ary, hand-written: half the levels of a binary heap, so a
// pop, which sifts the last entry down from the root, takes half the steps,
// each comparing four children that sit in one or two cache lines.
//
// The zero expiryQueue is an empty queue.
type expiryQueue struct {
	heap []expiryEntry // a 4-ary min-heap by expiry: entry i's children are 4i+1 to 4i+4
	long []string      // the IDs longer than maxInlineID, by index; "" is a free index
	free []uint32      // the free indices of long
}

// expiryEntry is one remembered ID in the heap: its expiry, and the ID
// inline, or, for a long ID, an index into the queue's slab.
type expiryEntry struct {
	expiry int64
	// id is the ID's inlineID, whose byte 0 (its length plus one) is never
	// 0; or, with byte 0 zero, a long ID whose index in long is id.lo >> 8.
	id inlineID
}

// longEntry returns the entry of a long ID at index i of the slab.
func longEntry(expiry int64, i uint32) expiryEntry {
	return expiryEntry{expiry: expiry, id: inlineID{lo: uint64(i) << 8}}
}

// longIndex returns the slab index of e's ID and true if it is a long one.
func (e expiryEntry) longIndex() (uint32, bool) {
	return uint32(e.id.lo >> 8), byte(e.id.lo) == 0
}

// Len returns the number of IDs in q.
func (q *expiryQueue) Len() int { return len(q.heap) }

// push schedules id to be forgotten when the watermark reaches expiry.
func (q *expiryQueue) push(expiry int64, id string) {
	if len(id) <= maxInlineID {
		q.insert(expiryEntry{expiry: expiry, id: inline(id)})
		return
	}
	q.insert(longEntry(expiry, q.hold(id)))
}

// hold puts a long ID into the slab and returns its index: a free one if
// there is one.
func (q *expiryQueue) hold(id string) uint32 {
	if n := len(q.free); n > 0 {
		i := q.free[n-1]
		q.free = q.free[:n-1]
		q.long[i] = id
		return i
	}
	q.long = append(q.long, id)
	return uint32(len(q.long) - 1)
}

// insert adds e to the heap: it goes to the end, then up past every parent
// with a later expiry. Each parent passed moves down into the hole, one
// copy rather than a swap's two. Expiries mostly arrive in ascending order
// (a timestamp plus a constant TTL), so that usually stops at once.
func (q *expiryQueue) insert(e expiryEntry) {
	h := append(q.heap, e)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if h[parent].expiry <= e.expiry {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = e
	q.heap = h
}

// soonest returns the smallest expiry in q, which must not be empty: the
// next watermark that forgets an ID.
func (q *expiryQueue) soonest() int64 {
	return q.heap[0].expiry
}

// forgetSoonest takes the ID with the smallest expiry off q and removes it
// from seen. Of IDs with equal expiries it may take any: the watermark that
// reaches one reaches them all.
func (q *expiryQueue) forgetSoonest(seen idSet) {
	h := q.heap
	e := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	q.heap = h
	if len(h) > 0 {
		q.down(0, last)
	}
	i, long := e.longIndex()
	if !long {
		seen.t.remove(e.id)
		return
	}
	seen.remove(q.long[i])
	q.long[i] = "" // the ID's string is the garbage collector's now
	q.free = append(q.free, i)
}

// down puts e at index i, the hole, or below it: the hole moves down to
// its child with the smallest expiry while that is earlier than e's.
func (q *expiryQueue) down(i int, e expiryEntry) {
	h := q.heap
	n := len(h)
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		// The child with the smallest expiry, of up to four.
		c := first
		for j := first + 1; j < min(first+4, n); j++ {
			if h[j].expiry < h[c].expiry {
				c = j
			}
		}
		if e.expiry <= h[c].expiry {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

// all returns every entry of q, in no particular order, in a slice of its
// own: the snapshot sorts it. The inline IDs become strings all at once
// (stringsOf), as idSet.sorted makes them.
func (q *expiryQueue) all() []idExpiry {
	var short []inlineID
	for _, e := range q.heap {
		if _, long := e.longIndex(); !long {
			short = append(short, e.id)
		}
	}
	ids := stringsOf(short)
	out := make([]idExpiry, len(q.heap))
	for k, e := range q.heap {
		if i, long := e.longIndex(); long {
			out[k] = idExpiry{expiry: e.expiry, id: q.long[i]}
			continue
		}
		out[k] = idExpiry{expiry: e.expiry, id: ids[0]}
		ids = ids[1:]
	}
	return out
}

// newExpiryQueue returns an empty queue with room for n IDs.
func newExpiryQueue(n int) expiryQueue {
	return expiryQueue{heap: make([]expiryEntry, 0, n)}
}

// appendBytes adds id, which a decoder holds as bytes, with its expiry,
// without restoring the heap order: a restore appends every ID, then calls
// init once, which costs O(n) where n pushes would cost O(n log n). An
// inline ID is copied into its entry, with no string allocated for it.
func (q *expiryQueue) appendBytes(expiry int64, id []byte) {
	if len(id) <= maxInlineID {
		q.heap = append(q.heap, expiryEntry{expiry: expiry, id: inline(id)})
		return
	}
	q.heap = append(q.heap, longEntry(expiry, q.hold(string(id))))
}

// init puts the entries appendBytes added into heap order: each parent,
// the last first, sifts down into the heap below it, already in order.
func (q *expiryQueue) init() {
	if len(q.heap) < 2 {
		return // in order already; and for an empty heap (0-2)/4 is 0, an entry it does not have
	}
	for i := (len(q.heap) - 2) / 4; i >= 0; i-- {
		q.down(i, q.heap[i])
	}
}
