//go:build lab || solution

package seenttl

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestRestoreAndContinueAtEveryCut certifies that a processor with a seen
// TTL, restored from a snapshot taken after any call of a seeded run
// (awkward keys and IDs, late events, redeliveries before and after their
// IDs are forgotten, Flush), makes every later call as the uninterrupted
// run did: results, watermark, RememberedIDs and side output.
func TestRestoreAndContinueAtEveryCut(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		for _, ttl := range []int64{1 + rnd.Int64N(line(cfg)), line(cfg)} {
			t.Run(fmt.Sprintf("%+v TTL %d", cfg, ttl), func(t *testing.T) {
				defer suite.Recover(t)
				ops := randomOps(rnd, cfg, 60)
				want := replayCounting(newTTL(t, cfg, ttl), ops)
				for cut := range len(ops) + 1 {
					live := newTTL(t, cfg, ttl)
					windowtest.Replay(live, ops[:cut])
					restored := restoreOf(t, snapshotOf(t, live))
					c := windowtest.Cut{Ops: ops, Full: want.Trace, At: cut, LateAtCut: live.Late()}
					if got, n := restored.RememberedIDs(), live.RememberedIDs(); got != n {
						msg := fmt.Sprintf("restored from the snapshot taken after call %d of %d, RememberedIDs() = %d; the snapshotted processor's is %d.\n"+
							"A snapshot holds every remembered ID, and no forgotten one.", cut, len(ops), got, n)
						t.Fatalf("%s%s", msg, c.Picture(t, msg, pictureWindows(cfg)))
					}
					got := replayCounting(restored, ops[cut:])
					rest := ruled{Trace: windowtest.Trace{Outs: want.Outs[cut:], WMs: want.WMs[cut:], Late: want.Late[len(c.LateAtCut):]},
						Remembered: want.Remembered[cut:]}
					if d, drawn := firstDiff(ops[cut:], cut, got, rest); d != "" {
						msg := fmt.Sprintf("Restored from the snapshot taken after call %d of %d, the run went on differently:\n%s\n"+
							"A snapshot of a processor with a seen TTL holds the TTL and, for each remembered ID, the watermark that\n"+
							"forgets it: the restored processor forgets the same IDs at the same watermarks, and the IDs it takes as\n"+
							"new after the restore with the same TTL. Late() starts empty after a restore.", cut, len(ops), d)
						c.Cont = drawn
						t.Fatalf("%s%s", msg, c.Picture(t, msg, pictureWindows(cfg)))
					}
				}
			})
		}
	}
}

// TestSnapshotRestoresExpiry certifies that a snapshot taken with a seen
// TTL restores each remembered ID's expiry, and the TTL itself: the
// restored processor forgets an ID exactly when the snapshotted one would,
// and forgets an ID it first sees after the restore at its TS + TTL.
func TestSnapshotRestoresExpiry(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 4, AllowedLateness: 10}
	r := newRun(t, cfg, 25)
	r.Process(ev("a1", "a", 6, 1))  // forgotten at 31
	r.Process(ev("b1", "b", 14, 1)) // forgotten at 39, raises the watermark to 10
	r.checkpoint()
	r.ExpectRemembered(2, "a1 and b1 are remembered, as they were before the snapshot.")
	r.Process(ev("c1", "c", 20, 1)) // after the restore: forgotten at 45
	r.Advance(30)
	r.ExpectRemembered(3, "Watermark 30 forgets nothing: a1 at 31, b1 at 39, c1 at 45.")
	r.Advance(31)
	r.ExpectRemembered(2, "Watermark 31 = 6 + 25 forgets a1: the restored processor kept a1's expiry.")
	r.Advance(44)
	r.ExpectRemembered(1, "Watermark 44 forgot b1 (at 39); c1, taken as new after the restore, is forgotten at 20 + 25 = 45.")
	r.Advance(45)
	r.ExpectRemembered(0, "Watermark 45 forgets c1: the restored processor kept the TTL too.")
	r.ExpectLate(nil, "Nothing was late.")
	again := newRun(t, cfg, 25)
	again.checkpoint()
	again.Process(ev("d1", "d", 0, 1))
	again.Advance(25)
	again.ExpectRemembered(0, "A new processor with TTL 25, snapshotted and restored, forgets d1 (at 0) at watermark 25:\n"+
		"the snapshot of a processor with no ID yet must still hold its TTL.")
}

