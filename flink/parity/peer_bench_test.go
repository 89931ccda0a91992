//go:build flink

package parity

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/bench/stagebench"
	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// PeerSizes are the lengths of the benchmark stream (kit.BenchmarkStreamOf)
// that BenchmarkFlinkPeer runs, one sub-benchmark each, events-N: the
// smallest for CI's smoke run, the largest de bench --full's, the benchmark
// stream itself.
var peerSizes = []int{10_000, 100_000, 1_000_000}

// peerVariants are the Flink side's runs of the job, as the runner names
// them (flinkrun.WindowBenchOp), comma-separated: by default the course's
// processor, dedup and a watermark after every event included, on each of
// Flink's state backends; +nodedup and +periodic variants say what those
// two cost Flink.
var peerVariants = flag.String("flink.peer-variants", "hashmap,rocksdb", "BenchmarkFlinkPeer's Flink variants, comma-separated (hashmap, rocksdb, each optionally +nodedup, +periodic)")

// peer is the JVM that BenchmarkFlinkPeer times (one per test binary, so
// that its JIT stays warm from one run to the next) and what it holds.
type peer struct {
	runner *flinkrun.Runner
	dir    string         // the events files, one per length
	files  map[int]string // the events file of each length written so far
	warm   map[int]bool   // the lengths whose untimed first round has run
	rounds int            // rounds timed so far: odd ones run in reverse order
}

// startPeer returns the benchmarks' JVM, starting it on first use.
func startPeer(b *testing.B) *peer {
	b.Helper()
	if timed != nil {
		return timed
	}
	r, err := env.StartForTiming(context.Background())
	if err != nil {
		b.Fatalf("starting the Flink runner for timing: %v", err)
	}
	dir, err := os.MkdirTemp("", "flkbyo-peer-")
	if err != nil {
		r.Close()
		b.Fatalf("making a folder for the events: %v", err)
	}
	timed = &peer{runner: r, dir: dir, files: map[int]string{}, warm: map[int]bool{}}
	return timed
}

// close stops the JVM and removes the events files.
func (p *peer) close() error {
	err := p.runner.Close()
	if rmErr := os.RemoveAll(p.dir); err == nil {
		err = rmErr
	}
	return err
}

// spec returns the spec of a pass over events, the first n of the
// benchmark stream, writing them to a file the first time.
func (p *peer) spec(n int, events []kit.Event) (flinkrun.WindowBenchSpec, error) {
	if f, ok := p.files[n]; ok {
		return flinkrun.WindowBenchSpec{Events: f}, nil
	}
	fevents := make([]flinkrun.Event, len(events))
	for i, e := range events {
		fevents[i] = flinkrun.Event(e)
	}
	f := filepath.Join(p.dir, fmt.Sprintf("events-%d.jsonl", n))
	if err := flinkrun.WriteEvents(f, fevents); err != nil {
		return flinkrun.WindowBenchSpec{}, err
	}
	p.files[n] = f
	return flinkrun.WindowBenchSpec{Events: f}, nil
}

// A peerSample is one pass of one contender: its output's digest and what
// it took. CPU is the CPU time of the contender's process (the test
// binary's, or the JVM's, every thread's); Records is, for Flink, the wall
// time from the source's first event to the sink's end, without submitting,
// deploying and tearing down the job (for the reference, its wall time).
type peerSample struct {
	digest             flinkrun.Digest
	cpu, wall, records time.Duration
}

// peerPebble adds the course's counterpart of Flink on RocksDB to
// BenchmarkFlinkPeer: stage 12's BackendProcessor on the reference's
// Pebble backend.
var peerPebble = flag.Bool("flink.peer-pebble", false, "BenchmarkFlinkPeer: also time the reference's stage 12 BackendProcessor on its Pebble backend (de bench's budget, in /dev/shm where there is one), as reference-pebble")

// peerConfig is the benchmark stream's config: 1 s windows, its disorder
// as the watermark delay.
var peerConfig = solutions.Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder}

// referencePass runs the reference's stage 01 Processor over events, with
// peerConfig, and a Flush (coursePass).
func referencePass(events []kit.Event) (peerSample, error) {
	p, err := solutions.NewProcessor(peerConfig)
	if err != nil {
		return peerSample{}, fmt.Errorf("NewProcessor: %w", err)
	}
	return coursePass(p, events), nil
}

