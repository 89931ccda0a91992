package stagebench

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Contender is one of the passes that Race times in turns: a name for its
// metrics and a pass over a stream of events, which must do the same work
// every time it is called.
type Contender struct {
	Name string
	Pass func()
}

// Spread is a ratio over the rounds of one run: the median of the
// round-by-round ratios and their range. One ratio of two medians would
// hide how much the machine moved; the range is the noise floor of the run.
type Spread struct {
	Median, Min, Max float64
}

// Ratios returns over[i]/of[i] for each round i, as a Spread: how many
// times faster the contender timed in of was than the one timed in over,
// each pair from the same round. It panics on slices of different lengths,
// and returns the zero Spread for none.
func Ratios(of, over []time.Duration) Spread {
	if len(of) != len(over) {
		panic(fmt.Sprintf("stagebench.Ratios: %d rounds against %d", len(of), len(over)))
	}
	if len(of) == 0 {
		return Spread{}
	}
	rs := make([]float64, len(of))
	for i := range of {
		rs[i] = float64(over[i]) / float64(max(of[i], 1))
	}
	m := median(rs) // and sorts rs
	return Spread{Median: m, Min: rs[0], Max: rs[len(rs)-1]}
}

// Report reports s under unit: the median as unit, the range as unit-min
// and unit-max.
func (s Spread) Report(b *testing.B, unit string) {
	b.ReportMetric(s.Median, unit)
	b.ReportMetric(s.Min, unit+"-min")
	b.ReportMetric(s.Max, unit+"-max")
}

// raceWork is the least number of events a timed sample of Race covers: a
// pass over 10 000 events takes a few milliseconds, within the grain of the
// CPU clock and of the machine's hiccups, so Race repeats short passes
// until a sample covers this many.
const raceWork = 200_000

// Race times the passes of contenders over a stream of events events in
// turns, one round per b.N, so that every round meets the same machine
// (noisy, shared) for each of them; a pass over a short stream is repeated
// until a sample covers raceWork events. The heap is collected before
// every sample so that one contender's garbage is not another's cost.
//
// It reports, per event, the median CPU time of each contender as
// <name>-cpu-ns/event, and the first contender's speed over each other's,
// round by round, as <first>/<name> with its range (see Spread): 1.5 means
// the first did the same work in two thirds of the time. Run it with a
// fixed -benchtime Nx for N rounds.
func Race(b *testing.B, events int, contenders ...Contender) {
	reps := max(1, raceWork/events)
	passes := make([]func() time.Duration, len(contenders))
	for i, c := range contenders {
		passes[i] = sample(reps, c.Pass)
	}
	samples := collect(b, passes...)
	for i, c := range contenders {
		if i > 0 {
			Ratios(samples[0], samples[i]).Report(b, contenders[0].Name+"/"+c.Name)
		}
	}
	for i, c := range contenders {
		b.ReportMetric(perItem(median(samples[i]), reps, events), c.Name+"-cpu-ns/event")
	}
}

// Lengths times pass over the first n events of one stream, for each n of
// lengths, in turns, one round per b.N, as Race times its contenders: so
// the cost per event at each length is measured in the same process, at
// the same moments of the machine, and, when pass takes prefixes of one
// stream the caller holds (as BenchmarkLengths does), with the same heap:
// the only thing that differs from one length to the next is then how far
// into the stream the processor has got. pass(n) must do
// the same work every time it is called with n; a short pass is repeated
// until a sample covers raceWork events.
//
// It reports the median CPU time per event at each length as
// <name>-<n>-cpu-ns/event, and, round by round, each later length's cost
// per event over the first's as <name>-<n>/<first> with its range (see
// Spread): 1.0 is a cost that does not depend on how long the stream has
// run.
func Lengths(b *testing.B, name string, lengths []int, pass func(n int)) {
	reps := make([]int, len(lengths)) // the passes a sample of each length takes
	passes := make([]func() time.Duration, len(lengths))
	for i, n := range lengths {
		reps[i] = max(1, raceWork/n)
		passes[i] = sample(reps[i], func() { pass(n) })
	}
	samples := collect(b, passes...)
	// Each sample per event, in picoseconds, so that lengths compare.
	perEvent := make([][]time.Duration, len(lengths))
	for i, n := range lengths {
		perEvent[i] = make([]time.Duration, b.N)
		for r, d := range samples[i] {
			perEvent[i][r] = d * 1000 / time.Duration(reps[i]*n)
		}
	}
	for i, n := range lengths[1:] {
		Ratios(perEvent[0], perEvent[i+1]).Report(b, fmt.Sprintf("%s-%d/%d", name, n, lengths[0]))
	}
	for i, n := range lengths {
		b.ReportMetric(perItem(median(samples[i]), reps[i], n), fmt.Sprintf("%s-%d-cpu-ns/event", name, n))
	}
}

// sample returns a timed sample of Race and Lengths: pass run reps times
// after a garbage collection, so that no earlier pass's garbage is this
// one's cost, and the process's CPU time that took.
func sample(reps int, pass func()) func() time.Duration {
	return func() time.Duration {
		runtime.GC()
		start := cpuTime()
		for range reps {
			pass()
		}
		return cpuTime() - start
	}
}

// CPUTime returns the CPU time the process has used so far, user and
// system, on all its threads (see cpuTime): for a benchmark outside this
// package that times a pass of its own the way Race does, such as
// flink/parity's BenchmarkFlinkPeer, which times the reference beside a JVM.
func CPUTime() time.Duration { return cpuTime() }
