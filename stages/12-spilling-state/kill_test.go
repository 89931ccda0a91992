//go:build lab || solution

package spillingstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The test in this file kills a job for real. The job runs in a child
// process of the test binary (suite.RunChild): it applies a seeded call
// sequence to a BackendProcessor over a live backend, and every few calls
// takes a checkpoint and then commits, in one rename, a record naming the
// checkpoint, the calls it covers and the output up to it. At a seeded
// call it sends itself SIGKILL. The parent then restores the backend from
// the last committed checkpoint, replays the calls after it, and compares
// the committed output and the replay's with an uninterrupted run: each
// result exactly once. The commit protocol is the suite's (stage 05 built
// the real one); what is tested is that a checkpoint holds exactly the
// state of its moment, durably, whatever the live backend did after it.

// jobSpec is what the parent hands the child job, in jobDirEnv's folder.
type jobSpec struct {
	Backend string // a backendKind's name
	Ops     []windowtest.Op
	KillAt  int // the call before which the job kills itself
	Every   int // calls between checkpoints
}

// jobCommit is what the job commits after each checkpoint.
type jobCommit struct {
	Checkpoint string       // the checkpoint's directory
	Offset     int          // the calls the checkpoint covers: Ops[:Offset]
	Output     []kit.Result // every result of those calls
}

// jobDirEnv names the environment variable that gives the child job its
// folder.
const jobDirEnv = "FLK_SPILL_JOB_DIR"

// TestKilledJobRestoresExactlyOnce certifies that on both backends, a job
// killed with SIGKILL at a seeded call, restored from its last committed
// checkpoint in a fresh process and replayed from there, outputs every
// result of an uninterrupted run exactly once, in order.
func TestKilledJobRestoresExactlyOnce(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "job" {
		runJob(t, os.Getenv(jobDirEnv))
		return
	}
	rnd := suite.Rand(t)
	for _, kind := range backends {
		for run := range 3 {
			t.Run(fmt.Sprintf("%s kill %d", kind.name, run+1), func(t *testing.T) {
				defer suite.Recover(t)
				ops := randomOps(rnd, restoreConfig, 60, 2*restoreConfig.WindowSize+restoreConfig.AllowedLateness)
				spec := jobSpec{Backend: kind.name, Ops: ops, KillAt: 1 + rnd.IntN(len(ops)-1), Every: 4 + rnd.IntN(6)}
				dir := suite.TempDir(t)
				suite.WriteGob(t, filepath.Join(dir, "spec"), spec)
				out, err := suite.RunChild("TestKilledJobRestoresExactlyOnce", "job", jobDirEnv+"="+dir)
				if !suite.KilledBySIGKILL(err) {
					t.Fatalf("the job was to kill itself before call %d; it %s:\n%s", spec.KillAt+1, suite.DescribeExit(err), out)
				}
				var c jobCommit
				b := kind.open(t) // no checkpoint committed yet: start from nothing
				if err := suite.ReadGob(filepath.Join(dir, "commit"), &c); err == nil {
					b = kind.restore(t, c.Checkpoint)
				} else if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("suite: reading the job's commit: %v", err)
				}
				rest := windowtest.Replay(newProcessor(t, restoreConfig, b), ops[c.Offset:])
				got := append(slices.Clone(c.Output), windowtest.Emitted(rest.Outs)...)
				full := reference(t, restoreConfig, ops)
				if want := windowtest.Emitted(full.Outs); !slices.Equal(got, want) {
					msg := fmt.Sprintf("%s backend: killed before call %d of %d, restored from the checkpoint after call %d, the job output:\n%s\n"+
						"A checkpoint must hold exactly the state after the calls it covers, on disk when Checkpoint returns,\n"+
						"whatever the live backend did next: then the replay from it gives every later result once.",
						kind.name, spec.KillAt+1, len(ops), c.Offset, windowtest.DiffResults(got, want))
					cut := windowtest.Cut{Ops: ops, Full: full, At: c.Offset, LateAtCut: reference(t, restoreConfig, ops[:c.Offset]).Late, Cont: rest}
					t.Fatalf("%s%s", msg, cut.Picture(t, msg, pictureWindows(restoreConfig)))
				}
			})
		}
	}
}

// runJob is the child job: it runs the spec in dir until it kills itself.
func runJob(t *testing.T, dir string) {
	var spec jobSpec
	if err := suite.ReadGob(filepath.Join(dir, "spec"), &spec); err != nil {
		t.Fatalf("job: %v", err)
	}
	var b StateBackend
	switch spec.Backend {
	case "heap":
		b = NewHeapBackend()
	case "pebble":
		pb, err := OpenPebbleBackend(filepath.Join(dir, "live"), testBudget)
		if err != nil {
			t.Fatalf("job: OpenPebbleBackend: %v", err)
		}
		b = pb
	}
	p := newProcessor(t, restoreConfig, b)
	var out []kit.Result
	for i, op := range spec.Ops {
		if i == spec.KillAt {
			suite.KillSelf()
		}
		out = append(out, op.Apply(p)...)
		if (i+1)%spec.Every == 0 {
			c := jobCommit{Checkpoint: filepath.Join(dir, fmt.Sprintf("checkpoint-%d", i+1)), Offset: i + 1, Output: out}
			if err := p.Checkpoint(c.Checkpoint); err != nil {
				t.Fatalf("job: Checkpoint after call %d: %v", i+1, err)
			}
			suite.WriteGob(t, filepath.Join(dir, "commit.tmp"), c)
			if err := os.Rename(filepath.Join(dir, "commit.tmp"), filepath.Join(dir, "commit")); err != nil {
				t.Fatalf("job: %v", err)
			}
		}
	}
	t.Fatalf("job: ran to the end without the kill before call %d", spec.KillAt+1)
}
