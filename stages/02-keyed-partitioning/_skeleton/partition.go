package lab

// PartitionOf returns the worker, in [0, n), that owns key among n workers:
// kit.StableHash(key) modulo n, computed in uint64 and then converted to int.
//
// Never use hash/maphash or the order of a Go map here: both are seeded per
// process, so a key would land on another worker after a restart. PartitionOf
// panics with a clear message of your own (not a runtime error such as a
// division by zero) if n < 1.
func PartitionOf(key any, n int) int {
	panic("TODO: return kit.StableHash(key) % n as an int; panic if n < 1")
}

// WorkerAssignment returns, for each distinct key in keys, the worker that
// owns it among n workers: PartitionOf(key, n), in a new map that the
// caller owns. Duplicate keys give one entry. It panics with a clear
// message if n < 1.
func WorkerAssignment[K comparable](keys []K, n int) map[K]int {
	panic("TODO: map every key to PartitionOf(key, n); panic if n < 1")
}
