//go:build !fast

package solutions

import (
	"container/heap"
	"slices"
)

// expiryQueue holds the IDs a Processor with a seen TTL remembers, as a
// min-heap by expiry (container/heap): every ID in the processor's seen set,
// once. It is the event-time timer service of Flink's keyed state: a timer
// per entry, fired by the watermark.
//
// This is the plain build's. The tuned build (-tags fast,
// expiryqueue_fast.go) has a twin with the same methods whose heap holds no
// pointers and boxes nothing; seenttl.go uses only those methods (and
// redelivery-extends-life, a mutant of the plain build, the slice itself).
type expiryQueue []idExpiry

// Len, Less, Swap, Push and Pop make q a heap.Interface for container/heap;
// seenttl.go calls Len and the lower-case methods below.
func (q expiryQueue) Len() int { return len(q) }
func (q expiryQueue) Less(i, j int) bool {
	return q[i].expiry < q[j].expiry
}
func (q expiryQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *expiryQueue) Push(x any)   { *q = append(*q, x.(idExpiry)) }
func (q *expiryQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = idExpiry{} // the ID's string is the garbage collector's now
	*q = old[:len(old)-1]
	return x
}

// push schedules id to be forgotten when the watermark reaches expiry.
func (q *expiryQueue) push(expiry int64, id string) {
	heap.Push(q, idExpiry{expiry: expiry, id: id})
}

// soonest returns the smallest expiry in q, which must not be empty: the
// next watermark that forgets an ID.
func (q expiryQueue) soonest() int64 {
	return q[0].expiry
}

// forgetSoonest takes the ID with the smallest expiry off q and removes it
// from seen. Of IDs with equal expiries it may take any: the watermark that
// reaches one reaches them all.
func (q *expiryQueue) forgetSoonest(seen idSet) {
	seen.remove(heap.Pop(q).(idExpiry).id)
}

// all returns every entry of q, in no particular order, in a slice of its
// own: the snapshot sorts it.
func (q expiryQueue) all() []idExpiry {
	return slices.Clone(q)
}

// newExpiryQueue returns an empty queue with room for n IDs.
func newExpiryQueue(n int) expiryQueue {
	return make(expiryQueue, 0, n)
}

// appendBytes adds id, which a decoder holds as bytes, with its expiry,
// without restoring the heap order: a restore appends every ID, then calls
// init once, which costs O(n) where n pushes would cost O(n log n).
func (q *expiryQueue) appendBytes(expiry int64, id []byte) {
	*q = append(*q, idExpiry{expiry: expiry, id: string(id)})
}

// init puts the entries appendBytes added into heap order.
func (q *expiryQueue) init() {
	heap.Init(q)
}
