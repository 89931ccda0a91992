//go:build lab || solution

package checkpoint

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// cutConfigs are the configurations the restore-and-continue tests run, each
// with the disorder of its input. The disorder is above the delay, so that
// some events arrive behind the watermark: corrections (IsUpdate) within the
// allowed lateness, side output beyond it. The last one's lateness is so
// large that end + AllowedLateness overflows: its windows take corrections
// until Flush, and an expiry check that does not saturate refuses them.
var cutConfigs = []struct {
	cfg   Config
	bound int64
}{
	{Config{WindowSize: 100}, 60},
	{Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 150}, 250},
	{Config{WindowSize: 37, WatermarkDelay: 10, AllowedLateness: 1000}, 120},
	{Config{WindowSize: 1000, WatermarkDelay: 200, AllowedLateness: 300}, 900},
	{Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: math.MaxInt64}, 250},
}

// cutEvents is the number of events of each restore-and-continue input.
const cutEvents = 120

func cutName(cfg Config) string {
	return fmt.Sprintf("size=%d/delay=%d/lateness=%d", cfg.WindowSize, cfg.WatermarkDelay, cfg.AllowedLateness)
}

// snapshotAtEveryCut makes the calls ops on a new processor for cfg and
// snapshots it before every call and after the last. It returns, for each
// cut point k, the snapshot taken after k calls and the cut run so far
// (Cut, LateAtCut, WMAtCut, PrefixOuts, SnapshotLen). It fails t and
// returns false if a call returns anything other than what the
// uninterrupted run full returned: taking a snapshot must not disturb the
// processor.
func snapshotAtEveryCut(t *testing.T, cfg Config, ops []op, full trace) ([][]byte, []cutRun, bool) {
	t.Helper()
	p := newProcessor(t, cfg)
	snaps := make([][]byte, len(ops)+1)
	runs := make([]cutRun, len(ops)+1)
	outs := make([][]kit.Result, 0, len(ops))
	for k := range snaps {
		snaps[k] = snapshotOf(t, p)
		runs[k] = cutRun{
			Cut: k, LateAtCut: p.Late(), WMAtCut: p.Watermark(),
			PrefixOuts: slices.Clone(outs), SnapshotLen: len(snaps[k]),
		}
		if k == len(ops) {
			break
		}
		out := ops[k].Apply(p)
		if !slices.Equal(out, full.Outs[k]) {
			t.Errorf("Config %+v: with a Snapshot() before every call, call %d %v returned\n%s\nwithout snapshots it returned\n%s\n"+
				"Taking a snapshot must not change the processor: the job keeps processing right after it.",
				cfg, k+1, ops[k], fmtResults(out), fmtResults(full.Outs[k]))
			return nil, nil, false
		}
		outs = append(outs, out)
	}
	return snaps, runs, true
}

// TestRestoreAtEveryCutPointEqualsUninterruptedRun certifies that snapshotting after any call, restoring, and continuing gives exactly the results and side output of one uninterrupted run.
//
// The inputs are seeded, shuffled beyond the delay (so corrections and late
// events happen), with duplicates, AdvanceWatermark calls, a Flush and
// events after it. Every cut point is tried, from before the first call to
// after the last.
func TestRestoreAtEveryCutPointEqualsUninterruptedRun(t *testing.T) {
	defer suite.Recover(t)
	for _, cc := range cutConfigs {
		t.Run(cutName(cc.cfg), func(t *testing.T) {
			defer suite.Recover(t)
			cfg := cc.cfg
			ops := genOps(suite.Rand(t), cfg, cutEvents, cc.bound)
			full := runOps(newProcessor(t, cfg), ops)
			snaps, runs, ok := snapshotAtEveryCut(t, cfg, ops, full)
			if !ok {
				return
			}
			for k, snap := range snaps {
				c := runs[k]
				c.Where = "in this process"
				r := restoreOf(t, snap)
				c.WMRestored = r.Watermark()
				c.Continued = runOps(r, ops[k:])
				if !checkCutRun(t, cfg, ops, full, c) {
					return // the first failing cut is the one to read
				}
			}
		})
	}
}

// childDirEnv names the environment variable that passes the exchange
// folder to the child process of TestRestoreInFreshProcessEqualsUninterruptedRun.
const childDirEnv = "FLK_CHECKPOINT_DIR"

// childInput is what the parent hands the child, in input.gob: the calls,
// and which cut points have a snapshot file snapshot-<cut>.bin. The files
// are gob, not JSON, which would replace the invalid UTF-8 of awkward keys
// and IDs.
type childInput struct {
	Ops  []op
	Cuts []int
}

