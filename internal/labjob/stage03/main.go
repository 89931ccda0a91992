//go:build lab && labjob

// Command stage03 runs stage 03's demo stream through the learner's lab/
// as flink/…/jobs/Stage03Lateness runs it through Flink, and prints the same JSON
// lines: the results, then the late events. de flink FLK-BYO/03 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(3, run) }

// run processes every event, then flushes.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewProcessor(lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness})
	if err != nil {
		return jobio.Output{}, err
	}
	return labjob.RunWindows(p, s.Events), nil
}
