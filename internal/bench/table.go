package bench

import (
	"fmt"
	"slices"
)

// Kind is what a benchmark measures, and so which body of package
// stagebench runs it.
type Kind int

const (
	// Throughput runs the first Subject.Events events of
	// kit.BenchmarkStream (ThroughputEvents, all of it, in --full;
	// ThroughputQuickEvents in the quick run) through NewProcessor, Process
	// and Flush: ns/event (wall time), cpu-ns/event, allocs/event and
	// state-allocs/event.
	Throughput Kind = iota
	// Scaling times Process over the second half of the scaling stream,
	// after the first half has filled the state, with Baseline's and
	// Subject's Delay and Lateness: cpu-ns/event for Subject and
	// baseline-cpu-ns/event for Baseline.
	Scaling
	// Snapshot times Snapshot of processors holding Baseline's and
	// Subject's Windows: cpu-ns/window and bytes/window, and the same with
	// baseline- in front.
	Snapshot
	// Restore times RestoreProcessor of those processors' snapshots, and
	// reports the same metrics.
	Restore
	// Sliding times, in turn, the SlidingProcessor of stage 09 and two
	// strategies of package stagebench, naive and sliced, over the sliding
	// stream with windows of Subject's SizeSlide slides: cpu-ns/event for
	// the processor, naive-cpu-ns/event and sliced-cpu-ns/event for the
	// strategies.
	Sliding
	// SeenTTL times, in turn, stage 10's processor with the tight TTL
	// (WindowSize + AllowedLateness) and without one, each taking the
	// first Subject.Events events of kit.BenchmarkStream and a Flush:
	// cpu-ns/event and remembered-IDs (before Flush) with the TTL, the
	// same with nottl- in front without.
	SeenTTL
	// Broadcast times, in turn, stage 06's ParallelProcessor alone and
	// stage 11's BroadcastProcessor with Subject.Prefixes rules over the
	// same BroadcastEvents events: cpu-ns/event for the broadcast one,
	// parallel-cpu-ns/event for the other.
	Broadcast
	// BackendThroughput times, in turn, stage 12's BackendProcessor on the
	// package's heap backend and on its Pebble backend, each taking the
	// first Subject.Events events of kit.BenchmarkStream (BackendEvents,
	// BackendQuickEvents in the quick run) and a Flush:
	// cpu-ns/event on Pebble, heap-cpu-ns/event on the heap backend.
	BackendThroughput
	// BackendMemory measures, in turn on each backend, the Go heap that
	// BackendWindows open windows of BackendKeys keys take (live bytes
	// after a collection, the events excluded): live-B/window on Pebble,
	// heap-live-B/window on the heap backend.
	BackendMemory
	// BackendCheckpoint times, in turn on each backend, a checkpoint of
	// BackendIDs seen IDs and those windows, then NextCheckpoints more,
	// each after BackendChanged more events, in wall time (a checkpoint
	// waits on the disk): ms/checkpoint and ms/next-checkpoint on Pebble, the same with
	// heap- in front on the heap backend. Every pass fills a fresh backend
	// (--full).
	BackendCheckpoint
	// BackendCheckpointKept takes the same checkpoints from one state per
	// backend, filled once per test binary and kept between its samples:
	// the first checkpoint in the binary's first sample only, then in every
	// sample NextCheckpoints more, each after BackendChanged more events
	// (the quick default: filling a Pebble backend with BackendIDs events
	// takes seconds).
	BackendCheckpointKept
	// Baselines times, in turns within every round, a new processor and
	// three baselines of package stagebench over kit.BenchmarkStreamOf
	// (Subject.Events): the fold, the fold that drops redelivered IDs, and
	// the naive learner's processor. processor-cpu-ns/event for the
	// processor, fold-, fold+dedup- and naive-cpu-ns/event for the others.
	Baselines
)

