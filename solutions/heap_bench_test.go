//go:build solution

package solutions

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/kit"
)

// heapEvents is how many events BenchmarkHeap gives each processor: enough
// that a map's last doubling is a small part of what is measured.
const heapEvents = 100_000

// BenchmarkHeap measures the live heap of a processor's state, not its
// speed: after runtime.GC, runtime.MemStats.HeapAlloc with the state held
// less without, the inputs (events, their IDs and key) allocated before
// and so excluded. A processor takes heapEvents events of one key,
//   - each in a window of its own, all open (the delay is longer than the
//     stream): one open window and one seen ID per event;
//   - all in one window: one seen ID per event.
//
// It reports bytes/seen-ID, the second over heapEvents, and
// bytes/open-window, the first less the second, over heapEvents: what an
// open window with one key and one event costs beyond its ID. For the
// reference, snapshot-bytes/window is the first state's snapshot, ID
// included, over heapEvents. naive is stagebench.NewNaive, the baseline.
func BenchmarkHeap(b *testing.B) {
	delay := int64(heapEvents+1) * benchWindow
	windowed, oneWindow := make([]kit.Event, heapEvents), make([]kit.Event, heapEvents)
	for i := range windowed {
		id := "e" + strconv.Itoa(i)
		windowed[i] = kit.Event{ID: id, Key: "k", TS: int64(i) * benchWindow, Value: 1}
		oneWindow[i] = kit.Event{ID: id, Key: "k", TS: 0, Value: 1}
	}
	subjects := []struct {
		name string
		new  func() stagebench.Processor
	}{
		{"naive", func() stagebench.Processor { return stagebench.NewNaive(benchWindow, delay) }},
		{"ref", func() stagebench.Processor {
			p, err := NewProcessor(Config{WindowSize: benchWindow, WatermarkDelay: delay})
			if err != nil {
				b.Fatal(err)
			}
			return p
		}},
	}
	for _, s := range subjects {
		b.Run(s.name, func(b *testing.B) {
			var perWindowAndID, perID float64
			var snap []byte
			for range b.N {
				p, bytes := heldBy(s.new, windowed)
				perWindowAndID = float64(bytes) / heapEvents
				if ref, ok := p.(*Processor); ok {
					var err error
					if snap, err = ref.Snapshot(); err != nil {
						b.Fatal(err)
					}
				}
				_, bytes = heldBy(s.new, oneWindow)
				perID = float64(bytes) / heapEvents
			}
			b.ReportMetric(perWindowAndID-perID, "bytes/open-window")
			b.ReportMetric(perID, "bytes/seen-ID")
			if snap != nil {
				b.ReportMetric(float64(len(snap))/heapEvents, "snapshot-bytes/window")
			}
		})
	}
}

// heldBy returns a new processor that has taken events and the bytes of
// live heap it holds: HeapAlloc after a collection, with it less before.
func heldBy(newProcessor func() stagebench.Processor, events []kit.Event) (stagebench.Processor, int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := newProcessor()
	for _, e := range events {
		sinkResults = p.Process(e)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	return p, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
