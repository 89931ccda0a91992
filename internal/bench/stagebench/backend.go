package stagebench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/kit"
)

// Backend is a stage-12 StateBackend as the benchmarks hold it: they hand
// it to NewBackendProcessor and close it.
type Backend interface{ Close() error }

// BackendProcessor is the part of stage 12's BackendProcessor the
// benchmarks drive.
type BackendProcessor interface {
	Processor
	Checkpoint(dir string) error
}

// backendKinds are stage 12's two backends, in the order each turn runs
// them: the heap backend, the baseline, then Pebble.
var backendKinds = []string{"heap", "pebble"}

// openBackend opens a fresh backend of kind ("heap" or "pebble", the
// latter in a new temporary directory) and returns it with a function that
// closes it and removes its directory.
func openBackend(b testing.TB, api API, kind string) (Backend, func(testing.TB)) {
	if api.NewBackendProcessor == nil || api.NewHeapBackend == nil || api.OpenPebbleBackend == nil {
		b.Fatal("the backend benchmarks need stage 12's NewBackendProcessor, NewHeapBackend and OpenPebbleBackend")
	}
	if kind == "heap" {
		be := api.NewHeapBackend()
		return be, func(tb testing.TB) { closeBackend(tb, be) }
	}
	dir, err := os.MkdirTemp("", "de-bench-pebble-")
	if err != nil {
		b.Fatalf("making a directory for the Pebble backend: %v", err)
	}
	be, err := api.OpenPebbleBackend(dir, bench.PebbleBudget)
	if err != nil {
		os.RemoveAll(dir)
		b.Fatalf("OpenPebbleBackend(%q, %d): %v", dir, bench.PebbleBudget, err)
	}
	return be, func(tb testing.TB) {
		closeBackend(tb, be)
		os.RemoveAll(dir)
	}
}

// closeBackend closes be, failing b on an error.
func closeBackend(b testing.TB, be Backend) {
	if err := be.Close(); err != nil {
		b.Fatalf("closing the backend: %v", err)
	}
}

// newBackendProcessor returns api.NewBackendProcessor(cfg, be), failing b
// on an error.
func newBackendProcessor(b testing.TB, api API, cfg Config, be Backend) BackendProcessor {
	p, err := api.NewBackendProcessor(cfg, be)
	if err != nil {
		b.Fatalf("NewBackendProcessor(%+v): %v", cfg, err)
	}
	return p
}

// BackendThroughput measures the price of a backend that can spill: it
// times, in turn within every iteration, a BackendProcessor on a fresh
// heap backend and one on a fresh Pebble backend, each taking the
// benchmark stream at n events (streamOf; 1 s windows, the stream's
// disorder as the delay, so windows fire as it goes) and a Flush.
// Opening and closing the backends is outside the time. It reports the
// median turn of each per event: cpu-ns/event on Pebble and
// heap-cpu-ns/event on the heap backend.
func BackendThroughput(b *testing.B, api API, n int) {
	events := streamOf(n)
	runtime.GC()
	cfg := Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}
	pass := func(kind string) func() time.Duration {
		return func() time.Duration {
			be, done := openBackend(b, api, kind)
			defer done(b)
			p := newBackendProcessor(b, api, cfg, be)
			start := cpuTime()
			for _, e := range events {
				sinkResults = p.Process(e)
			}
			sinkResults = p.Flush()
			return cpuTime() - start
		}
	}
	times := turns(b, pass(backendKinds[0]), pass(backendKinds[1]))
	b.ReportMetric(perItem(times[1], 1, len(events)), "cpu-ns/event")
	b.ReportMetric(perItem(times[0], 1, len(events)), "heap-cpu-ns/event")
}