// The time de bench compares is the CPU time of the test binary (user and
// system, garbage collection included) where the system reports it, as on
// Linux and macOS: unlike wall time, it leaves out the time other
// processes held the CPU, the larger part of a shared machine's noise.

// Shape is how much state a benchmark's processor holds. For Scaling it
// is its WatermarkDelay and AllowedLateness, in windows of the scaling
// stream; for Snapshot and Restore, its number of windows; for Sliding,
// its windows' Size in slides: the number of windows an event is in; for
// SeenTTL, the events of its stream; for Broadcast, its rules' prefixes.
type Shape struct {
	Delay, Lateness int64
	Windows         int
	SizeSlide       int64
	Events          int
	Prefixes        int
}

// Benchmark is one sub-benchmark of BenchmarkDeNN, where NN is its stage.
//
// Every kind but Throughput measures its Subject against its Baseline, the
// same work on less state, and takes turns between them within every
// iteration: both run under the same conditions, so their ratio holds on a
// busy machine where two times taken seconds apart would not. Each reports
// the median of its iterations.
type Benchmark struct {
	Stage             int    // the stage whose API it needs: it runs once a learner has reached it
	Name              string // its name under BenchmarkDeNN
	Kind              Kind
	Baseline, Subject Shape
	Depth             Depth // the runs it is part of
}

// Depth is which runs of de bench a benchmark is part of.
type Depth int

const (
	// EveryRun benchmarks run in the quick default run and in --full.
	EveryRun Depth = iota
	// QuickRun benchmarks run only in the quick default: a smaller state
	// than their FullRun twin, so that the default run answers in seconds.
	QuickRun
	// FullRun benchmarks run only in --full.
	FullRun
)

// In reports whether b is part of the full run (full) or of the quick one.
func (b Benchmark) In(full bool) bool { return b.Depth.In(full) }

// In reports whether the benchmarks and comparisons of depth d are part of
// the full run (full) or of the quick one.
func (d Depth) In(full bool) bool {
	switch d {
	case QuickRun:
		return !full
	case FullRun:
		return full
	}
	return true
}

// FullName is the benchmark's name as go test prints it, less the
// -GOMAXPROCS suffix: "BenchmarkDe01/throughput".
func (b Benchmark) FullName() string { return TopLevel(b.Stage) + "/" + b.Name }

// TopLevel is the name of a stage's benchmark function: BenchmarkDe01.
func TopLevel(stage int) string { return fmt.Sprintf("BenchmarkDe%02d", stage) }

// The lengths of stage 01's throughput benchmark, of kit.BenchmarkStreamOf:
// the whole benchmark stream in --full, a quarter of its length in the
// quick run. The quarter holds the same windows open and fires as many
// per event (the stream's density and disorder are the same at every
// length); what is smaller is the seen-ID set, so a processor's cost per
// event, which grows with that set, reads a little lower, on both sides. A pass over the
// whole stream took a first-try learner's processor 1–2 s on a 2-core
// machine, three of them the largest part of a quick run's lab side.
const (
	ThroughputEvents      = 1_000_000
	ThroughputQuickEvents = 250_000
)

// The scaling stream: ScalingEvents events, ScalingEventsPerWindow to a
// window of ScalingWindow ms on average, over 2 × ScalingKept windows, with
// disorder bounded by one window. After its first half, a processor whose
// delay (or lateness) spans ScalingKept windows holds that many, and holds
// as many while the second half, the timed one, goes through; with a delay
// of one window it holds two: the window of the largest timestamp seen and
// the one before it.
//
// The sizes make the two kinds of processor impossible to confuse. One
// that visits every window it holds on each event pays ScalingKept visits
// per event, microseconds, against a few hundred nanoseconds for the rest
// of the work; one that finds due and expired windows at the front of an
// ordered structure pays about the same with 2 windows or with
// ScalingKept.
const (
	ScalingWindow          = int64(1_000)
	ScalingKept            = 10_000
	ScalingEventsPerWindow = 5
	ScalingEvents          = 2 * ScalingKept * ScalingEventsPerWindow
)

