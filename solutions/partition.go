package solutions

import (
	"fmt"

	"github.com/flk-byo/course/kit"
)

// PartitionOf returns the worker, in [0, n), that owns key among n workers:
// kit.StableHash(key) modulo n. It panics if n < 1, and (through
// kit.StableHash) if key is not of a supported key type.
//
// The hash must be a function of the key's value alone. Go's own hashes
// (hash/maphash, the runtime's map hash) are seeded per process, so a key
// routed with them would land on another worker after a restart, where its
// state is not. StableHash gives the same number in every process.
func PartitionOf(key any, n int) int {
	if n < 1 {
		panic(fmt.Sprintf("PartitionOf: the number of partitions must be at least 1, got %d", n))
	}
	// Reduce in uint64: converting the hash to int first could make it
	// negative, and a negative modulus is not a partition.
	return int(kit.StableHash(key) % uint64(n))
}

// WorkerAssignment returns, for each distinct key in keys, the worker that
// owns it among n workers: PartitionOf(key, n), in a new map the caller
// owns. Duplicate keys give one entry. It panics if n < 1, even when keys
// is empty.
func WorkerAssignment[K comparable](keys []K, n int) map[K]int {
	if n < 1 {
		panic(fmt.Sprintf("WorkerAssignment: the number of workers must be at least 1, got %d", n))
	}
	out := make(map[K]int, len(keys))
	for _, k := range keys {
		out[k] = PartitionOf(k, n)
	}
	return out
}
