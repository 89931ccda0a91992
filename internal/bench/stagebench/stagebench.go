// Package stagebench holds the bodies of the benchmarks that de bench runs
// on a learner's lab/ and on the reference, and that solutions/bench_test.go
// runs on the reference alone.
//
// A body reaches the processor through API, a few functions over the stage
// API of the cards, so that the same code measures any implementation.
// de bench adds a small file to package lab and to package solutions (with
// go test -overlay) that fills API from the package's own NewProcessor,
// Snapshot and RestoreProcessor and calls Run for each stage the learner
// has reached; package bench's table says what each stage runs.
package stagebench

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// Processor is the part of a stage-01 Processor the benchmarks drive.
type Processor interface {
	Process(e kit.Event) []kit.Result
	Flush() []kit.Result
}

// Config is the cards' Config, field for field.
type Config struct {
	WindowSize, WatermarkDelay, AllowedLateness int64
}

// API is what the benchmarks call: a package's own stage functions. New is
// stage 01's NewProcessor; Snapshot and RestoreProcessor are stage 04's and
// may be nil before it; NewSliding is stage 09's NewSlidingProcessor, nil
// before it; NewSeenTTL is stage 10's NewSeenTTLProcessor, NewParallel
// stage 06's NewParallelProcessor and NewBroadcast stage 11's
// NewBroadcastProcessor, nil before them; NewBackendProcessor,
// NewHeapBackend and OpenPebbleBackend are
// stage 12's, nil before it (NewBackendProcessor is handed only backends
// that the other two returned).
type API struct {
	New                 func(Config) (Processor, error)
	Snapshot            func(Processor) ([]byte, error)
	Restore             func([]byte) (Processor, error)
	NewSliding          func(SlidingConfig) (Processor, error)
	NewSeenTTL          func(cfg Config, seenTTL int64) (SeenTTLProcessor, error)
	NewParallel         func(ParallelConfig) (Processor, error)
	NewBroadcast        func(ParallelConfig) (BroadcastProcessor, error)
	NewBackendProcessor func(Config, Backend) (BackendProcessor, error)
	NewHeapBackend      func() Backend
	OpenPebbleBackend   func(dir string, budget int64) (Backend, error)
}

// Run runs every benchmark of the table for stage, each as a sub-benchmark
// of b under its name. After each, it lets go of the million events of
// kit.BenchmarkStream, if that benchmark built them (releaseStream): the
// garbage collector would mark them in every cycle of the benchmarks after
// it, and the cost of a cycle would then swamp the pass it fell in.
func Run(b *testing.B, stage int, api API) {
	for _, bm := range bench.Benchmarks {
		if bm.Stage == stage {
			b.Run(bm.Name, func(b *testing.B) { Measure(b, bm, api) })
			releaseStream()
			releaseKept(b)
		}
	}
}

// Measure runs one benchmark of the table. A panic in the code under test
// fails the benchmark with Recover's message ("not implemented yet: TODO …"
// for a skeleton's body), so the benchmarks after it still run.
func Measure(b *testing.B, bm bench.Benchmark, api API) {
	defer suite.Recover(b)
	if bm.Kind != bench.BackendCheckpointKept {
		releaseKept(b) // a caller other than Run, such as BenchmarkBackends
	}
	switch bm.Kind {
	case bench.Throughput:
		Throughput(b, api, streamOf(bm.Subject.Events))
	case bench.Scaling:
		Scaling(b, api, bm.Baseline, bm.Subject)
	case bench.Baselines:
		Baselines(b, api, bm.Subject.Events)
	case bench.Snapshot:
		Snapshot(b, api, bm.Baseline, bm.Subject)
	case bench.Restore:
		Restore(b, api, bm.Baseline, bm.Subject)
	case bench.Sliding:
		Sliding(b, api, bm.Subject)
	case bench.SeenTTL:
		SeenTTL(b, api, bm.Subject)
	case bench.Broadcast:
		Broadcast(b, api, bm.Subject)
	case bench.BackendThroughput:
		BackendThroughput(b, api, bm.Subject.Events)
	case bench.BackendMemory:
		BackendMemory(b, api)
	case bench.BackendCheckpoint:
		BackendCheckpoint(b, api)
	case bench.BackendCheckpointKept:
		BackendCheckpointKept(b, api)
	default:
		b.Fatalf("unknown benchmark kind %d", bm.Kind)
	}
}

