//go:build lab || solution

package broadcast

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
)

// FuzzRestoreBroadcastProcessor certifies that RestoreBroadcastProcessor never panics on any input, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus, made at run time by your code: snapshots
// your Snapshot writes (new processors, ones cut from seeded runs with
// rules, late rules and pending results), their prefixes, copies with a
// byte flipped or appended, and bytes that are no snapshot at all. Every
// input is restored at parallelism 3 of maxParallelism 16. To search for
// more:
//
//	go test -tags lab -run '^$' -fuzz '^FuzzRestoreBroadcastProcessor$' ./stages/11-broadcast
func FuzzRestoreBroadcastProcessor(f *testing.F) {
	defer suite.Recover(f)
	rnd := suite.Rand(f)
	snaps := [][]byte{snapshotOf(f, newBroadcast(f, cfgOf(3, 0, 0)))}
	for range 3 {
		ops := interleave(rnd, eventStream(rnd, 30, 60, 4), ruleStream(rnd, 10, 70))
		for _, cut := range []int{len(ops) / 3, len(ops) - 3, len(ops)} {
			r := newRun(f, cfgOf(2, 4, 5))
			r.do(ops[:cut]...)
			snaps = append(snaps, snapshotOf(f, r.b))
		}
	}
	windowtest.AddSnapshotSeeds(f, snaps)
	f.Add([]byte("not a snapshot at all"))

	restoreOf := func(t testing.TB, snap []byte) *BroadcastProcessor { return restoreAt(t, snap, 3) }
	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		b := windowtest.CheckRestoreInput(t, "RestoreBroadcastProcessor("+suite.HexHead(data)+", 3, 16)",
			func() (*BroadcastProcessor, error) { return RestoreBroadcastProcessor(data, 3, maxP) }, snapshotOf, restoreOf,
			"a window, a seen ID, a rule, a pending result, a watermark")
		if b == nil {
			return
		}
		b.ProcessRule(rl("", 1, 0))
		b.ProcessEvent(ev("fuzz", "k", 0, 1))
		b.AdvanceRuleWatermark(100)
		b.AdvanceEventWatermark(100)
		b.Flush()
		b.LateRules()
	})
}
