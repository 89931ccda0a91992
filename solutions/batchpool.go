//go:build !fast

package solutions

// batchPool hands RunParallel's router the slices it fills with elements
// for a worker. In the plain build it makes a new one every time and lets
// the garbage collector take each drained batch; the tuned build (-tags
// fast, batchpool_fast.go) recycles them.
type batchPool[K comparable, T any] struct{}

// newBatchPool returns the pool for a run with the given number of workers.
func newBatchPool[K comparable, T any](workers int) batchPool[K, T] {
	return batchPool[K, T]{}
}

// get returns an empty batch with room for routeBatch elements.
func (batchPool[K, T]) get() []keyedElem[K, T] {
	return make([]keyedElem[K, T], 0, routeBatch)
}

// put takes back a batch a worker has drained.
func (batchPool[K, T]) put([]keyedElem[K, T]) {}
