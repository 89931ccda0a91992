//go:build lab && labjob

// Command stage10 runs stage 10's demo stream through the learner's lab/
// as flink/…/jobs/Stage10SeenTtl runs it through Flink, and prints the same JSON
// lines: the results, then the late events. de flink FLK-BYO/10 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(10, run) }

// run processes every event through a processor that forgets IDs SeenTTL behind the watermark, then flushes.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewSeenTTLProcessor(lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness}, s.SeenTTL)
	if err != nil {
		return jobio.Output{}, err
	}
	return labjob.RunWindows(p, s.Events), nil
}
