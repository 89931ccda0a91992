//go:build lab || solution

package twophase

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestRunJobRejectsInvalidConfig certifies that RunJob returns an error, and commits nothing, for a checkpoint interval below 1, an invalid processor config or an empty Dir, whether it would start fresh or resume from a checkpoint.
func TestRunJobRejectsInvalidConfig(t *testing.T) {
	defer suite.Recover(t)
	source := []kit.Event{{ID: "e1", Key: "a", TS: 5, Value: 1}, {ID: "e2", Key: "a", TS: 250, Value: 2}}
	valid := Config{WindowSize: 100}
	for _, c := range []struct {
		name  string
		cfg   Config
		every int
		noDir bool
		why   string
	}{
		{"CheckpointEvery 0", valid, 0, false, "a checkpoint after every 0 events is no interval at all"},
		{"CheckpointEvery -3", valid, -3, false, "the interval must be at least 1"},
		{"WindowSize 0", Config{WindowSize: 0}, 5, false, "the processor config is invalid (NewProcessor rejects it)"},
		{"WatermarkDelay -1", Config{WindowSize: 100, WatermarkDelay: -1}, 5, false, "the processor config is invalid (NewProcessor rejects it)"},
		{"empty Dir", valid, 5, true, "the job has nowhere to keep its checkpoints and output"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			dir := suite.TempDir(t)
			cfg := JobConfig{Processor: c.cfg, Dir: dir, CheckpointEvery: c.every}
			if c.noDir {
				cfg.Dir = ""
			}
			if err := RunJob(cfg, source); err == nil {
				t.Errorf("RunJob(%+v) = nil, want an error: %s", cfg, c.why)
			}
			if !c.noDir {
				expectCommitted(t, dir, "after RunJob with an invalid config", nil, "a job that cannot start commits nothing")
			}
		})
	}

	// The same configs on a Dir the job would resume from: a finished run's.
	// A check made only on the fresh start, next to NewProcessor, lets a
	// restarted job run on with a bad interval (on a finished Dir, with
	// nothing left to read, it even returns nil).
	for _, c := range []struct {
		name  string
		cfg   Config
		every int
		why   string
	}{
		{"CheckpointEvery 0", valid, 0, "a checkpoint after every 0 events is no interval at all, for a resumed job too"},
		{"WindowSize 0", Config{WindowSize: 0}, 1, "the processor config is invalid (NewProcessor rejects it), whatever the checkpoint holds"},
	} {
		t.Run("resuming, "+c.name, func(t *testing.T) {
			defer suite.Recover(t)
			dir := suite.TempDir(t)
			if err := RunJob(JobConfig{Processor: valid, Dir: dir, CheckpointEvery: 1}, source); err != nil {
				t.Fatalf("RunJob(a valid config) = %v, want nil", err)
			}
			done, err := ReadCommitted(dir)
			if err != nil {
				t.Fatalf("ReadCommitted after a finished run = %v, want its results", err)
			}
			cfg := JobConfig{Processor: c.cfg, Dir: dir, CheckpointEvery: c.every}
			if err := RunJob(cfg, source); err == nil {
				t.Errorf("RunJob(%+v) on a Dir whose run finished = nil, want an error: %s. Check the config before\n"+
					"you look for a checkpoint, not only on the path that starts fresh: a restart is where a bad deploy shows.", cfg, c.why)
			}
			expectCommitted(t, dir, "after RunJob with an invalid config on a finished Dir", done, "a job that cannot start commits nothing more")
		})
	}
}

// TestJobCommitsEveryResultExactlyOnce certifies that RunJob without a crash commits exactly the processor's results (late events excepted) in order, and that running it again on the finished Dir changes nothing.
func TestJobCommitsEveryResultExactlyOnce(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cases := []struct {
		name string
		spec jobSpec
	}{
		{"a checkpoint after every event", randomSpec(rnd, Config{WindowSize: 100, WatermarkDelay: 40}, 23, 1, 80)},
		{"a checkpoint every 7 events", randomSpec(rnd, Config{WindowSize: 100, WatermarkDelay: 40}, 101, 7, 80)},
		{"source length a multiple of the interval", randomSpec(rnd, Config{WindowSize: 60, WatermarkDelay: 25}, 90, 10, 40)},
		{"interval longer than the source", randomSpec(rnd, Config{WindowSize: 100, WatermarkDelay: 40}, 50, 1000, 80)},
		{"allowed lateness: updates in the output", randomSpec(rnd, Config{WindowSize: 150, WatermarkDelay: 30, AllowedLateness: 200}, 120, 9, 120)},
		{"empty source", jobSpec{Processor: Config{WindowSize: 100}, Every: 3}},
	}
	// WithDuplicates may lengthen a source to a multiple of its interval;
	// that is fine here: this test does not count checkpoints.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			want := newOracle(t, c.spec).all()
			dir := suite.TempDir(t)
			if err := RunJob(c.spec.config(dir, nil), c.spec.Source); err != nil {
				t.Fatalf("RunJob (%v) = %v, want nil", c.spec, err)
			}
			expectCommitted(t, dir, "after RunJob ("+c.spec.String()+")", want,
				"when RunJob returns, every result the processor produced over the source (and its Flush) is committed,\n"+
					"once, in the order it was produced; late events are side output, not results, and are not written")
			if err := RunJob(c.spec.config(dir, nil), c.spec.Source); err != nil {
				t.Fatalf("RunJob again on the finished Dir = %v, want nil: a restart after the job finished resumes from its final checkpoint", err)
			}
			expectCommitted(t, dir, "after RunJob ran a second time on the same Dir", want,
				"the second run resumes from the final checkpoint: the source is consumed, the processor flushed and its\n"+
					"results committed, so there is nothing left to do. Starting over instead would publish everything twice")
		})
	}
}

