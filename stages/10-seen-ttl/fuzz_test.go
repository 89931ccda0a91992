//go:build lab || solution

package seenttl

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
)

// FuzzRestoreSeenTTLProcessor certifies that RestoreProcessor never panics on any input near a seen-TTL snapshot, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus, made at run time by your code: snapshots
// of processors with a seen TTL (new ones, ones cut from seeded runs with
// awkward keys, IDs and values, redeliveries before and after their IDs
// are forgotten, late events and Flush), their prefixes, copies with a
// byte flipped or appended, and bytes that are no snapshot at all. To
// search for more:
//
//	go test -tags lab -run '^$' -fuzz '^FuzzRestoreSeenTTLProcessor$' ./stages/10-seen-ttl
func FuzzRestoreSeenTTLProcessor(f *testing.F) {
	defer suite.Recover(f)
	var snaps [][]byte
	rnd := suite.Rand(f)
	for _, cfg := range ruleConfigs {
		for _, ttl := range []int64{1, line(cfg)} {
			snaps = append(snaps, snapshotOf(f, newTTL(f, cfg, ttl)))
			ops := randomOps(rnd, cfg, 40)
			for _, cut := range []int{len(ops) / 3, len(ops) - 3, len(ops)} {
				p := newTTL(f, cfg, ttl)
				windowtest.Replay(p, ops[:cut])
				snaps = append(snaps, snapshotOf(f, p))
			}
		}
	}
	windowtest.AddSnapshotSeeds(f, snaps)
	f.Add([]byte("not a snapshot at all"))

	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		p := windowtest.CheckRestoreInput(t, "RestoreProcessor("+suite.HexHead(data)+")",
			func() (*Processor, error) { return RestoreProcessor(data) }, snapshotOf, restoreOf,
			"a window, a key's tally, a remembered ID or its expiry, the watermark, the TTL")
		if p == nil {
			return
		}
		p.Process(ev("fuzz", "k", 0, 1))
		p.AdvanceWatermark(100)
		p.RememberedIDs()
		p.Flush()
		p.Late()
	})
}
