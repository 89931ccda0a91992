//go:build fast

package solutions

// batchPool hands RunParallel's router the slices it fills with elements
// for a worker, and takes them back from the workers once drained, as
// Flink's network stack recycles its buffers: the memory in flight stays a
// few batches per worker, however long the stream. batchpool.go has the
// plain version, with the same names.
type batchPool[K comparable, T any] struct {
	free chan []keyedElem[K, T]
}

// newBatchPool returns the pool for a run with the given number of workers:
// room for a few drained batches per worker.
func newBatchPool[K comparable, T any](workers int) batchPool[K, T] {
	return batchPool[K, T]{free: make(chan []keyedElem[K, T], 4*workers)}
}

// get returns an empty batch with room for routeBatch elements: a
// recycled one if a worker has handed one back.
func (b batchPool[K, T]) get() []keyedElem[K, T] {
	select {
	case batch := <-b.free:
		return batch
	default:
		return make([]keyedElem[K, T], 0, routeBatch)
	}
}

// put takes back a batch a worker has drained, unless the pool is full.
// Called by the workers, concurrently: the channel is the only thing they
// share.
func (b batchPool[K, T]) put(batch []keyedElem[K, T]) {
	clear(batch) // drop the references, so recycled memory keeps nothing alive
	select {
	case b.free <- batch[:0]:
	default:
	}
}