// TestJobFollowsCheckpointProtocol certifies that RunJob checkpoints after every n source events and at the end, calls OnStep at every step in protocol order with increasing ids, and publishes a checkpoint's results only at its commit.
func TestJobFollowsCheckpointProtocol(t *testing.T) {
	defer suite.Recover(t)
	for i, spec := range crashSpecs(suite.Rand(t)) {
		t.Run(fmt.Sprintf("job %d", i+1), func(t *testing.T) {
			defer suite.Recover(t)
			o := newOracle(t, spec)
			dir := suite.TempDir(t)
			recs, err := runRecorded(spec, dir)
			if err != nil {
				t.Fatalf("RunJob (%v) = %v, want nil", spec, err)
			}
			steps := fmtSteps(recs, 40)
			protocol := []Step{StepBeforePreCommit, StepAfterPreCommit, StepStored, StepAfterCommit}
			at := 0
			var lastID int64
			for c := 1; c <= o.checkpoints(); c++ {
				from, to := (c-1)*spec.Every, min(c*spec.Every, len(spec.Source))
				writes := 0
				for at < len(recs) && recs[at].step == StepWrite {
					writes, at = writes+1, at+1
				}
				if want := len(o.perCheckpoint[c-1]); writes != want {
					what := fmt.Sprintf("the events at offsets [%d,%d)", from, to)
					if c == o.checkpoints() {
						what += " and of Flush"
					}
					t.Fatalf("checkpoint %d of %d came after %d writes, want %d: the results of %s.\n"+
						"A checkpoint is taken after every %d source events, counted from the start of the source, and a final one\n"+
						"after Flush; every result is written to the sink, with OnStep(%q, …) after each write.\nsteps: %s",
						c, o.checkpoints(), writes, want, what, spec.Every, StepWrite, steps)
				}
				var id int64
				for k, want := range protocol {
					if at >= len(recs) || recs[at].step != want {
						got := "the end of the run"
						if at < len(recs) {
							got = fmt.Sprintf("%s(%d)", recs[at].step, recs[at].id)
						}
						t.Fatalf("checkpoint %d of %d: step %d is %s, want %s.\nEach checkpoint goes through %v in this order "+
							"(a crash test kills the job at each of them).\nsteps: %s", c, o.checkpoints(), k+1, got, want, protocol, steps)
					}
					rec := recs[at]
					at++
					if k == 0 {
						id = rec.id
						if c > 1 && id <= lastID {
							t.Errorf("checkpoint %d has id %d after checkpoint id %d: ids must increase, because ReadCommitted "+
								"returns transactions in checkpoint-id order.\nsteps: %s", c, id, lastID, steps)
						}
						lastID = id
					} else if rec.id != id {
						t.Errorf("checkpoint %d: OnStep(%q, %d) within checkpoint %d: every step of a checkpoint carries its id.\nsteps: %s",
							c, rec.step, rec.id, id, steps)
					}
					if rec.readErr != nil {
						t.Fatalf("ReadCommitted at %s of checkpoint %d = %v, want no error", rec.step, c, rec.readErr)
					}
					earlier := "nothing may be visible yet"
					if c > 1 {
						earlier = fmt.Sprintf("only the results of checkpoints 1..%d may be visible", c-1)
					}
					visible, why := o.through(c-1), fmt.Sprintf("checkpoint %d is not committed yet at %s: %s. Its own transaction "+
						"becomes visible at its commit, after the checkpoint is stored: a crash before that replays these results, and "+
						"had they been visible, they would appear twice", c, rec.step, earlier)
					if rec.step == StepAfterCommit {
						visible, why = o.through(c), fmt.Sprintf("at %s of checkpoint %d its transaction is committed: the results "+
							"of checkpoints 1..%d are visible, each once, in order", rec.step, c, c)
					}
					if !slices.Equal(rec.committed, visible) {
						t.Fatalf("ReadCommitted at %s of checkpoint %d of %d returned %d results, want %d.\n%s\n%s",
							rec.step, c, o.checkpoints(), len(rec.committed), len(visible), why,
							diffResults(rec.committed, visible))
					}
				}
			}
			if at != len(recs) {
				t.Errorf("after the final checkpoint (number %d: the source has %d events, one every %d, plus the final one after Flush) "+
					"RunJob went on with %s: nothing may follow the final commit.\nsteps: %s",
					o.checkpoints(), len(spec.Source), spec.Every, fmtSteps(recs[at:], 5), steps)
			}
		})
	}
}
