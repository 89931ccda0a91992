//go:build lab || solution

package rescaling

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// stateCfg is the window configuration windowtest.States is written for.
var stateCfg = Config{WindowSize: windowtest.StateWindow, WatermarkDelay: windowtest.StateDelay, AllowedLateness: windowtest.StateLateness}

// stateRescales are the parallelism changes the state tests make: up, down,
// to 1, to maxParallelism and back, and maxParallelism at its edges (1, past
// one byte, Flink's upper bound 32768).
var stateRescales = []struct{ maxP, from, to int }{
	{8, 1, 3},
	{8, 3, 2},
	{8, 4, 1},
	{8, 2, 8},
	{8, 8, 1},
	{8, 5, 5},
	{1, 1, 1},
	{256, 3, 256},
	{32768, 2, 5},
}

// TestRescaleFromEveryKindOfStateEqualsUnscaledRun certifies that a snapshot taken in every kind of state (new, a watermark but no key group, open, fired and expired windows, a key group whose only event went to the side output, a watermark raised above max − delay, flushed, awkward IDs and values) and restored at another parallelism (up, down, to 1, to maxParallelism) continues exactly as one unscaled Processor, with every key's state on the subtask that owns its key group.
//
// The states are windowtest.States, with ordinary keys and with keys of 0,
// 2 and 70 000 bytes. After the restore every event from before the
// snapshot is delivered again (each a no-op: its key group remembers it,
// windows or not), then new events reach open, fired and expired windows.
func TestRescaleFromEveryKindOfStateEqualsUnscaledRun(t *testing.T) {
	defer suite.Recover(t)
	awkward := kit.AwkwardStrings()
	for _, keys := range []struct {
		name    string
		x, y, z string
	}{
		{"keys x y z", "x", "y", "z"},
		{"keys of 0, 2 and 70 000 bytes", awkward[0], awkward[3], awkward[6]},
	} {
		for _, rs := range stateRescales {
			for _, st := range windowtest.States(keys.x, keys.y, keys.z) {
				name := fmt.Sprintf("%s/%s/%s", keys.name, rescaleName([]int{rs.from, rs.to}, rs.maxP), st.Name)
				if !t.Run(name, func(t *testing.T) {
					defer suite.Recover(t)
					checkStateRescale(t, st, rs.maxP, rs.from, rs.to)
				}) {
					return // the first failing run is the one to read
				}
			}
		}
	}
}

// TestRescaleKeepsAwkwardKeysIDsAndValues certifies that a key of every awkward kind (0, 1, 255, 256 and 70 000 bytes, a NUL byte, invalid UTF-8, a prefix of another key), beside the key one NUL byte longer, survives a rescale in every kind of state, and so do awkward IDs and values at the int64 edges: the run equals one unscaled Processor.
func TestRescaleKeepsAwkwardKeysIDsAndValues(t *testing.T) {
	defer suite.Recover(t)
	for _, key := range kit.AwkwardStrings() {
		other := "k"
		if key == other {
			other = "j"
		}
		for _, st := range windowtest.States(key, key+"\x00", other) {
			for _, rs := range []struct{ maxP, from, to int }{{128, 2, 3}, {128, 4, 1}} {
				name := fmt.Sprintf("%d bytes %s/%s/%s", len(key), kit.ShowString(key), rescaleName([]int{rs.from, rs.to}, rs.maxP), st.Name)
				if !t.Run(name, func(t *testing.T) {
					defer suite.Recover(t)
					checkStateRescale(t, st, rs.maxP, rs.from, rs.to)
				}) {
					return // the first failing run is the one to read
				}
			}
		}
	}
}

// checkStateRescale runs the calls of st at parallelism from, snapshots,
// restores at parallelism to and makes the rest of the calls, checking every
// call against one unscaled Processor; and checks, right after the restore,
// that every key with window state is on the subtask that owns its key
// group and that the restored side output is empty.
func checkStateRescale(t *testing.T, st windowtest.State, maxP, from, to int) {
	t.Helper()
	ops, cut := st.Ops()
	want := singleRun(t, stateCfg, ops)
	r := &rescaleRun{cfg: stateCfg, maxP: maxP, ps: []int{from, to}, cuts: []int{cut}, ops: ops}
	if !r.check(t, want) {
		return
	}
	pp := newParallel(t, ParallelConfig{Processor: stateCfg, Parallelism: from, MaxParallelism: maxP})
	runOps(pp, st.Before)
	restored := restoreOf(t, snapshotOf(t, pp), to, maxP)
	before := singleRun(t, stateCfg, st.Before)
	checkKeysOn(t, restored, keysWithState(stateCfg, st.Before, before), maxP, to,
		fmt.Sprintf("in the state %q, after a snapshot at parallelism %d and a restore at parallelism %d", st.Name, from, to))
	if late := restored.Late(); len(late) > 0 {
		t.Errorf("in the state %q, restored at parallelism %d: Late() = %s, want nothing: the side output is not state, and a\n"+
			"restored processor's starts empty.", st.Name, to, windowtest.FmtEvents(late))
	}
}

