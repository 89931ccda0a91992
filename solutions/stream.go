package solutions

import (
	"fmt"
	"maps"
	"sync"
)

// Stream is a bounded stream of elements of type T: the start of a chain
// FromSlice → Map / Filter → KeyBy → Reduce → RunParallel. A Stream is
// never modified once built; every step returns a new one.
type Stream[T any] struct {
	elems []T
}

// FromSlice returns a stream of the elements of xs, in order. It copies xs,
// so changing xs afterwards does not change the stream.
func FromSlice[T any](xs []T) *Stream[T] {
	return &Stream[T]{elems: append([]T(nil), xs...)}
}

// Map returns a new stream of f(x) for every element x of s, in order, and
// leaves s as it was. It is a function, not a method, because a Go method
// cannot introduce the new type parameter U.
func Map[T, U any](s *Stream[T], f func(T) U) *Stream[U] {
	out := make([]U, len(s.elems))
	for i, x := range s.elems {
		out[i] = f(x)
	}
	return &Stream[U]{elems: out}
}

// Filter returns a new stream of the elements x of s for which keep(x) is
// true, in order, and leaves s as it was.
func Filter[T any](s *Stream[T], keep func(T) bool) *Stream[T] {
	// A new slice, not the in-place idiom s.elems[:0]: that would write the
	// kept elements over the stream the caller still holds.
	var out []T
	for _, x := range s.elems {
		if keep(x) {
			out = append(out, x)
		}
	}
	return &Stream[T]{elems: out}
}

// Collect returns the elements of s, in order, in a slice the caller owns.
func (s *Stream[T]) Collect() []T {
	return append([]T(nil), s.elems...)
}

// KeyedStream is a stream whose elements are grouped by a key, Flink's
// KeyedStream: every later per-key operation sees all the elements of a
// key, and only those.
type KeyedStream[K comparable, T any] struct {
	src *Stream[T]
	key func(T) K
}

// KeyBy groups the elements of s by key(x). key must be a pure function of
// the element, and K a type kit.StableHash supports, since the key decides
// which worker an element goes to.
func KeyBy[T any, K comparable](s *Stream[T], key func(T) K) *KeyedStream[K, T] {
	return &KeyedStream[K, T]{src: s, key: key}
}

// Reduce plans a rolling per-key reduction on parallelism workers; nothing
// runs until RunParallel. For each key the first element is the initial
// accumulator and fn(acc, v) folds in each later element v, in stream
// order. fn is called concurrently for keys on different workers, so it
// must not touch shared state without synchronisation. Reduce panics if
// parallelism < 1.
func (k *KeyedStream[K, T]) Reduce(fn func(acc, v T) T, parallelism int) *KeyedResult[K, T] {
	if parallelism < 1 {
		panic(fmt.Sprintf("Reduce: parallelism must be at least 1, got %d", parallelism))
	}
	return &KeyedResult[K, T]{keyed: k, fn: fn, parallelism: parallelism}
}

// KeyedResult is a planned keyed reduction, run by RunParallel.
type KeyedResult[K comparable, T any] struct {
	keyed       *KeyedStream[K, T]
	fn          func(acc, v T) T
	parallelism int
}

// routeBatch is how many elements the router gathers for one worker before
// sending them down that worker's channel. One channel operation per batch
// rather than per element keeps the single router from becoming the
// bottleneck of the workers it feeds.
const routeBatch = 256

// keyedElem is an element travelling to its worker with its key, so that
// the key function runs once per element, in the router.
type keyedElem[K comparable, T any] struct {
	key K
	val T
}

// RunParallel runs the reduction r planned and returns the final
// accumulator of every key, in a new map on every call (the caller's to
// edit; running r again gives the same result). It starts r's parallelism worker goroutines,
// each fed by its own channel; a router (the calling goroutine) sends every
// element to worker PartitionOf(key, parallelism), so all the elements of a
// key meet on one worker, which folds them into state only it touches.
// Channels are FIFO, so each key is folded in stream order and the result
// equals a sequential per-key fold for any parallelism, even for an fn that
// is not commutative.
func RunParallel[K comparable, T any](r *KeyedResult[K, T]) map[K]T {
	p := r.parallelism
	inputs := make([]chan []keyedElem[K, T], p)
	partials := make([]map[K]T, p) // partials[i] belongs to worker i alone
	batches := newBatchPool[K, T](p)
	var wg sync.WaitGroup
	for i := range p {
		inputs[i] = make(chan []keyedElem[K, T], 2)
		partials[i] = make(map[K]T)
		wg.Go(func() { reduceWorker(inputs[i], batches, partials[i], r.fn) })
	}

	// Route. Hashing a key is far slower than a map lookup, so each distinct
	// key is hashed once; the cache is the router's own, no lock needed.
	owner := make(map[K]int)
	pending := make([][]keyedElem[K, T], p)
	for _, v := range r.keyed.src.elems {
		k := r.keyed.key(v)
		w, ok := owner[k]
		if !ok {
			w = PartitionOf(k, p)
			owner[k] = w
		}
		pending[w] = append(pending[w], keyedElem[K, T]{key: k, val: v})
		if len(pending[w]) == routeBatch {
			inputs[w] <- pending[w]
			pending[w] = batches.get() // the worker owns the sent batch now
		}
	}
	for w, batch := range pending {
		if len(batch) > 0 {
			inputs[w] <- batch
		}
		close(inputs[w]) // end of input: the worker drains and returns
	}

	// wg.Wait orders every worker's writes before the reads below. The
	// partials have disjoint keys, each key having exactly one owner, so
	// merging is a plain copy.
	wg.Wait()
	out := make(map[K]T, len(owner))
	for _, part := range partials {
		maps.Copy(out, part)
	}
	return out
}

// reduceWorker folds every element arriving on in into acc, the worker's
// own state: the first element of a key becomes its accumulator, each later
// one is folded in with fn. It gives each drained batch back to batches and
// returns when in is closed and drained.
func reduceWorker[K comparable, T any](in <-chan []keyedElem[K, T], batches batchPool[K, T], acc map[K]T, fn func(acc, v T) T) {
	for batch := range in {
		for _, e := range batch {
			if cur, ok := acc[e.key]; ok {
				acc[e.key] = fn(cur, e.val)
			} else {
				acc[e.key] = e.val
			}
		}
		batches.put(batch)
	}
}