// TestRestoreInFreshProcessEqualsUninterruptedRun certifies that a snapshot restored in a fresh process continues exactly as the uninterrupted run.
//
// The parent writes snapshots to files; a child process of the test binary
// restores them, makes the rest of the calls and writes back what it got.
// A fresh process shares nothing with the one that took the snapshot: not
// the memory, not the map hash seed, not a package-level variable.
func TestRestoreInFreshProcessEqualsUninterruptedRun(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "restore" {
		restoreInChild(t, os.Getenv(childDirEnv))
		return
	}
	cc := cutConfigs[1] // lateness > 0: fired-but-not-expired windows cross the process boundary
	cfg := cc.cfg
	rnd := suite.Rand(t)
	ops := genOps(rnd, cfg, cutEvents, cc.bound)
	full := runOps(newProcessor(t, cfg), ops)
	snaps, runs, ok := snapshotAtEveryCut(t, cfg, ops, full)
	if !ok {
		return
	}

	// A few cut points: the start, the end, and some in between.
	cuts := []int{0, len(ops)}
	for range 4 {
		cuts = append(cuts, 1+rnd.IntN(len(ops)-1))
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)

	dir := t.TempDir()
	suite.WriteGob(t, filepath.Join(dir, "input.gob"), childInput{Ops: ops, Cuts: cuts})
	for _, k := range cuts {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("snapshot-%d.bin", k)), snaps[k])
	}

	out, err := suite.RunChild(t.Name(), "restore", childDirEnv+"="+dir)
	if err != nil {
		t.Fatalf("the child process that restores the snapshots failed (%v):\n%s", err, indent(string(out)))
	}
	var got []cutRun
	if err := suite.ReadGob(filepath.Join(dir, "output.gob"), &got); err != nil {
		t.Fatalf("the child process wrote no results: %v\n%s", err, indent(string(out)))
	}
	if len(got) != len(cuts) {
		t.Fatalf("the child returned %d runs, want %d", len(got), len(cuts))
	}
	for i, k := range cuts {
		c := runs[k]
		c.Where = "in a fresh process"
		c.WMRestored, c.Continued = got[i].WMRestored, got[i].Continued
		if !checkCutRun(t, cfg, ops, full, c) {
			return
		}
	}
}

// restoreInChild is the child's side of the fresh-process test: restore
// each snapshot in dir, make the rest of the calls, and write what happened
// to dir/output.gob.
func restoreInChild(t *testing.T, dir string) {
	var in childInput
	if err := suite.ReadGob(filepath.Join(dir, "input.gob"), &in); err != nil {
		t.Fatal(err)
	}
	var runs []cutRun
	for _, k := range in.Cuts {
		snap, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("snapshot-%d.bin", k)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := RestoreProcessor(snap)
		if err != nil || p == nil {
			t.Fatalf("in the fresh process, RestoreProcessor(the snapshot taken after call %d, %d bytes) = %v, %v; want a processor.\n"+
				"A snapshot must not depend on the process that wrote it: no pointers, no map order, no package state.",
				k, len(snap), p, err)
		}
		runs = append(runs, cutRun{Cut: k, WMRestored: p.Watermark(), Continued: runOps(p, in.Ops[k:])})
	}
	suite.WriteGob(t, filepath.Join(dir, "output.gob"), runs)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// indent indents every line of s by four spaces.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// TestConfigSurvivesRestore certifies that a processor restored from a snapshot of a new processor behaves as a new processor with the same Config, values at the int64 edges and beyond 2⁵³ included.
func TestConfigSurvivesRestore(t *testing.T) {
	defer suite.Recover(t)
	edge := struct {
		cfg   Config
		bound int64
	}{Config{WindowSize: 1<<53 + 1, WatermarkDelay: 1<<53 + 1, AllowedLateness: math.MaxInt64}, 1 << 55}
	for _, cc := range append(slices.Clone(cutConfigs), edge) {
		t.Run(cutName(cc.cfg), func(t *testing.T) {
			defer suite.Recover(t)
			cfg := cc.cfg
			r := restoreOf(t, snapshotOf(t, newProcessor(t, cfg)))
			if wm := r.Watermark(); wm != math.MinInt64 {
				t.Fatalf("Watermark() of a processor restored from a new processor's snapshot = %s, want math.MinInt64: nothing has happened yet",
					kit.FormatWatermark(wm))
			}
			ops := genOps(suite.Rand(t), cfg, 60, cc.bound)
			want := runOps(newProcessor(t, cfg), ops)
			got := runOps(r, ops)
			for i := range ops {
				if !slices.Equal(got.Outs[i], want.Outs[i]) {
					t.Errorf("Config %+v, restored before any event: call %d %v returned\n%s\na new processor returned\n%s\n"+
						"The Config is state: WindowSize, WatermarkDelay and AllowedLateness all go into the snapshot.",
						cfg, i+1, ops[i], fmtResults(got.Outs[i]), fmtResults(want.Outs[i]))
					return
				}
			}
			if !slices.Equal(got.Late, want.Late) {
				t.Errorf("Config %+v, restored before any event: Late() = %s, a new processor's = %s\n"+
					"The Config is state: AllowedLateness decides what is late.", cfg, windowtest.FmtEvents(got.Late), windowtest.FmtEvents(want.Late))
			}
		})
	}
}
