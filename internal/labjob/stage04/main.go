//go:build lab && labjob

// Command stage04 runs stage 04's demo stream through the learner's lab/
// as flink/…/jobs/Stage04Checkpoints runs it through Flink, and prints the same JSON
// lines: the results, then the late events. The lab takes a snapshot after RestoreAfter events and goes on in a processor restored from it, which the source replays to; Flink's job runs uninterrupted. de flink FLK-BYO/04 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(4, run) }

// run processes the events before the snapshot, restores a new processor
// from it, gives it the rest, and flushes that one.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewProcessor(lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness})
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
	q, err := lab.RestoreProcessor(snap)
	if err != nil {
		return jobio.Output{}, err
	}
	for _, e := range s.Events[s.RestoreAfter:] {
		out.Results = append(out.Results, q.Process(e)...)
	}
	out.Results = append(out.Results, q.Flush()...)
	out.Late = append(out.Late, q.Late()...) // a restored processor's Late starts empty
	return out, nil
}