// BackendMemory measures what spilling saves: in turn within every
// iteration, on a fresh heap backend and on a fresh Pebble backend, the
// growth of the live Go heap (after a collection) while a BackendProcessor
// opens bench.BackendWindows windows of bench.BackendKeys keys, none of
// which fires. The events are built before the first reading and kept to
// the last, so they do not count, and so is the backend: what grows is the
// state. It reports the median turn of each per window: live-B/window on
// Pebble and heap-live-B/window on the heap backend.
func BackendMemory(b *testing.B, api API) {
	events := heldEvents(0, bench.BackendWindows*bench.BackendKeys)
	pass := func(kind string) func() int64 {
		return func() int64 {
			be, done := openBackend(b, api, kind)
			defer done(b)
			p := newBackendProcessor(b, api, heldConfig(), be)
			before := liveHeap()
			for _, e := range events {
				sinkResults = p.Process(e)
			}
			grew := liveHeap() - before
			runtime.KeepAlive(p)
			return grew
		}
	}
	grew := medians(collect(b, pass(backendKinds[0]), pass(backendKinds[1])))
	b.ReportMetric(float64(grew[1])/bench.BackendWindows, "live-B/window")
	b.ReportMetric(float64(grew[0])/bench.BackendWindows, "heap-live-B/window")
	runtime.KeepAlive(events)
}

// BackendCheckpoint measures an incremental checkpoint: in turn within
// every iteration, on a fresh heap backend and on a fresh Pebble backend,
// a BackendProcessor takes bench.BackendIDs events over the windows of
// BackendMemory (none fires, so all stay in its state) and checkpoints,
// then bench.NextCheckpoints times takes bench.BackendChanged more and
// checkpoints again, each checkpoint into a new directory under a
// temporary one. It times the checkpoints in wall time, since a
// checkpoint's cost is largely waiting for the disk, and reports the
// median turn's first checkpoint as ms/checkpoint and the median of all
// the next ones as ms/next-checkpoint on Pebble, the same with heap- in
// front on the heap backend. Several next checkpoints, because one turn
// takes seconds (the events through a disk backend), so b.N is small.
func BackendCheckpoint(b *testing.B, api API) {
	pass := func(kind string) func() checkpointTurn {
		return func() checkpointTurn {
			s := newHeldState(b, api, kind)
			defer s.close(b)
			return s.turn(b)
		}
	}
	reportCheckpoints(b, collect(b, pass(backendKinds[0]), pass(backendKinds[1])))
}

// BackendCheckpointKept takes BackendCheckpoint's checkpoints from one
// state per backend kind, filled once per test binary (in the first turn
// that needs it) and kept between the samples of the benchmark, until Run
// or Measure lets go of it (releaseKept): filling a Pebble backend with
// bench.BackendIDs events takes seconds, and each sample of
// BackendCheckpoint pays it again on both backends. Its first checkpoint
// is therefore in the binary's first turn only, and ms/checkpoint is
// reported by that sample alone; every turn takes bench.NextCheckpoints
// next checkpoints, each after bench.BackendChanged more events, which is
// what an incremental checkpoint is about: a large state, a few keys
// changed. The turns still alternate heap and Pebble.
func BackendCheckpointKept(b *testing.B, api API) {
	pass := func(kind string) func() checkpointTurn {
		return func() checkpointTurn {
			s, ok := keptStates[kind]
			if !ok {
				s = newHeldState(b, api, kind)
				keptStates[kind] = s
			}
			return s.turn(b)
		}
	}
	reportCheckpoints(b, collect(b, pass(backendKinds[0]), pass(backendKinds[1])))
}

// checkpointTurn is what one pass of the checkpoint benchmarks measured:
// the first checkpoint of its state, if it took it (zero if not), and the
// next ones.
type checkpointTurn struct {
	first time.Duration
	next  []time.Duration
}

// reportCheckpoints reports the turns of each backend kind, in the order of
// backendKinds: the median first checkpoint (if a turn took one) as
// ms/checkpoint and the median of all the next ones as ms/next-checkpoint,
// with heap- in front for the heap backend.
func reportCheckpoints(b *testing.B, turnsOf [][]checkpointTurn) {
	for k, prefix := range []string{"heap-", ""} {
		var firsts, nexts []time.Duration
		for _, t := range turnsOf[k] {
			if t.first > 0 {
				firsts = append(firsts, t.first)
			}
			nexts = append(nexts, t.next...)
		}
		if len(firsts) > 0 {
			b.ReportMetric(milliseconds(median(firsts)), prefix+"ms/checkpoint")
		}
		b.ReportMetric(milliseconds(median(nexts)), prefix+"ms/next-checkpoint")
	}
}

