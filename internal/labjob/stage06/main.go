//go:build lab && labjob

// Command stage06 runs stage 06's demo stream through the learner's lab/
// as flink/…/jobs/Stage06Rescaling runs it through Flink, and prints the same JSON
// lines: the results, then the late events. The lab's job is rescaled from Parallelism to RestoreParallelism subtasks after RestoreAfter events; Flink's job runs on Parallelism subtasks throughout. de flink FLK-BYO/06 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(6, run) }

// run processes the events before the rescale on Parallelism subtasks,
// restores the snapshot on RestoreParallelism, gives that the rest, and
// flushes it.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewParallelProcessor(lab.ParallelConfig{
		Processor:   lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness},
		Parallelism: s.Parallelism, MaxParallelism: s.MaxParallelism,
	})
	if err != nil {
		return jobio.Output{}, err
	}
	var out jobio.Output
	for _, e := range s.Events[:s.RestoreAfter] {
		out.Results = append(out.Results, p.Process(e)...)
	}
	out.Late = p.Late()
	snap, err := p.Snapshot()
	if err != nil {
		return jobio.Output{}, err
	}
	q, err := lab.RestoreParallelProcessor(snap, s.RestoreParallelism, s.MaxParallelism)
	if err != nil {
		return jobio.Output{}, err
	}
	for _, e := range s.Events[s.RestoreAfter:] {
		out.Results = append(out.Results, q.Process(e)...)
	}
	out.Results = append(out.Results, q.Flush()...)
	out.Late = append(out.Late, q.Late()...)
	return out, nil
}
