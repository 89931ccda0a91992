//go:build lab

package keyedpartitioning

import impl "github.com/flk-byo/course/lab"

// The stage 02 API, bound to impl: package lab under -tags lab, package solutions under -tags solution.
// Generic functions cannot be aliased, so they are wrapped.

type (
	Stream[T any]                    = impl.Stream[T]
	KeyedStream[K comparable, T any] = impl.KeyedStream[K, T]
	KeyedResult[K comparable, T any] = impl.KeyedResult[K, T]
)

var PartitionOf = impl.PartitionOf

func WorkerAssignment[K comparable](keys []K, n int) map[K]int {
	return impl.WorkerAssignment(keys, n)
}

func FromSlice[T any](xs []T) *Stream[T] { return impl.FromSlice(xs) }

func Map[T, U any](s *Stream[T], f func(T) U) *Stream[U] { return impl.Map(s, f) }

func Filter[T any](s *Stream[T], keep func(T) bool) *Stream[T] { return impl.Filter(s, keep) }

func KeyBy[T any, K comparable](s *Stream[T], key func(T) K) *KeyedStream[K, T] {
	return impl.KeyBy(s, key)
}

func RunParallel[K comparable, T any](r *KeyedResult[K, T]) map[K]T { return impl.RunParallel(r) }
