//go:build lab || solution

package sliding

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestRestoreAndContinueAtEveryCut certifies that a processor restored from
// a snapshot taken after any call of a seeded run (awkward keys and IDs,
// late events, corrections, redeliveries, Flush) makes every later call
// exactly as the uninterrupted run did, side output included.
func TestRestoreAndContinueAtEveryCut(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, c := range oracleConfigs {
		t.Run(fmt.Sprintf("size %d slide %d", c.size, c.slide), func(t *testing.T) {
			defer suite.Recover(t)
			cfg := SlidingConfig{Size: c.size, Slide: c.slide, WatermarkDelay: 6, AllowedLateness: c.size / 2}
			ops := randomOps(rnd, c.size, cfg.WatermarkDelay, cfg.WatermarkDelay+2*c.size)
			want := replay(t, cfg, ops)
			for cut := range len(ops) + 1 {
				live := newSliding(t, cfg)
				windowtest.Replay(live, ops[:cut])
				restored := restoreOf(t, snapshotOf(t, live))
				got := windowtest.Replay(restored, ops[cut:])
				c := windowtest.Cut{Ops: ops, Full: want, At: cut, LateAtCut: live.Late()}
				rest := windowtest.Trace{Outs: want.Outs[cut:], Late: want.Late[len(c.LateAtCut):]}
				if d, drawn := firstCallDiff(ops[cut:], got, rest); d != "" {
					msg := fmt.Sprintf("Restored from the snapshot taken after call %d of %d, the run went on differently:\n%s\n"+
						"A snapshot holds all state: the config (slide included), the watermark, every seen ID and every\n"+
						"unexpired window, fired or not, with its per-key counts and sums. Late() starts empty after a\n"+
						"restore: the side output is output, not state.", cut, len(ops), d)
					c.Cont = drawn
					t.Fatalf("%s%s", msg, c.Picture(t, msg, pictureWindows(cfg)))
				}
			}
		})
	}
}

// TestSnapshotIsACopy certifies that a snapshot's bytes never change as the
// processor goes on, that restoring gives the state as it was when the
// snapshot was taken, that a restored processor keeps no reference to the
// snapshot's bytes, and that two restores of one snapshot share nothing.
func TestSnapshotIsACopy(t *testing.T) {
	defer suite.Recover(t)
	cfg := SlidingConfig{Size: 10, Slide: 3, WatermarkDelay: 6, AllowedLateness: 5}
	ops := randomOps(suite.Rand(t), cfg.Size, cfg.WatermarkDelay, cfg.WatermarkDelay+2*cfg.Size)
	windowtest.CheckSnapshotIsACopy(t, windowtest.SnapshotCopy[*SlidingProcessor]{
		Ops: ops, Want: replay(t, cfg, ops),
		Cuts: []int{len(ops) / 4, len(ops) / 2, len(ops) - 3},
		Prefix: func(t *testing.T, cut int) *SlidingProcessor {
			s := newSliding(t, cfg)
			windowtest.Replay(s, ops[:cut])
			return s
		},
		Snapshot: func(t *testing.T, s *SlidingProcessor) []byte { return snapshotOf(t, s) },
		Restore:  func(t *testing.T, snap []byte, _ int) *SlidingProcessor { return restoreOf(t, snap) },
		Other:    ev("other", "a", 0, 100),
		Restorer: "RestoreSlidingProcessor",
		Windows:  pictureWindows(cfg),
	})
}

// TestEqualStateGivesEqualSnapshots certifies that two processors that hold
// the same state, reached by delivering the same events in different
// orders, give byte-for-byte equal snapshots.
func TestEqualStateGivesEqualSnapshots(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := SlidingConfig{Size: 10, Slide: 3, WatermarkDelay: 1000}
	events := kit.RandomEvents(rnd, 40, oracleKeys, 0, 100)
	first := newSliding(t, cfg)
	for _, e := range events {
		first.Process(e)
	}
	want := snapshotOf(t, first)
	for what, delivered := range windowtest.Shuffles(rnd, events, 5, 1000, 0) {
		s := newSliding(t, cfg)
		for _, e := range delivered {
			s.Process(e)
		}
		if got := snapshotOf(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%s of the same events (the delay of 1000 keeps every window open) gave another snapshot:\n%s\n"+
				"Equal state must give equal bytes: write seen IDs, windows and keys in a canonical order, never in\n"+
				"map order or arrival order.", what, suite.ByteDiff(want, got))
		}
	}
}

