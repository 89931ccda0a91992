//go:build lab && labjob

// Command stage02 runs stage 02's demo stream through the learner's lab/
// as flink/…/jobs/Stage02KeyedReduce runs it through Flink, and prints the same JSON
// lines: each key's sum, as an event. de flink FLK-BYO/02 builds and runs it.
package main

import (
	"maps"
	"slices"

	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(2, run) }

// run sums the values per key on Parallelism workers, as the demo does;
// each key's sum is its first event with the sum as its value.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	sum := func(acc, v kit.Event) kit.Event { acc.Value += v.Value; return acc }
	keyed := lab.KeyBy(lab.FromSlice(s.Events), func(e kit.Event) string { return e.Key })
	got := lab.RunParallel(keyed.Reduce(sum, s.Parallelism))
	var out jobio.Output
	for _, k := range slices.Sorted(maps.Keys(got)) {
		out.Sums = append(out.Sums, got[k])
	}
	return out, nil
}