// heldState is a BackendProcessor of heldConfig on a backend of its own
// and the heldEvents it has taken, for the checkpoint benchmarks.
type heldState struct {
	p     BackendProcessor
	fed   int              // the heldEvents it has taken
	first bool             // whether it has taken its first checkpoint
	close func(testing.TB) // closes the backend, failing the benchmark it is given on an error
}

// keptStates are BackendCheckpointKept's states, by backend kind, for the
// benchmark's samples in this test binary (see releaseKept).
var keptStates = map[string]*heldState{}

// releaseKept closes the states BackendCheckpointKept kept, and removes
// their directories: a Pebble backend left open would go on compacting in
// the benchmarks after it. A backend that does not close fails b, the
// benchmark still running: the one that opened it has finished, and
// failing a finished benchmark panics.
func releaseKept(b testing.TB) {
	for kind, s := range keptStates {
		s.close(b)
		delete(keptStates, kind)
	}
}

// newHeldState opens a fresh backend of kind and a BackendProcessor on it,
// which it hands bench.BackendIDs heldEvents: the state of the first
// checkpoint.
func newHeldState(b *testing.B, api API, kind string) *heldState {
	be, done := openBackend(b, api, kind)
	s := &heldState{p: newBackendProcessor(b, api, heldConfig(), be), close: done}
	s.take(heldEvents(0, bench.BackendIDs))
	return s
}

// take hands s.p events, which continue heldEvents from s.fed.
func (s *heldState) take(events []kit.Event) {
	for _, e := range events {
		sinkResults = s.p.Process(e)
	}
	s.fed += len(events)
}

// turn takes the checkpoints of one pass, each into a new directory under
// a temporary one that it removes after: the first checkpoint of s if it
// has not taken it, then bench.NextCheckpoints, each after
// bench.BackendChanged more events.
func (s *heldState) turn(b *testing.B) checkpointTurn {
	dir, err := os.MkdirTemp("", "de-bench-checkpoints-")
	if err != nil {
		b.Fatalf("making a directory for the checkpoints: %v", err)
	}
	defer os.RemoveAll(dir)
	var t checkpointTurn
	if !s.first {
		s.first = true
		t.first = timeCheckpoint(b, s.p, filepath.Join(dir, "first"))
	}
	for i := range bench.NextCheckpoints {
		s.take(heldEvents(s.fed, bench.BackendChanged))
		t.next = append(t.next, timeCheckpoint(b, s.p, filepath.Join(dir, fmt.Sprint(i+1))))
	}
	return t
}

// milliseconds returns d in milliseconds.
func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// timeCheckpoint returns the wall time p.Checkpoint(dir) takes, failing b
// on an error.
func timeCheckpoint(b *testing.B, p BackendProcessor, dir string) time.Duration {
	start := time.Now()
	if err := p.Checkpoint(dir); err != nil {
		b.Fatalf("Checkpoint(%q): %v", dir, err)
	}
	return time.Since(start)
}

// heldConfig is the config of the memory and checkpoint benchmarks:
// windows of 10 ms and a delay that no timestamp of heldEvents reaches,
// so that every window stays open.
func heldConfig() Config { return Config{WindowSize: 10, WatermarkDelay: 1 << 40} }

// heldEvents returns n events from the from-th on of a stream that spreads
// its events over bench.BackendWindows windows of heldConfig, round robin,
// and bench.BackendKeys keys: the first BackendWindows × BackendKeys open
// each (window, key) once, the rest add to them. Each ID is distinct.
func heldEvents(from, n int) []kit.Event {
	events := make([]kit.Event, n)
	for j := range events {
		i := from + j
		w := i % bench.BackendWindows
		events[j] = kit.Event{ID: fmt.Sprintf("id-%09d", i), Key: fmt.Sprintf("key-%03d", (i/bench.BackendWindows)%bench.BackendKeys), TS: int64(-10 * w), Value: 1}
	}
	return events
}

// liveHeap returns the bytes of live objects on the Go heap, after a
// collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
