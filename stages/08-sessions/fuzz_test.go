//go:build lab || solution

package sessions

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// FuzzRestoreSessionProcessor certifies that RestoreSessionProcessor never panics on any input, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus, made at run time by your code: snapshots
// your Snapshot writes (new processors, busy ones mid-stream, one holding a
// fired session that a late event extended, a flushed one, one holding
// awkward keys, IDs and values), their
// prefixes, copies with a byte flipped or a byte appended, a stage 04
// snapshot, and bytes that are no snapshot at all. To search for more:
//
//	go test -tags lab -run '^$' -fuzz '^FuzzRestoreSessionProcessor$' ./stages/08-sessions
func FuzzRestoreSessionProcessor(f *testing.F) {
	defer suite.Recover(f)
	snaps := [][]byte{
		snapshotOf(f, newSessions(f, formatCfg)),
		snapshotOf(f, newSessions(f, SessionConfig{Gap: 1})),
		busySnapshot(f, 5),
		busySnapshot(f, 6),
	}
	// A fired session [10,60) that a late event extended to [10,90): the
	// snapshot holds what downstream has of it, to retract when it fires.
	extended := newSessions(f, formatCfg)
	extended.Process(ev("e1", "a", 10, 1))
	extended.AdvanceWatermark(70)
	extended.Process(ev("e2", "a", 40, 2))
	extended.Process(ev("e3", "b", -500, 3)) // late: a seen ID on the side output
	snaps = append(snaps, snapshotOf(f, extended))
	flushed := newSessions(f, SessionConfig{Gap: 7})
	flushed.Process(ev("e1", "k", -3, 1))
	flushed.Flush()
	snaps = append(snaps, snapshotOf(f, flushed))
	// Awkward keys, IDs and values (kit.AwkwardStrings up to 256 bytes, the
	// int64 edges), mid-story: after the late extensions, before Flush.
	awkward := newSessions(f, formatCfg)
	var lives [][2][]op
	for i, key := range kit.AwkwardStrings() {
		if len(key) <= 256 {
			lives = append(lives, life(key, func(n int) string { return fmt.Sprintf("%d%s", n, key) },
				kit.EdgeValues[i%len(kit.EdgeValues)], kit.EdgeValues[(i+3)%len(kit.EdgeValues)], int64(i)))
		}
	}
	ops := story(lives...)
	runOps(awkward, ops[:len(ops)-2])
	snaps = append(snaps, snapshotOf(f, awkward))

	windowtest.AddSnapshotSeeds(f, snaps)
	p, err := NewProcessor(Config{WindowSize: 50, AllowedLateness: 100})
	if err != nil {
		f.Fatalf("NewProcessor: %v", err)
	}
	p.Process(ev("e1", "a", 5, 1))
	tumbling, err := p.Snapshot()
	if err != nil {
		f.Fatalf("Processor.Snapshot (stage 04): %v", err)
	}
	f.Add(tumbling) // "FLKS": tumbling-window state, not sessions
	f.Add([]byte("FLSW"))
	f.Add([]byte("FLSW\x01"))
	f.Add([]byte("FLSW\x02"))
	f.Add(append([]byte("FLSW\x01"), bytes.Repeat([]byte{0xff}, 32)...))
	f.Add(append([]byte("FLSW\x01"), make([]byte, 32)...))
	f.Add([]byte("not a snapshot at all"))

	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		s := windowtest.CheckRestoreInput(t, "RestoreSessionProcessor("+suite.HexHead(data)+")",
			func() (*SessionProcessor, error) { return RestoreSessionProcessor(data) }, snapshotOf, restoreOf,
			"a session, what downstream holds of it, a seen ID, the watermark")
		if s == nil {
			return
		}
		s.Process(ev("fuzz", "k", 0, 1))
		s.AdvanceWatermark(100)
		s.Flush()
		s.Late()
	})
}
