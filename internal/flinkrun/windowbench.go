package flinkrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// WindowBenchSpec is a "windowbench" scenario's spec: the file of events,
// JSON lines of Event (WriteEvents), which the runner reads once and holds
// for every pass over it.
type WindowBenchSpec struct {
	Events string `json:"events"`
}

// WindowBenchOp is one pass of the benchmark job: its variant, the state
// backend ("hashmap" or "rocksdb"), optionally followed by "+nodedup" (no
// dedup step) and "+periodic" (watermarks every 200 ms of processing time
// instead of after every event).
type WindowBenchOp struct {
	Variant string `json:"variant"`
}

// Pass is what one pass of the benchmark job measured and produced, as the
// runner's dev.flkbyo.flink.bench.Pass says it. WallNs and CPUNs are the
// whole job's: from building its pipeline to its result (submission,
// deployment, every event, teardown); RecordsWallNs and RecordsCPUNs the
// records' alone: from the source's first event to the sink's closing
// after the last result (0 if not seen). CPU time is the JVM's, every
// thread's. Results, Hash, Counted and Summed are the job's results folded
// as a Digest folds them; Late counts its late events.
type Pass struct {
	Variant       string `json:"variant"`
	Events        int64  `json:"events"`
	WallNs        int64  `json:"wallNs"`
	CPUNs         int64  `json:"cpuNs"`
	RecordsWallNs int64  `json:"recordsWallNs"`
	RecordsCPUNs  int64  `json:"recordsCpuNs"`
	Results       int64  `json:"results"`
	Hash          int64  `json:"hash"`
	Counted       int64  `json:"counted"`
	Summed        int64  `json:"summed"`
	Late          int64  `json:"late"`
}

// Digest returns the digest of the pass's output.
func (p Pass) Digest() Digest {
	return Digest{Results: p.Results, Hash: uint64(p.Hash), Counted: p.Counted, Summed: p.Summed, Late: p.Late}
}

// RunWindowBench runs the benchmark job (the runner's WindowBench: stage
// 01's window job behind the dedup step, on a MiniCluster in the runner's
// JVM at parallelism 1 with object reuse) once per variant, in order, over
// the events of spec's file, and returns one Pass per variant.
func (r *Runner) RunWindowBench(spec WindowBenchSpec, variants ...string) ([]Pass, error) {
	ops := make([]WindowBenchOp, len(variants))
	for i, v := range variants {
		ops[i] = WindowBenchOp{Variant: v}
	}
	return runSteps[Pass](r, "windowbench", spec, ops)
}

// WriteEvents writes events to the file path, one JSON object a line, as
// the runner and the graduation jobs read them.
func WriteEvents(path string, events []Event) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the events: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return fmt.Errorf("writing the events to %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing the events to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the events to %s: %w", path, err)
	}
	return nil
}

// Digest is an order-independent summary of a window job's output: the
// number of results, the sum (modulo 2^64) of their hashes (HashResult),
// the sums of their counts and of their sums, and the number of late
// events. Equal multisets of results give equal digests, whatever order
// they came in: Flink's timers' order or the course's (End, Start, Key).
// The runner's dev.flkbyo.flink.bench.Digest folds Flink's output the same
// way; both are pinned to the same known answers.
type Digest struct {
	Results int64
	Hash    uint64
	Counted int64
	Summed  int64
	Late    int64
}

// Add folds one result into d.
func (d *Digest) Add(r Result) {
	d.Results++
	d.Hash += HashResult(r)
	d.Counted += r.Count
	d.Summed += r.Sum
}

// String renders d for a failure message.
func (d Digest) String() string {
	return fmt.Sprintf("%d results (hash %#016x, counts %d, sums %d), %d late", d.Results, d.Hash, d.Counted, d.Summed, d.Late)
}

// HashResult is a result's 64-bit hash: FNV-1a over the key's UTF-8
// bytes, then start, end, count, sum and update (1 or 0) each xor-ed in
// and mixed with SplitMix64's finalizer.
func HashResult(r Result) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(r.Key); i++ {
		h = (h ^ uint64(r.Key[i])) * 0x100000001b3
	}
	h = mix(h ^ uint64(r.Start))
	h = mix(h ^ uint64(r.End))
	h = mix(h ^ uint64(r.Count))
	h = mix(h ^ uint64(r.Sum))
	update := uint64(0)
	if r.Update {
		update = 1
	}
	return mix(h ^ update)
}

// mix is SplitMix64's finalizer.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
