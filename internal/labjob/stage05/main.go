//go:build lab && labjob

// Command stage05 runs stage 05's demo stream through the learner's lab/
// as flink/…/jobs/Stage05TwoPhaseCommit runs it through Flink, and prints the same JSON
// lines: the committed results. The lab's job crashes after pre-committing checkpoint CrashAfterPreCommit, then a second run recovers; Flink's job runs uninterrupted. de flink FLK-BYO/05 builds and runs it.
package main

import (
	"errors"
	"fmt"

	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(5, run) }

// crash is the panic value the first run is crashed with.
type crash struct{}

// run runs the job into in.Dir, crashing it once, runs it again, and reads
// what it committed.
func run(in labjob.Input) (jobio.Output, error) {
	s := in.Stream
	if in.Dir == "" {
		return jobio.Output{}, errors.New("stage 05's driver needs a folder for the job's files")
	}
	cfg := lab.JobConfig{
		Processor:       lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness},
		Dir:             in.Dir,
		CheckpointEvery: s.CheckpointEvery,
		OnStep: func(step lab.Step, id int64) {
			if step == lab.StepAfterPreCommit && id == s.CrashAfterPreCommit {
				panic(crash{})
			}
		},
	}
	crashed, err := runCrashing(cfg, s.Events)
	if err != nil {
		return jobio.Output{}, fmt.Errorf("the first run, before its crash: %w", err)
	}
	if !crashed {
		return jobio.Output{}, fmt.Errorf("the job never reached checkpoint %d's pre-commit, where the demo crashes it", s.CrashAfterPreCommit)
	}
	cfg.OnStep = nil
	if err := lab.RunJob(cfg, s.Events); err != nil {
		return jobio.Output{}, fmt.Errorf("the recovering run: %w", err)
	}
	committed, err := lab.ReadCommitted(in.Dir)
	if err != nil {
		return jobio.Output{}, err
	}
	return jobio.Output{Results: committed}, nil
}

// runCrashing runs the job and reports whether it crashed (panicked with
// crash{}); any other panic goes on.
func runCrashing(cfg lab.JobConfig, source []kit.Event) (crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return false, lab.RunJob(cfg, source)
}
