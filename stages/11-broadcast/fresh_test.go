//go:build lab || solution

package broadcast

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// childDirEnv names the folder a fresh-process test shares with its child.
const childDirEnv = "FLK_BROADCAST_CHILD_DIR"

// childInput is what the parent hands the child: the seed of the calls
// (the child makes the same ones) and the cuts whose snapshots it restores.
type childInput struct {
	Seed uint64
	Cuts []int
}

// freshProcessOps returns the calls of the fresh-process test, made from
// seed alone, so that parent and child make the same ones.
func freshProcessOps(seed uint64) []op {
	rnd := kit.NewRand(seed)
	return append(interleave(rnd, eventStream(rnd, 40, 80, 4), ruleStream(rnd, 12, 90)), flush())
}

// TestRestoreInFreshProcess certifies that a snapshot restores, at another parallelism, in a process that did not write it, and goes on exactly as the snapshotted processor would: a snapshot depends on no pointer, map order or package state.
func TestRestoreInFreshProcess(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "restore" {
		restoreInChild(t, os.Getenv(childDirEnv))
		return
	}
	seed := suite.Seed(t)
	ops := freshProcessOps(seed)
	cfg := cfgOf(3, 4, 5)
	whole := newRun(t, cfg)
	whole.do(ops...)

	in := childInput{Seed: seed, Cuts: []int{0, len(ops) / 3, 2 * len(ops) / 3, len(ops) - 1}}
	dir := t.TempDir()
	before := newRun(t, cfg)
	emitted := map[int]int{} // cut → alerts emitted before it
	done := 0
	for _, cut := range in.Cuts {
		before.do(ops[done:cut]...)
		done = cut
		emitted[cut] = len(before.alerts)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("snapshot-%d.bin", cut)), snapshotOf(t, before.b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite.WriteGob(t, filepath.Join(dir, "input.gob"), in)
	out, err := suite.RunChild(t.Name(), "restore", childDirEnv+"="+dir)
	if err != nil {
		t.Fatalf("the child process that restores the snapshots failed (%v):\n%s", err, out)
	}
	var continued [][]Alert
	if err := suite.ReadGob(filepath.Join(dir, "output.gob"), &continued); err != nil {
		t.Fatalf("the child process wrote no alerts: %v\n%s", err, out)
	}
	if len(continued) != len(in.Cuts) {
		t.Fatalf("the child returned %d runs; want %d", len(continued), len(in.Cuts))
	}
	for i, cut := range in.Cuts {
		got := append(slices.Clone(whole.alerts[:emitted[cut]]), continued[i]...)
		if !slices.Equal(got, whole.alerts) {
			missing, extra := alertDiff(got, whole.alerts)
			t.Errorf("%s", whole.report(fmt.Sprintf("the snapshot taken after call %d of %d, restored at parallelism 5 in a fresh process, goes on\n"+
				"differently from the uninterrupted run.\nmissing:\n%sextra:\n%s", cut, len(ops), fmtAlerts(missing), fmtAlerts(extra))))
		}
	}
}

// restoreInChild is the child's side of TestRestoreInFreshProcess: restore
// each snapshot in dir at parallelism 5, make the rest of the calls, and
// write their alerts to dir/output.gob.
func restoreInChild(t *testing.T, dir string) {
	var in childInput
	if err := suite.ReadGob(filepath.Join(dir, "input.gob"), &in); err != nil {
		t.Fatal(err)
	}
	ops := freshProcessOps(in.Seed)
	var continued [][]Alert
	for _, cut := range in.Cuts {
		snap, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("snapshot-%d.bin", cut)))
		if err != nil {
			t.Fatal(err)
		}
		r := &run{t: t, b: restoreAt(t, snap, 5)}
		r.do(ops[cut:]...)
		continued = append(continued, r.alerts)
	}
	suite.WriteGob(t, filepath.Join(dir, "output.gob"), continued)
}