// CheckpointScale is a pair of sizes of the checkpoint benchmarks, in
// windows, and the runs that measure it.
type CheckpointScale struct {
	Small, Large int
	Depth        Depth
}

// CheckpointScales are the sizes of the checkpoint benchmarks. Stage 04's
// card promises size and time linear in the state up to a million windows,
// which --full measures. Opening a million windows, snapshotting and
// restoring them takes a learner's processor about 12 s, so the quick
// default measures a step of the same 100× at a tenth of the state: a step
// repeated for every window over all the others still shows as 100×, an n
// log n sort as about 1.7× where a linear one reads about 1×.
var CheckpointScales = []CheckpointScale{
	{Small: 1_000, Large: 100_000, Depth: QuickRun},
	{Small: 10_000, Large: 1_000_000, Depth: FullRun},
}

// The sliding stream: SlidingEvents events over SlidingKeys keys,
// SlidingEventsPerSlide to a slide of SlidingSlide ms on average, with
// kit.BenchmarkDisorder's disorder and that as the delay, so that no event
// is late. Few keys to many events a slide is where slicing pays: a slice
// holds each key once, so a firing merges SizeSlide × SlidingKeys tallies
// where the naive strategy made SizeSlide × SlidingEventsPerSlide updates.
const (
	SlidingSlide          = int64(1_000)
	SlidingKeys           = 10
	SlidingEventsPerSlide = 100
	SlidingEvents         = 200 * SlidingEventsPerSlide
)

// SlidingRatios are the values of Size/Slide that stage 09's benchmarks
// measure.
var SlidingRatios = []int64{1, 4, 16, 64}

// StreamLength is a length of a benchmark stream that a stage's
// benchmarks measure (stage 01's baselines, stage 10's TTL), and the runs
// that measure it.
type StreamLength struct {
	Events int
	Depth  Depth
}

// SeenTTLLengths are the stream lengths of stage 10's benchmarks: with the
// tight TTL, the IDs remembered should be as many at the longer as at the
// shorter, those of the last TTL and delay of event time. The quick default
// measures the two shorter, a step of 10× in a second or two; --full the
// two longer, where a million events take a few seconds a pass.
var SeenTTLLengths = []StreamLength{{10_000, QuickRun}, {100_000, EveryRun}, {1_000_000, FullRun}}

// seenTTLWorry is the length whose remembered IDs de bench explains when a
// lab's TTL forgets too few: one that both runs measure.
const seenTTLWorry = 100_000

// BroadcastEvents is the length of stage 11's benchmarks' stream
// (kit.BenchmarkStreamOf), through 4 subtasks of 128 key groups;
// BroadcastPrefixes are its numbers of rules, one prefix each ("k"; "k0"
// … "k9"; "k0" … "k99").
const (
	BroadcastEvents      = 20_000
	BroadcastParallelism = 4
	BroadcastMaxParallel = 128
)

// BroadcastPrefixes are the numbers of rule prefixes stage 11's benchmarks
// measure.
var BroadcastPrefixes = []int{1, 10, 100}

// The sizes of stage 12's benchmarks, heap against disk. BackendEvents
// events of the benchmark stream keep windows firing as they go
// (BackendQuickEvents in the quick run: Pebble's 30 µs or so an event made
// 20 000 of them 0.7 s of every sample);
// BackendWindows windows of BackendKeys keys each, which never fire, are
// the open state whose Go heap is measured; BackendIDs events over those
// windows are the state of the first checkpoint, and BackendChanged more
// what each of the NextCheckpoints after it adds. PebbleBudget is the Pebble backend's memory
// budget, well above MinPebbleBudget and far below what a heap backend
// holds at BackendIDs.
const (
	BackendEvents      = 20_000
	BackendQuickEvents = 5_000
	BackendWindows     = 200
	BackendKeys        = 50
	BackendIDs         = 100_000
	BackendChanged     = 100
	NextCheckpoints    = 5
	PebbleBudget       = 8 << 20
)