// Sinks keep the compiler from discarding what a benchmark computes.
var (
	sinkResults   []kit.Result
	sinkBytes     []byte
	sinkProcessor Processor
)

// newProcessor returns api.New(cfg), failing b on an error.
func newProcessor(b *testing.B, api API, cfg Config) Processor {
	p, err := api.New(cfg)
	if err != nil {
		b.Fatalf("NewProcessor(%+v): %v", cfg, err)
	}
	return p
}

// Throughput times a new processor (1 s windows, the stream's disorder as
// its delay) taking every event and a Flush, and reports ns/event and
// cpu-ns/event, allocs/event and state-allocs/event.
func Throughput(b *testing.B, api API, events []kit.Event) {
	b.ReportAllocs()
	cfg := Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}
	var emits uint64
	cost := Loop(b, func() {
		p := newProcessor(b, api, cfg)
		var out []kit.Result
		for _, e := range events {
			out = append(out[:0], p.Process(e)...)
			emits += uint64(min(len(out), 1))
		}
		sinkResults = append(out[:0], p.Flush()...)
		emits++
	})
	ReportPer(b, cost, len(events), "event")
	ReportAllocs(b, cost, len(events))
	ReportStateAllocs(b, cost, len(events), emits)
}

// Cost is what b.N passes of a benchmark's body took: the CPU time of the
// process (see cpuTime) and its heap allocations.
type Cost struct {
	CPU     time.Duration
	Mallocs uint64
}

// Loop runs body b.N times between b.ResetTimer and b.StopTimer and
// returns its cost. Whatever b's benchmark did before (generating data,
// building state) is outside the timed region.
func Loop(b *testing.B, body func()) Cost {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := cpuTime()
	for range b.N {
		body()
	}
	cpu := cpuTime() - start
	b.StopTimer()
	runtime.ReadMemStats(&after)
	return Cost{CPU: cpu, Mallocs: after.Mallocs - before.Mallocs}
}

// ReportPer reports the time of one of the n items (events, windows,
// entries) that each of b.N passes handled: wall time as ns/<item>, and
// the CPU time of cost as cpu-ns/<item>.
func ReportPer(b *testing.B, cost Cost, n int, item string) {
	b.ReportMetric(perItem(b.Elapsed(), b.N, n), "ns/"+item)
	b.ReportMetric(perItem(cost.CPU, b.N, n), "cpu-ns/"+item)
}

// ReportAllocs reports allocs/event: the allocations of b.N passes over n
// events, per event.
func ReportAllocs(b *testing.B, cost Cost, n int) {
	b.ReportMetric(float64(cost.Mallocs)/(float64(b.N)*float64(n)), "allocs/event")
}

// ReportStateAllocs reports the allocations of a processor's own state,
// state-allocs/event: all of them less one for each of the emits calls
// that returned results, since every non-empty []kit.Result returned is a
// new slice, the caller's to keep.
func ReportStateAllocs(b *testing.B, cost Cost, n int, emits uint64) {
	b.ReportMetric(float64(cost.Mallocs-min(cost.Mallocs, emits))/(float64(b.N)*float64(n)), "state-allocs/event")
}

