//go:build lab && labjob

// Command stage09 runs stage 09's demo stream through the learner's lab/
// as flink/…/jobs/Stage09Sliding runs it through Flink, and prints the same JSON
// lines: the results, then the late events. de flink FLK-BYO/09 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(9, run) }

// run processes every event, then flushes.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewSlidingProcessor(lab.SlidingConfig{Size: s.WindowSize, Slide: s.Slide, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness})
	if err != nil {
		return jobio.Output{}, err
	}
	return labjob.RunWindows(p, s.Events), nil
}