// pebblePass runs the reference's stage 12 BackendProcessor, with
// peerConfig, on a new Pebble backend with de bench's budget
// (bench.PebbleBudget) in a new folder under /dev/shm where the machine
// has one (as RocksDB's are), over events and a Flush (coursePass).
// Opening the backend and closing it are outside the time, as in de
// bench's stage 12 benchmarks.
func pebblePass(events []kit.Event) (peerSample, error) {
	dir, err := os.MkdirTemp("/dev/shm", "flkbyo-peer-pebble-")
	if err != nil {
		if dir, err = os.MkdirTemp("", "flkbyo-peer-pebble-"); err != nil {
			return peerSample{}, err
		}
	}
	defer os.RemoveAll(dir)
	b, err := pebblestate.OpenPebbleBackend(filepath.Join(dir, "db"), bench.PebbleBudget)
	if err != nil {
		return peerSample{}, fmt.Errorf("opening a Pebble backend: %w", err)
	}
	p, err := solutions.NewBackendProcessor(peerConfig, b)
	if err != nil {
		b.Close()
		return peerSample{}, fmt.Errorf("NewBackendProcessor: %w", err)
	}
	s := coursePass(p, events)
	if err := b.Close(); err != nil {
		return peerSample{}, fmt.Errorf("closing the Pebble backend: %w", err)
	}
	return s, nil
}

// coursePass gives p every event and a Flush, folding every result into a
// digest as it comes (the same work the Flink job's sink does), and
// returns the digest and the time it took. The heap is collected first.
func coursePass(p windowtest.Processor, events []kit.Event) peerSample {
	runtime.GC() // no earlier pass's garbage is this one's cost
	cpu0, wall0 := stagebench.CPUTime(), time.Now()
	var d flinkrun.Digest
	add := func(rs []kit.Result) {
		for _, r := range rs {
			d.Add(flinkrun.Result{Key: r.Key, Start: r.Start, End: r.End, Count: r.Count, Sum: r.Sum, Update: r.IsUpdate})
		}
	}
	for _, e := range events {
		add(p.Process(e))
	}
	add(p.Flush())
	d.Late = int64(len(p.Late()))
	wall := time.Since(wall0)
	return peerSample{digest: d, cpu: stagebench.CPUTime() - cpu0, wall: wall, records: wall}
}

// flinkPass runs the Flink job once over the events of spec, as variant.
func (p *peer) flinkPass(spec flinkrun.WindowBenchSpec, variant string) (peerSample, error) {
	passes, err := p.runner.RunWindowBench(spec, variant)
	if err != nil {
		return peerSample{}, err
	}
	s := passes[0]
	return peerSample{digest: s.Digest(), cpu: time.Duration(s.CPUNs), wall: time.Duration(s.WallNs), records: time.Duration(s.RecordsWallNs)}, nil
}

// BenchmarkFlinkPeer times the benchmark stream through the reference and
// through Apache Flink 2.3.0, the same window job over the same events in
// turns, and fails if Flink's results are not the reference's.
//
// The job is stage 01's: tumbling windows of kit.BenchmarkWindow, a
// watermark kit.BenchmarkDisorder behind the largest timestamp, raised
// after every event, redelivered IDs dropped, every result emitted. On the
// course's side it is the reference's Processor (build with -tags fast for
// the tuned one, which de bench measures); on Flink's, the runner's
// WindowBench: a DataStream job (source, dedup by ID, WindowOperator, a
// digest sink) on a MiniCluster in one long-lived JVM, at parallelism 1
// with object reuse, on the HashMapStateBackend and on the
// EmbeddedRocksDBStateBackend, checkpoints off. Both sides fold their
// results into a flinkrun.Digest, which must be equal.
//
// Each b.N is a round: the reference, then each Flink variant, in reverse
// order every other round (ABBA), so that each meets the machine of the
// moment. The first run of a length in a test binary first runs an
// untimed round, for the JVM's JIT. It reports, per event, the medians of
// the rounds: reference-cpu-ns/event and reference-ns/event (CPU and wall
// time), the same for reference-pebble with -flink.peer-pebble, and for
// each variant flink-<backend>-cpu-ns/event and
// flink-<backend>-ns/event (the whole job), flink-<backend>-records-ns/event
// (wall time from the first event to the last result), and
// flink-<backend>/reference, the CPU time per event over the reference's,
// round by round.
func BenchmarkFlinkPeer(b *testing.B) {
	for _, n := range peerSizes {
		b.Run(fmt.Sprintf("events-%d", n), func(b *testing.B) { benchPeer(b, n) })
	}
}

