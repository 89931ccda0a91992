//go:build lab && !drillref

package engine

import impl "github.com/flk-byo/course/lab"

// The stage 02 API a drill's job and tests use, bound to the learner's package lab.

type (
	Stream[T any]                    = impl.Stream[T]
	KeyedStream[K comparable, T any] = impl.KeyedStream[K, T]
	KeyedResult[K comparable, T any] = impl.KeyedResult[K, T]
)

// PartitionOf returns the worker, in [0, n), that owns key among n workers.
var PartitionOf = impl.PartitionOf

// WorkerAssignment returns, for each distinct key, the worker that owns it among n workers.
func WorkerAssignment[K comparable](keys []K, n int) map[K]int {
	return impl.WorkerAssignment(keys, n)
}

// FromSlice returns a stream of the elements of xs, in order.
func FromSlice[T any](xs []T) *Stream[T] { return impl.FromSlice(xs) }

// Map returns a new stream of f(x) for every element x of s, in order.
func Map[T, U any](s *Stream[T], f func(T) U) *Stream[U] { return impl.Map(s, f) }

// Filter returns a new stream of the elements x of s for which keep(x) is true.
func Filter[T any](s *Stream[T], keep func(T) bool) *Stream[T] { return impl.Filter(s, keep) }

// KeyBy groups the elements of s by key(x).
func KeyBy[T any, K comparable](s *Stream[T], key func(T) K) *KeyedStream[K, T] {
	return impl.KeyBy(s, key)
}

// RunParallel runs the planned reduction and returns each key's final accumulator.
func RunParallel[K comparable, T any](r *KeyedResult[K, T]) map[K]T { return impl.RunParallel(r) }