// TestSnapshotIsACopy certifies that a seen-TTL snapshot's bytes never
// change as the processor goes on, that restoring gives the state as it
// was when the snapshot was taken, that a restored processor keeps no
// reference to the snapshot's bytes, and that two restores of one snapshot
// share nothing.
func TestSnapshotIsACopy(t *testing.T) {
	defer suite.Recover(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 6, AllowedLateness: 5}
	const ttl = 12
	ops := randomOps(suite.Rand(t), cfg, 60)
	windowtest.CheckSnapshotIsACopy(t, windowtest.SnapshotCopy[*Processor]{
		Ops: ops, Want: windowtest.Replay(newTTL(t, cfg, ttl), ops),
		Cuts: []int{len(ops) / 4, len(ops) / 2, len(ops) - 3},
		Prefix: func(t *testing.T, cut int) *Processor {
			p := newTTL(t, cfg, ttl)
			windowtest.Replay(p, ops[:cut])
			return p
		},
		Snapshot: func(t *testing.T, p *Processor) []byte { return snapshotOf(t, p) },
		Restore:  func(t *testing.T, snap []byte, _ int) *Processor { return restoreOf(t, snap) },
		Other:    ev("other", "a", 0, 100),
		Restorer: "RestoreProcessor",
		Windows:  pictureWindows(cfg),
	})
}

// TestEqualStateGivesEqualSnapshots certifies that two processors with the
// same seen TTL that hold the same state, reached by delivering the same
// events in different orders with redeliveries, give byte-for-byte equal
// snapshots.
func TestEqualStateGivesEqualSnapshots(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 1000}
	const ttl = 60 // forgets the earliest IDs once the watermark reaches 60
	// Timestamps spread over 2000, and packed into 20, where many IDs share
	// one expiry: an order by expiry alone leaves their order to arrival.
	for _, span := range []int64{2000, 20} {
		events := kit.RandomEvents(rnd, 60, oracleKeys, 0, span)
		first := newTTL(t, cfg, ttl)
		for _, e := range events {
			first.Process(e)
		}
		want := snapshotOf(t, first)
		for what, delivered := range windowtest.Shuffles(rnd, events, 5, 1000, 0.3) {
			p := newTTL(t, cfg, ttl)
			for _, e := range delivered {
				p.Process(e)
			}
			if got := snapshotOf(t, p); !bytes.Equal(got, want) {
				t.Fatalf("%s of the same events, timestamps within %d (the delay of 1000 keeps every event on time), gave another\n"+
					"snapshot:\n%s\nEqual state must give equal bytes: write the remembered IDs and their expiries in a canonical\n"+
					"order, never in map order, heap order or arrival order, nor by expiry alone (IDs that share one would come in\n"+
					"arrival order).", what, span, suite.ByteDiff(want, got))
			}
		}
	}
}

// TestRestoreRejectsBadInput certifies that RestoreProcessor returns a nil
// processor and an error, never a panic, for a seen-TTL snapshot that is
// truncated, extended or has any sampled byte changed, or whose checksum
// holds but which no processor writes: one with a negative TTL, or one
// that remembers an ID its watermark has forgotten.
func TestRestoreRejectsBadInput(t *testing.T) {
	defer suite.Recover(t)
	p := newTTL(t, Config{WindowSize: 10, AllowedLateness: 5}, 15)
	for _, e := range []kit.Event{ev("e1", "a", 3, 1), ev("e2", "b", 12, 2), ev("e3", "a", 8, 3), ev("e4", "a", 40, 3)} {
		p.Process(e)
	}
	good := snapshotOf(t, p)
	windowtest.CheckRefused(t, "RestoreProcessor(a seen-TTL snapshot, %s)", windowtest.DamagedCopies(suite.Rand(t), good), RestoreProcessor,
		"stage 4's integrity rules hold for\nthis snapshot too (a changed byte could be a TTL, or an expiry, silently different).")

	// Snapshots whose checksum holds but which no processor writes: a
	// restore must refuse them too. The suite cannot know your layout, so
	// it moves a value it finds in your bytes (one unlike anything else in
	// the state) and seals the snapshot again, when it can read your
	// format's integers and checksum; a forgery it cannot make, it says so
	// and does not try.
	old := newTTL(t, Config{WindowSize: 1000}, 500)
	old.Process(ev("e1", "a", 123456789000, 1)) // remembered until 123456789500; watermark 123456789000
	long := newTTL(t, Config{WindowSize: 1000}, 123456789)
	long.Process(ev("e1", "a", 5, 1))
	windowtest.CheckForged(t, "RestoreProcessor(%s)", []windowtest.Forgery{
		{What: "remembering e1 until 123456788999, below its watermark 123456789000", Snap: snapshotOf(t, old),
			Moves: [][2]int64{{123456789500, 123456788999}},
			Why:   "an ID is forgotten once the watermark reaches its expiry: no processor remembers one past it."},
		{What: "with a TTL of −123456789", Snap: snapshotOf(t, long),
			Moves: [][2]int64{{123456789, -123456789}},
			Why:   "NewSeenTTLProcessor rejects a negative TTL, and a restore must refuse what it refuses: no processor has one."},
	}, RestoreProcessor)
}