// Scaling measures Process over the second half of the scaling stream
// with the baseline's and the subject's delay and lateness, in turn: the
// first half of each pass fills the state, so every event measured finds
// as many windows held as the shape keeps. It reports the CPU time of the
// subject's median pass as cpu-ns/event and the baseline's as
// baseline-cpu-ns/event.
func Scaling(b *testing.B, api API, baseline, subject bench.Shape) {
	events := scalingStream()
	half := len(events) / 2
	pass := func(shape bench.Shape) func() time.Duration {
		return func() time.Duration { return secondHalf(b, api, shape, events, half) }
	}
	base, subj := pairs(b, pass(baseline), pass(subject))
	b.ReportMetric(perItem(subj, 1, len(events)-half), "cpu-ns/event")
	b.ReportMetric(perItem(base, 1, len(events)-half), "baseline-cpu-ns/event")
}

// secondHalf runs the scaling stream through a new processor shaped by
// shape, then Flush, and returns the CPU time that the events from half
// on took.
func secondHalf(b *testing.B, api API, shape bench.Shape, events []kit.Event, half int) time.Duration {
	p := newProcessor(b, api, Config{
		WindowSize:      bench.ScalingWindow,
		WatermarkDelay:  shape.Delay * bench.ScalingWindow,
		AllowedLateness: shape.Lateness * bench.ScalingWindow,
	})
	for _, e := range events[:half] {
		sinkResults = p.Process(e)
	}
	start := cpuTime()
	for _, e := range events[half:] {
		sinkResults = p.Process(e)
	}
	spent := cpuTime() - start
	sinkResults = p.Flush()
	return spent
}

// Snapshot measures Snapshot of processors holding the baseline's and the
// subject's windows, in turn, and reports cpu-ns/window and bytes/window
// for the subject and the same with baseline- in front for the baseline.
func Snapshot(b *testing.B, api API, baseline, subject bench.Shape) {
	checkpoints(b, api, baseline, subject, func(st *checkpoint) {
		var err error
		if sinkBytes, err = api.Snapshot(st.p); err != nil {
			b.Fatalf("Snapshot of %d windows: %v", st.windows, err)
		}
	})
}

// Restore measures RestoreProcessor of the snapshots of those processors
// and reports the same metrics.
func Restore(b *testing.B, api API, baseline, subject bench.Shape) {
	checkpoints(b, api, baseline, subject, func(st *checkpoint) {
		var err error
		if sinkProcessor, err = api.Restore(st.snap); err != nil {
			b.Fatalf("RestoreProcessor of %d windows: %v", st.windows, err)
		}
	})
}

// checkpoints times op on the checkpoints of baseline and subject in turn,
// and reports the CPU time per window (the median turn's) and the
// snapshot's bytes per window of each. The smaller checkpoint's op runs as many times
// as it is smaller, so each turn handles as many windows of either.
func checkpoints(b *testing.B, api API, baseline, subject bench.Shape, op func(*checkpoint)) {
	small, large := checkpointOf(b, api, baseline.Windows), checkpointOf(b, api, subject.Windows)
	reps := max(1, large.windows/small.windows)
	timed := func(st *checkpoint, reps int) func() time.Duration {
		return func() time.Duration {
			start := cpuTime()
			for range reps {
				op(st)
			}
			return cpuTime() - start
		}
	}
	base, subj := pairs(b, timed(small, reps), timed(large, 1))
	b.ReportMetric(perItem(subj, 1, large.windows), "cpu-ns/window")
	b.ReportMetric(perItem(base, reps, small.windows), "baseline-cpu-ns/window")
	b.ReportMetric(float64(len(large.snap))/float64(large.windows), "bytes/window")
	b.ReportMetric(float64(len(small.snap))/float64(small.windows), "baseline-bytes/window")
}

// pairs runs baseline and subject in turn (see turns) and returns the
// median of the times each reported.
func pairs(b *testing.B, baseline, subject func() time.Duration) (base, subj time.Duration) {
	t := turns(b, baseline, subject)
	return t[0], t[1]
}

