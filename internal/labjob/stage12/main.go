//go:build lab && labjob

// Command stage12 runs stage 12's demo stream through the learner's lab/
// as flink/…/jobs/Stage12RocksDb runs it through Flink, and prints the same JSON
// lines: the results, then the late events. The lab keeps its state in Pebble under the work folder, checkpoints it after RestoreAfter events and goes on in a processor on a copy restored from the checkpoint, which the source replays to; Flink's job runs uninterrupted. de flink FLK-BYO/12 builds and runs it.
package main

import (
	"errors"
	"path/filepath"

	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/labjob"
	"github.com/flk-byo/course/lab"
)

func main() { labjob.Main(12, run) }

// run processes the events before the checkpoint on a Pebble backend,
// checkpoints it, restores a copy, gives the rest to a processor on the
// copy, and flushes that one.
func run(in labjob.Input) (out jobio.Output, err error) {
	s := in.Stream
	if in.Dir == "" {
		return out, errors.New("stage 12's driver needs a folder for the Pebble stores")
	}
	cfg := lab.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness}
	live, err := lab.OpenPebbleBackend(filepath.Join(in.Dir, "live"), lab.MinPebbleBudget)
	if err != nil {
		return out, err
	}
	defer func() { err = errors.Join(err, live.Close()) }()
	p, err := lab.NewBackendProcessor(cfg, live)
	if err != nil {
		return out, err
	}
	for _, e := range s.Events[:s.RestoreAfter] {
		out.Results = append(out.Results, p.Process(e)...)
	}
	out.Late = p.Late()
	ckpt := filepath.Join(in.Dir, "checkpoint")
	if err := p.Checkpoint(ckpt); err != nil {
		return out, err
	}
	restored, err := lab.RestorePebbleBackend(ckpt, filepath.Join(in.Dir, "restored"), lab.MinPebbleBudget)
	if err != nil {
		return out, err
	}
	defer func() { err = errors.Join(err, restored.Close()) }()
	q, err := lab.NewBackendProcessor(cfg, restored)
	if err != nil {
		return out, err
	}
	for _, e := range s.Events[s.RestoreAfter:] {
		out.Results = append(out.Results, q.Process(e)...)
	}
	out.Results = append(out.Results, q.Flush()...)
	out.Late = append(out.Late, q.Late()...)
	return out, nil
}
