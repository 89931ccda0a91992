//go:build solution

package solutions

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// benchBudget is the Pebble budget of BenchmarkBackends: 8 MiB.
const benchBudget = 8 << 20

// benchBackends are the two backends of stage 12, each opened fresh in a
// directory of its own.
var benchBackends = []struct {
	name string
	open func(b *testing.B) StateBackend
}{
	{"heap", func(*testing.B) StateBackend { return NewHeapBackend() }},
	{"pebble", func(b *testing.B) StateBackend {
		pb, err := OpenPebbleBackend(filepath.Join(b.TempDir(), "live"), benchBudget)
		if err != nil {
			b.Fatal(err)
		}
		return pb
	}},
}

// BenchmarkBackends measures the lesson of stage 12, heap against disk in
// one run, on the same BackendProcessor. throughput processes the first
// 20 000 events of the benchmark stream, windows firing as they go
// (ns/event; events/s is 1e9 over it). open-windows holds 200 windows of
// 50 keys each open and reports heap-B/window, the Go heap they take
// (runtime.MemStats after a GC). checkpoint times a checkpoint of 100 000
// seen IDs and those windows (ns/checkpoint), then one more after 100 new
// events (ns/next-checkpoint): a heap backend copies everything each time,
// Pebble's checkpoint links what has not changed.
//
//	go test -tags solution -run '^$' -bench '^BenchmarkBackends$' -benchtime 3x ./solutions
func BenchmarkBackends(b *testing.B) {
	events := stagebench.BenchmarkStream()[:20_000]
	cfg := Config{WindowSize: benchWindow, WatermarkDelay: kit.BenchmarkDisorder}
	for _, kind := range benchBackends {
		b.Run("throughput/"+kind.name, func(b *testing.B) {
			b.ReportAllocs()
			var backends []StateBackend
			cost := stagebench.Loop(b, func() {
				be := kind.open(b)
				backends = append(backends, be)
				p, err := NewBackendProcessor(cfg, be)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range events {
					sinkResults = p.Process(e)
				}
				sinkResults = p.Flush()
			})
			for _, be := range backends {
				be.Close()
			}
			perEvent(b, cost, len(events))
		})
	}
	const windows, keys, ids = 200, 50, 100_000
	held := Config{WindowSize: 10, WatermarkDelay: 1 << 40} // nothing fires
	fill := func(p *BackendProcessor, from, n int) {
		for i := from; i < from+n; i++ {
			w := i % windows
			p.Process(kit.Event{ID: fmt.Sprintf("id-%09d", i), Key: fmt.Sprintf("key-%03d", (i/windows)%keys), TS: int64(-10 * w), Value: 1})
		}
	}
	for _, kind := range benchBackends {
		b.Run("open-windows/"+kind.name, func(b *testing.B) {
			var grew int64
			for range b.N {
				be := kind.open(b)
				p, err := NewBackendProcessor(held, be)
				if err != nil {
					b.Fatal(err)
				}
				before := liveHeap()
				fill(p, 0, windows*keys)
				grew += liveHeap() - before
				runtime.KeepAlive(p)
				be.Close()
			}
			b.ReportMetric(float64(grew)/float64(b.N*windows), "heap-B/window")
		})
		b.Run("checkpoint/"+kind.name, func(b *testing.B) {
			var first, next time.Duration
			for range b.N {
				be := kind.open(b)
				p, err := NewBackendProcessor(held, be)
				if err != nil {
					b.Fatal(err)
				}
				fill(p, 0, ids)
				dir := b.TempDir()
				first += timeCheckpoint(b, p, filepath.Join(dir, "1"))
				fill(p, ids, 100)
				next += timeCheckpoint(b, p, filepath.Join(dir, "2"))
				be.Close()
				os.RemoveAll(dir)
			}
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "ns/checkpoint")
			b.ReportMetric(float64(next.Nanoseconds())/float64(b.N), "ns/next-checkpoint")
		})
	}
}

// timeCheckpoint returns how long p.Checkpoint(dir) takes.
func timeCheckpoint(b *testing.B, p *BackendProcessor, dir string) time.Duration {
	start := time.Now()
	if err := p.Checkpoint(dir); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// liveHeap returns the bytes of live objects on the Go heap, after a
// collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