// few is the baseline of the scaling benchmarks: a delay of one window,
// the stream's disorder, and no lateness.
var few = Shape{Delay: 1}

// Benchmarks is every benchmark de bench runs, in the order they run. A
// stage's benchmarks use only the API of the stages up to it.
var Benchmarks = slices.Concat([]Benchmark{
	{Stage: 1, Name: fmt.Sprintf("throughput-%d", ThroughputQuickEvents), Kind: Throughput, Subject: Shape{Events: ThroughputQuickEvents}, Depth: QuickRun},
	{Stage: 1, Name: "throughput", Kind: Throughput, Subject: Shape{Events: ThroughputEvents}, Depth: FullRun},
	{Stage: 1, Name: "open-windows", Kind: Scaling, Baseline: few, Subject: Shape{Delay: ScalingKept}},
}, baselineBenchmarks(), []Benchmark{
	{Stage: 3, Name: "expiring-windows", Kind: Scaling, Baseline: few, Subject: Shape{Delay: 1, Lateness: ScalingKept}},
}, checkpointBenchmarks(), slidingBenchmarks(), extensionBenchmarks(), []Benchmark{
	{Stage: 12, Name: fmt.Sprintf("backend-throughput-%d", BackendQuickEvents), Kind: BackendThroughput, Subject: Shape{Events: BackendQuickEvents}, Depth: QuickRun},
	{Stage: 12, Name: "backend-throughput", Kind: BackendThroughput, Subject: Shape{Events: BackendEvents}, Depth: FullRun},
	{Stage: 12, Name: "backend-memory", Kind: BackendMemory},
	{Stage: 12, Name: "backend-checkpoint-kept", Kind: BackendCheckpointKept, Depth: QuickRun},
	{Stage: 12, Name: "backend-checkpoint", Kind: BackendCheckpoint, Depth: FullRun},
})

// BaselineLengths are issue 16's lengths, at which the cost per event of
// the fold and of any dedup set grows as the seen IDs outgrow the caches:
// the quick default measures 100 000, two passes of each contender a
// sample (with lab/ the plain reference, about 3.5 s of stage 01's run,
// both sides); --full all four, where 4 000 000 events take a few seconds
// a pass.
var BaselineLengths = []StreamLength{{10_000, FullRun}, {100_000, EveryRun}, {1_000_000, FullRun}, {4_000_000, FullRun}}

// BaselineNames are the baselines of stage 01's table, in the order it
// prints them, as their metrics name them.
var BaselineNames = []string{"fold", "fold+dedup", "naive"}

// baselineBenchmarks are stage 01's, one per BaselineLengths.
func baselineBenchmarks() []Benchmark {
	var bs []Benchmark
	for _, l := range BaselineLengths {
		bs = append(bs, Benchmark{Stage: 1, Name: fmt.Sprintf("baselines-%d", l.Events), Kind: Baselines, Subject: Shape{Events: l.Events}, Depth: l.Depth})
	}
	return bs
}

// baselineComparisons are stage 01's table: at each of BaselineLengths,
// the processor's cost per event over each baseline's, timed beside it.
func baselineComparisons() []Comparison {
	var cs []Comparison
	for _, b := range Benchmarks {
		if b.Kind != Baselines {
			continue
		}
		for _, name := range BaselineNames {
			cs = append(cs, Comparison{
				Stage:    1,
				Depth:    b.Depth,
				Title:    fmt.Sprintf("per event, %s events, ÷ %s", thousands(b.Subject.Events), name),
				Goal:     "the reference's mark: at most about 1× ÷ fold+dedup, at most 0.5× ÷ naive",
				Group:    "against three baselines timed beside it, per event, as the stream grows: yours ÷ each",
				Legend:   "fold: one map of (key, window) tallies, no watermark, no dedup, no emission, the practical limit; fold+dedup: the same, dropping a redelivered ID (a Go map of IDs), the limit of any processor that keeps the contract; naive: a first try, a map of tallies and one of IDs, the due windows found by a scan and sorted, with the same results (streams of 100 events a second over 10 000 keys, 5 s of disorder, the seen IDs growing with the length)",
				Label:    fmt.Sprintf("%s events ÷ %s", thousands(b.Subject.Events), name),
				Subject:  Metric{b.FullName(), "processor-cpu-ns/event"},
				Baseline: Metric{b.FullName(), name + "-cpu-ns/event"},
			})
		}
	}
	return cs
}

