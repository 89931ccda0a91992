//go:build solution

package pebblestate_test

import (
	"testing"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// backendAPI is the reference's stage 12 API, as stagebench calls it: the
// processor and heap backend of package solutions, and this package's
// Pebble backend.
var backendAPI = stagebench.API{
	NewBackendProcessor: func(c stagebench.Config, be stagebench.Backend) (stagebench.BackendProcessor, error) {
		return solutions.NewBackendProcessor(solutions.Config(c), be.(solutions.StateBackend))
	},
	NewHeapBackend: func() stagebench.Backend { return solutions.NewHeapBackend() },
	OpenPebbleBackend: func(dir string, budget int64) (stagebench.Backend, error) {
		return pebblestate.OpenPebbleBackend(dir, budget)
	},
}

// BenchmarkBackends measures the lesson of stage 12 on the reference
// alone: de bench's stage 12 benchmarks (package stagebench), which run
// the same BackendProcessor on the heap backend and on Pebble, in turn
// within every iteration, and report each: backend-throughput the CPU time
// per event over 20 000 events with windows firing as they go (events/s is
// 1e9 over it), backend-memory the Go heap that 200 open windows of 50
// keys take, per window (live bytes after a collection), and
// backend-checkpoint the wall time of a checkpoint of 100 000 seen IDs and
// those windows, then of the next one after 100 new events: a heap backend
// copies everything each time, Pebble's checkpoint links what has not
// changed. Pebble's numbers are plain, the heap backend's have heap- in
// front. These are de bench --full's stage 12 benchmarks: the quick run's
// shorter ones (a kept checkpoint state, 5 000 events) measure the same
// things at less cost. It lives here, beside the Pebble backend, so that package
// solutions' own test binary does not link Pebble.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkBackends$' ./solutions/pebblestate
func BenchmarkBackends(b *testing.B) {
	for _, bm := range bench.Benchmarks {
		if bm.Stage == 12 && bm.In(true) {
			b.Run(bm.Name, func(b *testing.B) { stagebench.Measure(b, bm, backendAPI) })
		}
	}
}