// TestRestoreRejectsBadInput certifies that RestoreSlidingProcessor returns
// a nil processor and an error, never a panic, for empty, truncated,
// corrupted or foreign input, a tumbling Processor's snapshot included, and
// for a snapshot whose checksum holds but which no processor writes: a
// window off the slide's grid or twice, a window its watermark has expired,
// a Slide NewSlidingProcessor rejects.
func TestRestoreRejectsBadInput(t *testing.T) {
	defer suite.Recover(t)
	s := newSliding(t, SlidingConfig{Size: 10, Slide: 5, AllowedLateness: 5})
	for _, e := range []kit.Event{ev("e1", "a", 3, 1), ev("e2", "b", 12, 2), ev("e3", "a", 8, 3)} {
		s.Process(e)
	}
	good := snapshotOf(t, s)
	tumbling, err := NewProcessor(Config{WindowSize: 10})
	if err != nil {
		t.Fatalf("NewProcessor: %v", err)
	}
	tumbling.Process(ev("e1", "a", 3, 1))
	foreign, err := tumbling.Snapshot()
	if err != nil {
		t.Fatalf("Processor.Snapshot: %v", err)
	}
	inputs := append([]windowtest.Damaged{
		{What: "nil"},
		{What: "an empty slice", Input: []byte{}},
		{What: "garbage", Input: []byte("not a snapshot at all, but long enough to be one")},
		{What: "a tumbling Processor's snapshot", Input: foreign},
	}, windowtest.DamagedCopies(suite.Rand(t), good)...)
	windowtest.CheckRefused(t, "RestoreSlidingProcessor(%s)", inputs, RestoreSlidingProcessor,
		"check the magic, the version, the length\nand a checksum before trusting a byte.")

	// Snapshots whose checksum holds but which no processor writes: a
	// restore must refuse them too. The suite cannot know your layout, so
	// it moves values it finds in your bytes (each unlike anything else in
	// the state) and seals the snapshot again, when it can read your
	// format's integers and checksum; a forgery it cannot make, it says so
	// and does not try.
	grid := newSliding(t, SlidingConfig{Size: 1000, Slide: 500})
	grid.Process(ev("e1", "a", 123456789750, 1)) // in [123456789000,123456790000) and [123456789500,123456790500)
	onGrid := snapshotOf(t, grid)
	gappy := snapshotOf(t, newSliding(t, SlidingConfig{Size: 7777777, Slide: 123456789}))
	windowtest.CheckForged(t, "RestoreSlidingProcessor(%s)", []windowtest.Forgery{
		{What: "with a window [123456789501,123456790501) off the slide's grid (Slide 500)", Snap: onGrid,
			Moves: [][2]int64{{123456789500, 123456789501}, {123456790500, 123456790501}},
			Why:   "a window starts at a multiple of Slide: no processor writes one that does not."},
		{What: "with the window [123456789000,123456790000) twice", Snap: onGrid,
			Moves: [][2]int64{{123456789500, 123456789000}, {123456790500, 123456790000}},
			Why: "a processor holds each window once: no processor writes one twice (restoring both, or keeping one, is a\n" +
				"state the snapshotted processor was never in)."},
		{What: "with watermark 123456790750, at which both its windows have expired", Snap: onGrid,
			Moves: [][2]int64{{123456789750, 123456790750}},
			Why:   "a window leaves the state when the watermark reaches its end + AllowedLateness: no processor writes one\nthe watermark has expired."},
		{What: "with Slide −123456789", Snap: gappy,
			Moves: [][2]int64{{123456789, -123456789}},
			Why:   "NewSlidingProcessor rejects Slide ≤ 0, and a restore must refuse what it refuses: no processor has such a Slide."},
	}, RestoreSlidingProcessor)
}