// turns runs every one of passes, in turn, b.N times, with b's timer on, so
// that go test sizes b.N by the cost of whole turns, and returns the
// median of the times each reported, in the order of passes. The median,
// because a busy machine stalls a pass now and then, and a stall counts
// fully in a sum: one stalled pass among ten would move a mean by half.
func turns(b *testing.B, passes ...func() time.Duration) []time.Duration {
	return medians(collect(b, passes...))
}

// collect runs every one of passes, in turn, b.N times, with b's timer on,
// and returns what each reported, in the order of passes: turns for
// measures other than a time, or several of them.
func collect[T any](b *testing.B, passes ...func() T) [][]T {
	samples := make([][]T, len(passes))
	for i := range samples {
		samples[i] = make([]T, b.N)
	}
	b.ResetTimer()
	for n := range b.N {
		for i, pass := range passes {
			samples[i][n] = pass()
		}
	}
	b.StopTimer()
	return samples
}

// measure is what a pass reports: a time, a count of bytes.
type measure interface{ ~int64 | ~float64 }

// medians returns the median of each of samples, which it sorts.
func medians[T measure](samples [][]T) []T {
	ms := make([]T, len(samples))
	for i, s := range samples {
		ms[i] = median(s)
	}
	return ms
}

// median returns the median of vs, which it sorts.
func median[T measure](vs []T) T {
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// perItem returns the nanoseconds that each of n items took in each of
// passes passes that took spent in all.
func perItem(spent time.Duration, passes, n int) float64 {
	return float64(spent.Nanoseconds()) / (float64(passes) * float64(n))
}

// Streams and states are built once per test binary: the benchmark
// function runs several times (once per b.N it tries), and building them
// is not what is measured.
var (
	benchmarkCache  []kit.Event
	scalingCache    []kit.Event
	checkpointCache = map[int]*checkpoint{}
)

// BenchmarkStream is kit.BenchmarkStream, built once per test binary.
func BenchmarkStream() []kit.Event {
	if benchmarkCache == nil {
		benchmarkCache = kit.BenchmarkStream()
	}
	return benchmarkCache
}

// shortStreams holds the benchmark streams shorter than kit.BenchmarkStream
// that benchmarks take, kit.BenchmarkStreamOf(n) by n, each built once and
// kept for the whole test binary: a benchmark function runs once per
// -count, and its samples would otherwise build the stream again each
// time. What stays (250 000 events at most in the quick run) is marked by
// the garbage collector in both passes of every pair alike.
var shortStreams = map[int][]kit.Event{}

// streamOf returns kit.BenchmarkStreamOf(n): the benchmark stream at n
// events, whose open state is the same at every length. A stream shorter
// than kit.BenchmarkStream comes from shortStreams; the whole stream is
// BenchmarkStream's, which Run lets go of after the benchmark; a longer
// one (stage 01's baselines in --full) is built for the caller alone,
// since holding it would have the collector mark it in every benchmark
// after. A shorter stream is built at its length, not cut from the
// million: the million takes about 0.9 s to build on a 2-core machine,
// and the quick run of stages 10 to 12 takes at most 100 000 events
// (stage 12 5 000, which take 5 ms). Building the million for them was
// most of the time before their first result, on each side.
func streamOf(n int) []kit.Event {
	switch {
	case n == bench.ThroughputEvents:
		return BenchmarkStream()
	case n > bench.ThroughputEvents:
		return kit.BenchmarkStreamOf(n)
	}
	if events, ok := shortStreams[n]; ok {
		return events
	}
	events := kit.BenchmarkStreamOf(n)
	shortStreams[n] = events
	return events
}

// releaseStream lets go of the benchmark stream, if a benchmark built it.
func releaseStream() { benchmarkCache = nil }

// scalingStream returns bench.ScalingEvents events over 1 000 keys,
// ScalingEventsPerWindow per window on average, with disorder bounded by
// one window, from a fixed seed. As in kit.BenchmarkStream, the IDs are
// allocated in delivery order.
func scalingStream() []kit.Event {
	if scalingCache != nil {
		return scalingCache
	}
	r := kit.NewRand(0x5eed_0008)
	keys := make([]string, 1_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	span := 2 * bench.ScalingKept * bench.ScalingWindow
	events := kit.BoundedShuffle(r, kit.RandomEvents(r, bench.ScalingEvents, keys, 0, span), bench.ScalingWindow)
	for i := range events {
		events[i].ID = strings.Clone(events[i].ID)
	}
	scalingCache = events
	return events
}

// checkpoint is a processor holding windows windows, and its snapshot.
type checkpoint struct {
	windows int
	p       Processor
	snap    []byte
}

// checkpointOf returns a processor holding n open windows, one event and
// one key in each (a delay of n windows keeps them all open), and its
// snapshot, built once per n.
func checkpointOf(b *testing.B, api API, n int) *checkpoint {
	if st := checkpointCache[n]; st != nil {
		return st
	}
	if api.Snapshot == nil || api.Restore == nil {
		b.Fatal("the checkpoint benchmarks need stage 04's Snapshot and RestoreProcessor")
	}
	p := newProcessor(b, api, Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: int64(n+1) * kit.BenchmarkWindow})
	if err := fill(p, n, cpuClock{}); err != nil {
		b.Fatal(err)
	}
	snap, err := api.Snapshot(p)
	if err != nil {
		b.Fatalf("Snapshot of %d windows: %v", n, err)
	}
	st := &checkpoint{windows: n, p: p, snap: snap}
	checkpointCache[n] = st
	return st
}

// growthLimit is how much slower per event than at the start fill lets
// Process get before it gives up. A flat processor slows down by a few
// times as a million windows outgrow the caches, and a busy machine adds
// to that; one that visits every open window on each event passes the
// limit long before a million.
const growthLimit = 50

// cpuClock reads the process's CPU time (cpuTime) as a kit.Clock.
type cpuClock struct{}

func (cpuClock) Now() time.Time { return time.Unix(0, 0).Add(cpuTime()) }

// processStart is when the test binary started; wallTime is the time
// since.
var processStart = time.Now()

func wallTime() time.Duration { return time.Since(processStart) }

// fill gives p n events, each in a window of its own, in chunks that double
// in size, and times each chunk on clock (the process's CPU time, but for
// a test). A Process that visits every open
// window would take hours to open a million, so fill compares each chunk's
// time per event with the fastest of the first chunks (a ratio within this
// run, not a time limit) and stops, with an error that names the cause,
// once it is growthLimit times slower.
func fill(p Processor, n int, clock kit.Clock) error {
	const firstChunks = 1 << 13 // the chunks below this many events set the pace
	keys := make([]string, min(n, 10_000))
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	fastest := time.Duration(1<<63 - 1)
	for lo, hi := 0, min(1<<10, n); lo < n; lo, hi = hi, min(2*hi, n) {
		start := clock.Now()
		for i := lo; i < hi; i++ {
			p.Process(kit.Event{ID: "e" + strconv.Itoa(i), Key: keys[i%len(keys)], TS: int64(i) * kit.BenchmarkWindow, Value: 1 + int64(i%10)})
		}
		perEvent := clock.Now().Sub(start) / time.Duration(hi-lo)
		if hi <= firstChunks {
			fastest = min(fastest, perEvent)
			continue
		}
		if perEvent > growthLimit*fastest {
			return fmt.Errorf("opening %d windows for the checkpoint benchmarks: with %d open, Process took %v per event, %.0f× the %v it took with fewer than %d; it does work in proportion to the windows it holds (see the scaling ratio of stage 01)",
				n, lo, perEvent, float64(perEvent)/float64(fastest), fastest, firstChunks)
		}
	}
	return nil
}
