package lab

// Stream is a bounded stream of elements of type T: the start of a chain
// FromSlice → Map / Filter → KeyBy → Reduce → RunParallel. A Stream owns its
// elements and is never modified once built: every step returns a new one,
// and a stream can be read (collected, mapped, reduced) any number of times.
type Stream[T any] struct {
	// TODO: your fields here
}

// FromSlice returns a stream of the elements of xs, in order. It copies
// xs: the caller may reuse or edit its slice at once, and the stream does
// not change.
func FromSlice[T any](xs []T) *Stream[T] {
	panic("TODO: build a stream holding the elements of xs")
}

// Map returns a new stream of f(x) for every element x of s, in order, and
// leaves s as it was. It is a function, not a method, because a Go method
// cannot introduce the new type parameter U.
func Map[T, U any](s *Stream[T], f func(T) U) *Stream[U] {
	panic("TODO: return the stream of f(x) for each x of s")
}

// Filter returns a new stream of the elements x of s for which keep(x) is
// true, in order, and leaves s as it was.
func Filter[T any](s *Stream[T], keep func(T) bool) *Stream[T] {
	panic("TODO: return the stream of the elements of s that keep accepts")
}

// Collect returns the elements of s, in order, in a new slice on every
// call: the caller owns it, and editing it changes nothing in s.
func (s *Stream[T]) Collect() []T {
	panic("TODO: return the elements of s, in order")
}

// KeyedStream is a stream whose elements are grouped by a key, like Flink's
// KeyedStream: every later per-key operation sees all the elements of a key,
// and only those.
type KeyedStream[K comparable, T any] struct {
	// TODO: your fields here
}

// KeyBy groups the elements of s by key(x). key is a pure function of the
// element, and K a type kit.StableHash supports (string, bool, integers, or
// arrays and structs of those), since the key decides the worker.
func KeyBy[T any, K comparable](s *Stream[T], key func(T) K) *KeyedStream[K, T] {
	panic("TODO: remember s and key")
}

// Reduce plans a rolling per-key reduction on parallelism workers; nothing
// needs to run until RunParallel, which may run the plan any number of
// times. For each key the first element is the
// initial accumulator (fn is not called for it) and fn(acc, v) folds in each
// later element v, in stream order. If parallelism < 1, Reduce (or
// RunParallel, at the latest) panics with a clear message of your own, not a
// runtime error.
func (k *KeyedStream[K, T]) Reduce(fn func(acc, v T) T, parallelism int) *KeyedResult[K, T] {
	panic("TODO: remember the keyed stream, fn and parallelism")
}

// KeyedResult is a planned keyed reduction, run by RunParallel.
type KeyedResult[K comparable, T any] struct {
	// TODO: your fields here
}

// RunParallel runs the reduction r planned and returns the final accumulator
// of every key, in a new map on every call: the caller owns it, and editing
// it changes no later run.
//
// It runs on exactly parallelism worker goroutines, each fed by a channel:
// every element goes to worker PartitionOf(key, parallelism), and each worker
// folds its own keys into state that no other worker touches (no shared map
// without a lock). fn is therefore called only on worker goroutines, never
// on the caller's, and all the calls for one key are on one worker. The
// results of all workers are merged into one map once they have finished.
// For any parallelism the result equals a sequential per-key fold of the
// stream, even for an fn that is not commutative.
func RunParallel[K comparable, T any](r *KeyedResult[K, T]) map[K]T {
	panic("TODO: start the workers, route every element to its worker, merge their results")
}