// checkpointBenchmarks are stage 04's, snapshot and restore at each of
// CheckpointScales.
func checkpointBenchmarks() []Benchmark {
	var bs []Benchmark
	for _, sc := range CheckpointScales {
		small, large := Shape{Windows: sc.Small}, Shape{Windows: sc.Large}
		bs = append(bs,
			Benchmark{Stage: 4, Name: checkpointName("snapshot", sc), Kind: Snapshot, Baseline: small, Subject: large, Depth: sc.Depth},
			Benchmark{Stage: 4, Name: checkpointName("restore", sc), Kind: Restore, Baseline: small, Subject: large, Depth: sc.Depth})
	}
	return bs
}

// checkpointName is the name of stage 04's benchmark of op at sc:
// snapshot-100000.
func checkpointName(op string, sc CheckpointScale) string {
	return fmt.Sprintf("%s-%d", op, sc.Large)
}

// extensionBenchmarks are stage 10's, one per SeenTTLEvents, and stage
// 11's, one per BroadcastPrefixes.
func extensionBenchmarks() []Benchmark {
	var bs []Benchmark
	for _, l := range SeenTTLLengths {
		bs = append(bs, seenTTLBenchmark(l))
	}
	for _, n := range BroadcastPrefixes {
		bs = append(bs, broadcastBenchmark(n))
	}
	return bs
}

// seenTTLBenchmark is stage 10's benchmark over l.Events events.
func seenTTLBenchmark(l StreamLength) Benchmark {
	return Benchmark{Stage: 10, Name: fmt.Sprintf("events-%d", l.Events), Kind: SeenTTL, Subject: Shape{Events: l.Events}, Depth: l.Depth}
}

// broadcastBenchmark is stage 11's benchmark with n rule prefixes.
func broadcastBenchmark(n int) Benchmark {
	return Benchmark{Stage: 11, Name: fmt.Sprintf("prefixes-%d", n), Kind: Broadcast, Subject: Shape{Prefixes: n}}
}

// slidingBenchmarks are stage 09's benchmarks, one per SlidingRatios.
func slidingBenchmarks() []Benchmark {
	var bs []Benchmark
	for _, r := range SlidingRatios {
		bs = append(bs, slidingBenchmark(r))
	}
	return bs
}

// slidingBenchmark is stage 09's benchmark at Size/Slide ratio.
func slidingBenchmark(ratio int64) Benchmark {
	return Benchmark{Stage: 9, Name: fmt.Sprintf("size-slide-%d", ratio), Kind: Sliding, Subject: Shape{SizeSlide: ratio}}
}

// Metric is one number of one benchmark: its full name and a unit that it
// reports, such as "cpu-ns/event".
type Metric struct{ Benchmark, Unit string }

// Comparison is one ratio de bench prints, Subject over Baseline, for the
// lab and for the reference, each from pairs of samples of the same run.
// A comparison with Across set is instead the lab's speed as a fraction of
// the reference's: the reference's Subject over the lab's.
//
// Consecutive comparisons with the same Group are one table: de bench
// heads it with the Group, the first one's Goal and its Legend, and prints
// each comparison as a row headed by its Label.
type Comparison struct {
	Stage             int
	Depth             Depth  // the runs that print it: its benchmarks
	Title             string // what the ratio measures, as de bench heads it
	Goal              string // how to read it
	Group, Label      string
	Legend            string // under a Group's heading: what its rows compare
	Subject, Baseline Metric
	Across            bool
	// Worry is the ratio from which de bench explains what a lab's ratio
	// means, with Diagnosis; zero for none.
	Worry     float64
	Diagnosis string
}

