//go:build lab && labjob

// Command stage08 runs stage 08's demo stream through the learner's lab/
// as flink/…/jobs/Stage08Sessions runs it through Flink, and prints the same JSON
// lines: the changelog, then the late events. de flink FLK-BYO/08 builds and runs it.
package main

import (
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(8, run) }

// run processes every event and after each raises the watermark to the
// largest timestamp seen minus WatermarkDelay (the session processor takes
// its watermark from upstream), then flushes.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	p, err := lab.NewSessionProcessor(lab.SessionConfig{Gap: s.Gap, AllowedLateness: s.AllowedLateness})
	if err != nil {
		return jobio.Output{}, err
	}
	wm := labjob.Watermarks{Delay: s.WatermarkDelay}
	var out jobio.Output
	for _, e := range s.Events {
		out.Results = append(out.Results, p.Process(e)...)
		out.Results = append(out.Results, p.AdvanceWatermark(wm.After(e.TS))...)
	}
	out.Results = append(out.Results, p.Flush()...)
	out.Late = p.Late()
	return out, nil
}