// benchPeer is BenchmarkFlinkPeer over the first n events of the stream.
func benchPeer(b *testing.B, n int) {
	needFlink(b)
	p := startPeer(b)
	events := kit.BenchmarkStreamOf(n)
	spec, err := p.spec(n, events)
	if err != nil {
		b.Fatal(err)
	}
	type contender struct {
		name string
		pass func() (peerSample, error)
	}
	contenders := []contender{{"reference", func() (peerSample, error) { return referencePass(events) }}}
	if *peerPebble {
		contenders = append(contenders, contender{"reference-pebble", func() (peerSample, error) { return pebblePass(events) }})
	}
	for _, v := range strings.Split(*peerVariants, ",") {
		contenders = append(contenders, contender{"flink-" + v, func() (peerSample, error) { return p.flinkPass(spec, v) }})
	}
	var want *flinkrun.Digest
	round := func() []peerSample {
		order := make([]int, len(contenders))
		for i := range order {
			order[i] = i
		}
		if p.rounds%2 == 1 {
			slices.Reverse(order)
		}
		samples := make([]peerSample, len(contenders))
		for _, i := range order {
			s, err := contenders[i].pass()
			if err != nil {
				b.Fatalf("%s over the first %d events of the benchmark stream: %v", contenders[i].name, n, err)
			}
			samples[i] = s
		}
		if want == nil {
			want = &samples[0].digest
		}
		for i, s := range samples {
			if s.digest != *want {
				b.Fatalf("%s's results over the first %d events of the benchmark stream (kit.BenchmarkStreamOf(%d)) are not the reference's:\n"+
					"  reference: %v\n  %s: %v\n"+
					"replay: go test -tags 'flink fast' -run '^$' -bench '^BenchmarkFlinkPeer$/^events-%d$' -benchtime 1x ./flink/parity\n"+
					"the differential tests (go test -tags flink ./flink/parity) compare the two call by call",
					contenders[i].name, n, n, *want, contenders[i].name, s.digest, n)
			}
		}
		return samples
	}
	if !p.warm[n] {
		round() // untimed: class loading and the JIT, on both sides
		p.warm[n] = true
	}
	b.ResetTimer()
	rounds := make([][]peerSample, len(contenders)) // by contender, one per round
	for range b.N {
		for i, s := range round() {
			rounds[i] = append(rounds[i], s)
		}
		p.rounds++
	}
	b.StopTimer()
	perEvent := func(ds []time.Duration) float64 {
		return float64(median(ds)) / float64(n)
	}
	pick := func(ss []peerSample, f func(peerSample) time.Duration) []time.Duration {
		ds := make([]time.Duration, len(ss))
		for i, s := range ss {
			ds[i] = f(s)
		}
		return ds
	}
	cpu := func(s peerSample) time.Duration { return s.cpu }
	wall := func(s peerSample) time.Duration { return s.wall }
	records := func(s peerSample) time.Duration { return s.records }
	b.ReportMetric(perEvent(pick(rounds[0], cpu)), "reference-cpu-ns/event")
	b.ReportMetric(perEvent(pick(rounds[0], wall)), "reference-ns/event")
	for i, c := range contenders[1:] {
		ss := rounds[i+1]
		if !strings.HasPrefix(c.name, "flink-") {
			b.ReportMetric(perEvent(pick(ss, cpu)), c.name+"-cpu-ns/event")
			b.ReportMetric(perEvent(pick(ss, wall)), c.name+"-ns/event")
			continue
		}
		b.ReportMetric(perEvent(pick(ss, cpu)), c.name+"-cpu-ns/event")
		b.ReportMetric(perEvent(pick(ss, wall)), c.name+"-ns/event")
		b.ReportMetric(perEvent(pick(ss, records)), c.name+"-records-ns/event")
		b.ReportMetric(stagebench.Ratios(pick(rounds[0], cpu), pick(ss, cpu)).Median, c.name+"/reference")
	}
}

// median returns the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	if len(ds)%2 == 1 {
		return ds[len(ds)/2]
	}
	return (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
}