// Comparisons is every ratio de bench prints, in order.
var Comparisons = slices.Concat(throughputComparisons(), []Comparison{
	{
		Stage:     1,
		Title:     fmt.Sprintf("per event, %s open windows ÷ 2", thousands(ScalingKept)),
		Goal:      "flat, about 1×, is the goal",
		Subject:   Metric{"BenchmarkDe01/open-windows", "cpu-ns/event"},
		Baseline:  Metric{"BenchmarkDe01/open-windows", "baseline-cpu-ns/event"},
		Worry:     10,
		Diagnosis: "your processor does work in proportion to its open windows on every event: find the due ones without scanning (stage 01's card, Constraints)",
	},
}, baselineComparisons(), []Comparison{
	{
		Stage:     3,
		Title:     fmt.Sprintf("per event, %s fired windows waiting out their lateness ÷ 2", thousands(ScalingKept)),
		Goal:      "flat, about 1×, is the goal",
		Subject:   Metric{"BenchmarkDe03/expiring-windows", "cpu-ns/event"},
		Baseline:  Metric{"BenchmarkDe03/expiring-windows", "baseline-cpu-ns/event"},
		Worry:     10,
		Diagnosis: "your processor does work in proportion to the fired windows it keeps on every event: drop expired ones without scanning (stage 03's card, Constraints)",
	},
}, checkpointComparisons(), slidingComparisons(), seenTTLComparisons(), broadcastComparisons(), backendComparisons())

// throughputComparisons are the first line of de bench, one per
// Throughput benchmark, in the runs that have it: the lab's speed as a
// fraction of the reference's, over the events its legend says.
func throughputComparisons() []Comparison {
	var cs []Comparison
	for _, b := range Benchmarks {
		if b.Kind != Throughput {
			continue
		}
		legend := fmt.Sprintf("the %s events of the benchmark stream", thousands(b.Subject.Events))
		if b.Subject.Events < ThroughputEvents {
			legend = fmt.Sprintf("the benchmark stream at %s events (--full: at %s)", thousands(b.Subject.Events), thousands(ThroughputEvents))
		}
		cs = append(cs, Comparison{Stage: b.Stage, Depth: b.Depth, Title: "throughput", Legend: legend,
			Subject: Metric{b.FullName(), "cpu-ns/event"}, Across: true})
	}
	return cs
}

// seenTTLComparisons are stage 10's table: at each of SeenTTLEvents, the
// cost per event with the tight TTL over without one, and the IDs each
// remembers.
func seenTTLComparisons() []Comparison {
	var cs []Comparison
	for _, l := range SeenTTLLengths {
		n, b := l.Events, seenTTLBenchmark(l)
		row := func(label, unit string) Comparison {
			return Comparison{
				Stage:    10,
				Depth:    l.Depth,
				Title:    fmt.Sprintf("%s, %s events, TTL ÷ none", label, thousands(n)),
				Goal:     "per event about 1×, a little more on a short stream; with the TTL as many IDs remembered on the longer stream as on the shorter, so that ratio falls tenfold",
				Group:    "forgetting seen IDs: the tight TTL (WindowSize + AllowedLateness) ÷ no TTL, as the stream grows",
				Legend:   "the benchmark stream at each length (1 s windows, 5 s of disorder as the delay, 100 events a second); IDs remembered before Flush: without a TTL every one, with it those of the last TTL and delay of event time",
				Label:    fmt.Sprintf("%s, %s events", label, thousands(n)),
				Subject:  Metric{b.FullName(), unit},
				Baseline: Metric{b.FullName(), "nottl-" + unit},
			}
		}
		ids := row("remembered IDs", "remembered-IDs")
		if n == seenTTLWorry {
			ids.Worry = 0.5
			ids.Diagnosis = "your processor still remembers most IDs with the TTL: forget every ID whose TS + seenTTL the watermark has reached, on each call that raises it (stage 10's card, rule 4)"
		}
		cs = append(cs, row("per event", "cpu-ns/event"), ids)
	}
	return cs
}