// keysWithState returns, sorted, the keys that have window state after the
// calls ops, computed from one Processor's trace of them: a key has state
// while a window holds one of its counted events (its first delivery, not
// sent to the side output) and the watermark is below the window's end plus
// the allowed lateness.
func keysWithState(cfg Config, ops []op, tr trace) []string {
	late := map[string]bool{}
	for _, e := range tr.Late {
		late[e.ID] = true
	}
	seen := map[string]bool{}
	var keys []string
	for _, e := range eventsOf(ops) {
		if seen[e.ID] || late[e.ID] {
			continue
		}
		seen[e.ID] = true
		end := windowtest.WindowStart(e.TS, cfg.WindowSize) + cfg.WindowSize
		cleanup := int64(math.MaxInt64) // end + AllowedLateness, saturating
		if end <= math.MaxInt64-cfg.AllowedLateness {
			cleanup = end + cfg.AllowedLateness
		}
		if tr.WM < cleanup {
			keys = append(keys, e.Key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// TestParallelSnapshotIsACopy certifies that a parallel snapshot is a copy: processing and snapshotting after it change neither its bytes nor what it restores to, a restored processor keeps no reference to the snapshot's bytes, and two restores of one snapshot share nothing.
func TestParallelSnapshotIsACopy(t *testing.T) {
	defer suite.Recover(t)
	pc := parallelConfigs[1] // with lateness: fired windows take corrections after the cut
	const maxP = 16
	ops := genOps(suite.Rand(t), pc.cfg, parallelKeys, 100, pc.bound)
	windowtest.CheckSnapshotIsACopy(t, windowtest.SnapshotCopy[*ParallelProcessor]{
		Ops: ops, Want: singleRun(t, pc.cfg, ops),
		Cuts: []int{len(ops) / 4, len(ops) / 2, len(ops) - 5},
		// Taken at parallelism 3, restored at 2, 5 and 7.
		Prefix: func(t *testing.T, cut int) *ParallelProcessor {
			pp := newParallel(t, ParallelConfig{Processor: pc.cfg, Parallelism: 3, MaxParallelism: maxP})
			runOps(pp, ops[:cut])
			return pp
		},
		Snapshot: func(t *testing.T, pp *ParallelProcessor) []byte { return snapshotOf(t, pp) },
		Restore: func(t *testing.T, snap []byte, which int) *ParallelProcessor {
			return restoreOf(t, snap, []int{2, 5, 7}[which], maxP)
		},
		Other:    windowtest.Ev("other", "k00", 0, 100),
		Restorer: "RestoreParallelProcessor",
		Windows:  pictureWindows(pc.cfg),
	})
}

// TestLateAndKeysOnReturnSlicesTheCallerOwns certifies that Late and KeysOn return new slices: editing what they returned changes neither the processor nor what they return next.
func TestLateAndKeysOnReturnSlicesTheCallerOwns(t *testing.T) {
	defer suite.Recover(t)
	const maxP, p = 16, 3
	cfg := Config{WindowSize: 10, WatermarkDelay: 100}
	pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: p, MaxParallelism: maxP})
	keys := keyNames("k", 12)
	for i, k := range keys {
		pp.Process(windowtest.Ev(fmt.Sprintf("e%d", i), k, int64(200+i), 1))
	}
	var wantLate []kit.Event
	for i, k := range keys[:6] {
		e := windowtest.Ev(fmt.Sprintf("late%d", i), k, int64(i), 1) // the watermark is past 100: [0,10) expired
		pp.Process(e)
		wantLate = append(wantLate, e)
	}
	wantKeys := make([][]string, p)
	for i := range p {
		wantKeys[i] = pp.KeysOn(i)
	}

	const why = "it must return a new slice (slices.Clone): the caller owns what it gets, and the processor's own state must not change when the caller edits it"
	late := pp.Late()
	for i := range late {
		late[i].ID, late[i].Value = "edited", -1
	}
	if got := pp.Late(); !slices.Equal(got, wantLate) {
		t.Errorf("the test edited every event of the slice Late() returned; then Late() = %s\nwant %s\nLate: %s",
			windowtest.FmtEvents(got), windowtest.FmtEvents(wantLate), why)
	}
	for i := range p {
		got := pp.KeysOn(i)
		for j := range got {
			got[j] = "edited"
		}
		if again := pp.KeysOn(i); !slices.Equal(again, wantKeys[i]) {
			t.Errorf("the test edited every key of the slice KeysOn(%d) returned; then KeysOn(%d) = %s\nwant %s\nKeysOn: %s",
				i, i, showKeys(again), showKeys(wantKeys[i]), why)
		}
	}
	if out := pp.Flush(); len(out) != len(keys) {
		t.Errorf("Flush() returned %d results, want one per key, %d: the edits above must not reach the windows", len(out), len(keys))
	}
}

// TestEqualParallelStateGivesEqualBytes certifies that two parallel processors given the same calls at the same parallelism snapshot to the same bytes after every call, so do two given the same events in two delivery orders within the delay, and a processor restored at the parallelism it was snapshotted at snapshots to the bytes it was restored from.
func TestEqualParallelStateGivesEqualBytes(t *testing.T) {
	defer suite.Recover(t)
	pc := parallelConfigs[1]
	const maxP = 16
	rnd := suite.Rand(t)
	ops := genOps(rnd, pc.cfg, parallelKeys, 80, pc.bound)
	for _, p := range []int{1, 3, maxP} {
		cfg := ParallelConfig{Processor: pc.cfg, Parallelism: p, MaxParallelism: maxP}
		p1, p2 := newParallel(t, cfg), newParallel(t, cfg)
		for i, o := range ops {
			o.Apply(p1)
			o.Apply(p2)
			a, b := snapshotOf(t, p1), snapshotOf(t, p2)
			if !bytes.Equal(a, b) {
				t.Fatalf("At parallelism %d, two processors given the same %d calls gave different snapshots:\n%s\n"+
					"Equal state must give equal bytes, or no one can tell two savepoints apart. Go randomises map\n"+
					"iteration order: write the key groups in ascending order, and within each its state in a canonical order.",
					p, i+1, suite.ByteDiff(a, b))
			}
			if i%10 != 9 {
				continue
			}
			if again := snapshotOf(t, restoreOf(t, a, p, maxP)); !bytes.Equal(a, again) {
				t.Fatalf("At parallelism %d, after %d calls, Snapshot() of RestoreParallelProcessor(snapshot, %d, %d) differs from the snapshot:\n%s\n"+
					"A processor restored at the parallelism it was snapshotted at is in the same state, so its snapshot is\n"+
					"the same bytes. A difference means the restore lost or changed something (a key group, a window, a\n"+
					"seen ID, the watermark), or the encoding depends on map order.", p, i+1, p, maxP, suite.ByteDiff(a, again))
			}
		}
	}

	// Two delivery orders of the same events, their disorder within the
	// delay: no event is late, so both processors end in the same state (the
	// same watermark, and in every key group the same windows, sums and seen
	// IDs). Every key's first event has the same timestamp, delivered in one
	// order and then in the reverse one, so that the key groups see their
	// first events in two different orders.
	cfg := parallelConfigs[0].cfg // disorder within the delay
	var firsts []kit.Event
	for i, k := range parallelKeys {
		firsts = append(firsts, windowtest.Ev("first-"+k, k, 0, int64(i+1)))
	}
	rest := kit.RandomEvents(rnd, 150, parallelKeys, 0, 2000)
	var orders [2][]kit.Event
	for i := range orders {
		orders[i] = append(slices.Clone(firsts), kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, rest, cfg.WatermarkDelay), 0.3)...)
	}
	slices.Reverse(orders[1][:len(firsts)])
	for _, p := range []int{1, 3, maxP} {
		var snaps [2][]byte
		for i, order := range orders {
			pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: p, MaxParallelism: maxP})
			for _, e := range order {
				pp.Process(e)
			}
			snaps[i] = snapshotOf(t, pp)
		}
		if !bytes.Equal(snaps[0], snaps[1]) {
			t.Fatalf("At parallelism %d, two delivery orders of the same %d events (disorder within the delay, some duplicated)\n"+
				"gave different snapshots:\n%s\nBoth processors have the same watermark and, in every key group, the same windows,\n"+
				"counts, sums and seen IDs: equal state, so equal bytes. The keys' first events (all at 0 ms) came in one\n"+
				"order, then in the reverse one: write the key groups, and everything in them, in a canonical order (sorted),\n"+
				"never in the order they were first seen.\nfirst order:  %s\nsecond order: %s",
				p, len(firsts)+len(rest), suite.ByteDiff(snaps[0], snaps[1]),
				windowtest.FmtEvents(orders[0][:len(firsts)+3]), windowtest.FmtEvents(orders[1][:len(firsts)+3]))
		}
	}
}