// broadcastComparisons are stage 11's table: at each of BroadcastPrefixes,
// the BroadcastProcessor's cost per event over the ParallelProcessor's
// alone, timed beside it.
func broadcastComparisons() []Comparison {
	var cs []Comparison
	for _, n := range BroadcastPrefixes {
		b := broadcastBenchmark(n)
		cs = append(cs, Comparison{
			Stage:    11,
			Title:    fmt.Sprintf("per event, %s, ÷ the ParallelProcessor alone", prefixCount(n)),
			Goal:     "a small factor, which grows little with the prefixes",
			Group:    "broadcast rules, per event, as the rules grow: your BroadcastProcessor ÷ your ParallelProcessor alone",
			Legend:   fmt.Sprintf("%s events through %d subtasks; rules of threshold 1, one per prefix (k; k0 … k9; k0 … k99), the rules' watermark a window behind the events', so every result waits for it and is checked against the rules", thousands(BroadcastEvents), BroadcastParallelism),
			Label:    prefixCount(n),
			Subject:  Metric{b.FullName(), "cpu-ns/event"},
			Baseline: Metric{b.FullName(), "parallel-cpu-ns/event"},
		})
	}
	return cs
}

// backendComparisons are stage 12's table: Pebble over the heap backend,
// on the same BackendProcessor in the same run, in CPU per event, Go heap
// per open window, and the time of a first and of a next checkpoint.
func backendComparisons() []Comparison {
	row := func(label, name, unit string, depth Depth) Comparison {
		full := TopLevel(12) + "/" + name
		return Comparison{
			Stage:    12,
			Depth:    depth,
			Title:    label + ", Pebble ÷ heap",
			Goal:     "Pebble dearer per event, a small fraction of the Go heap, and checkpoints that cost what changed",
			Group:    "heap against disk, the same BackendProcessor on each: Pebble ÷ your heap backend",
			Legend:   fmt.Sprintf("per event: %s events (--full: %s), windows firing (several times dearer on disk: every read and write is encoded and looked up); Go heap: %d open windows of %d keys (far below 1×: Pebble holds a budget of %d MiB, the rest is on disk); checkpoints, in wall time: %s seen IDs and those windows, then the next ones, each after %d more events (a heap backend copies it all each time, Pebble links the files that did not change; the quick run fills one state per backend and keeps it, so it has one first checkpoint, --full one in every run)", thousands(BackendQuickEvents), thousands(BackendEvents), BackendWindows, BackendKeys, PebbleBudget>>20, thousands(BackendIDs), BackendChanged),
			Label:    label,
			Subject:  Metric{full, unit},
			Baseline: Metric{full, "heap-" + unit},
		}
	}
	memory := row("Go heap per open window", "backend-memory", "live-B/window", EveryRun)
	memory.Worry = 0.5
	memory.Diagnosis = "your Pebble backend keeps the state on the Go heap: Pebble's memtables and block cache are its own memory, sized by the budget, and the rest belongs on disk (stage 12's card)"
	var cs []Comparison
	for _, b := range Benchmarks {
		if b.Kind == BackendThroughput {
			cs = append(cs, row("CPU per event", b.Name, "cpu-ns/event", b.Depth))
		}
	}
	cs = append(cs, memory)
	for _, b := range Benchmarks {
		if b.Kind == BackendCheckpoint || b.Kind == BackendCheckpointKept {
			cs = append(cs,
				row("first checkpoint", b.Name, "ms/checkpoint", b.Depth),
				row("next checkpoint", b.Name, "ms/next-checkpoint", b.Depth))
		}
	}
	return cs
}

// slidingComparisons are stage 09's table: at each of SlidingRatios, the
// processor against the naive strategy, then against the sliced one.
func slidingComparisons() []Comparison {
	var cs []Comparison
	for _, r := range SlidingRatios {
		cs = append(cs, slidingComparison(r, "naive"), slidingComparison(r, "sliced"))
	}
	return cs
}

// slidingComparison compares the SlidingProcessor with strategy, "naive"
// or "sliced", at Size/Slide ratio. The naive strategy is what the card
// asks for at the least cost: a processor several times dearer per event
// than it at the largest ratio does more than one update per window.
func slidingComparison(ratio int64, strategy string) Comparison {
	b := slidingBenchmark(ratio)
	c := Comparison{
		Stage:    9,
		Title:    fmt.Sprintf("per event, size/slide %d, ÷ the %s strategy", ratio, strategy),
		Goal:     "÷ naive about 1× is an update per window, as Flink's WindowOperator makes; ÷ sliced about 1× throughout is slicing",
		Group:    "sliding windows, per event, as size/slide grows: yours ÷ two strategies timed beside it",
		Legend:   fmt.Sprintf("naive: an update in each of an event's size/slide windows; sliced: one update in its slice, a merge of size/slide slices per firing (%d keys, %d events a slide)", SlidingKeys, SlidingEventsPerSlide),
		Label:    fmt.Sprintf("size/slide %d ÷ %s", ratio, strategy),
		Subject:  Metric{b.FullName(), "cpu-ns/event"},
		Baseline: Metric{b.FullName(), strategy + "-cpu-ns/event"},
	}
	if strategy == "naive" && ratio == SlidingRatios[len(SlidingRatios)-1] {
		c.Worry = 4
		c.Diagnosis = fmt.Sprintf("at size/slide %d your processor does several times the work of one update per window an event is in: look for work in proportion to all the windows it holds on every event (stage 09's card, Hint 2)", ratio)
	}
	return c
}

// checkpointComparisons are stage 04's: at each of CheckpointScales (a run
// measures one), Snapshot's and RestoreProcessor's CPU time per window and
// the snapshot's bytes per window.
func checkpointComparisons() []Comparison {
	var cs []Comparison
	for _, sc := range CheckpointScales {
		cs = append(cs,
			checkpointComparison("Snapshot", "snapshot", "cpu-ns/window", sc),
			checkpointComparison("RestoreProcessor", "restore", "cpu-ns/window", sc),
			checkpointComparison("snapshot size", "snapshot", "bytes/window", sc))
	}
	return cs
}

// checkpointComparison compares a stage-04 metric per window at sc's large
// state with the same at its small one.
func checkpointComparison(title, op, unit string, sc CheckpointScale) Comparison {
	full := TopLevel(4) + "/" + checkpointName(op, sc)
	return Comparison{
		Stage:     4,
		Depth:     sc.Depth,
		Title:     fmt.Sprintf("%s, per window, %s windows ÷ %s", title, thousands(sc.Large), thousands(sc.Small)),
		Goal:      "linear, about 1×, is the goal",
		Subject:   Metric{full, unit},
		Baseline:  Metric{full, "baseline-" + unit},
		Worry:     10,
		Diagnosis: "the cost per window grows with the state: look for a step repeated for every window over all the others (stage 04's card, Constraints)",
	}
}

// thousands renders n with a space between groups of three digits:
// 1 000 000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// prefixCount renders n rule prefixes: "1 prefix", "10 prefixes".
func prefixCount(n int) string {
	if n == 1 {
		return "1 prefix"
	}
	return fmt.Sprintf("%d prefixes", n)
}
