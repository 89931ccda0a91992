//go:build solution

package solutions

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flk-byo/course/kit"
)

// These tests are the reference's own, not the learner's: a learner's
// format is theirs. They pin the reference's savepoint format, so that a
// change to it is a decision and not an accident.
//
// testdata/snapshot-v1.golden is a version-1 snapshot of goldenFixture. It
// is checked in and must keep restoring for as long as the reference
// promises to read version 1, whatever version Snapshot writes by then.
// Never regenerate it. When the format changes on purpose: bump
// snapshotVersion, add a case to RestoreProcessor's version switch, and
// write the new version's golden with
//
//	go test -tags solution -run TestSnapshotMatchesGolden ./solutions -update-snapshot-golden
//
// which writes testdata/snapshot-v<snapshotVersion>.golden only.
var updateGolden = flag.Bool("update-snapshot-golden", false,
	"write testdata/snapshot-v<current version>.golden from goldenFixture (only when the format changes on purpose)")

// goldenFixture returns a processor in the state that the golden snapshots
// hold, and the side output it produced: windows fired and not expired
// (with an update), an open window, a late event and a duplicate among the
// seen IDs, a non-ASCII key, negative timestamps, and a watermark raised
// by AdvanceWatermark above max timestamp − delay.
func goldenFixture(t *testing.T) *Processor {
	t.Helper()
	p, err := NewProcessor(Config{WindowSize: 10, WatermarkDelay: 3, AllowedLateness: 15})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []kit.Event{
		{ID: "e01", Key: "alice", TS: -12, Value: 4},
		{ID: "e02", Key: "bob", TS: -7, Value: 1},
		{ID: "e03", Key: "alice", TS: 2, Value: 3},
		{ID: "e04", Key: "zoë", TS: 5, Value: 2},
		{ID: "e05", Key: "bob", TS: 14, Value: 6},
		{ID: "e06", Key: "alice", TS: 21, Value: 5}, // watermark 18: [-20,-10), [-10,0), [0,10) fire
		{ID: "e07", Key: "alice", TS: 1, Value: 10}, // update of [0,10)
		{ID: "e08", Key: "bob", TS: -15, Value: 1},  // [-20,-10) expired at 5: late
		{ID: "e03", Key: "alice", TS: 2, Value: 3},  // duplicate
	} {
		p.Process(e)
	}
	p.AdvanceWatermark(19)
	p.Process(kit.Event{ID: "e09", Key: "carol", TS: 33, Value: 7}) // watermark 30: [10,20), [20,30) fire; [0,10) expires
	p.AdvanceWatermark(31)
	return p
}

// goldenContinuation runs the same calls on p and returns what they
// returned and the side output they added.
func goldenContinuation(p *Processor) (outs [][]kit.Result, late []kit.Event) {
	before := len(p.Late())
	for _, e := range []kit.Event{
		{ID: "e05", Key: "bob", TS: 14, Value: 6},   // duplicate: no-op
		{ID: "e10", Key: "bob", TS: 12, Value: 2},   // [10,20) fired, not expired: update
		{ID: "e11", Key: "dave", TS: 25, Value: 1},  // [20,30) fired: dave's first result
		{ID: "e12", Key: "carol", TS: 38, Value: 1}, // [30,40) open
		{ID: "e13", Key: "alice", TS: 3, Value: 1},  // [0,10) expired: late
		{ID: "e08", Key: "bob", TS: -15, Value: 1},  // duplicate of a late event: no-op
	} {
		outs = append(outs, p.Process(e))
	}
	outs = append(outs, p.AdvanceWatermark(35), p.Flush())
	return outs, p.Late()[before:]
}

func goldenPath(version int) string {
	return filepath.Join("testdata", fmt.Sprintf("snapshot-v%d.golden", version))
}

// TestSnapshotGoldenV1Restores checks that the checked-in version-1 golden
// snapshot restores to goldenFixture's state: the same watermark, and the
// same results for the same continuation.
func TestSnapshotGoldenV1Restores(t *testing.T) {
	golden, err := os.ReadFile(goldenPath(1))
	if err != nil {
		t.Fatalf("%v: the version-1 golden snapshot is checked in and must never be removed", err)
	}
	r, err := RestoreProcessor(golden)
	if err != nil {
		t.Fatalf("RestoreProcessor(%s): %v\nA savepoint users may hold no longer restores: keep a case for version 1 in the version switch.",
			goldenPath(1), err)
	}
	want := goldenFixture(t)
	if r.Watermark() != want.Watermark() || r.Watermark() != 31 {
		t.Errorf("restored watermark %d, want %d", r.Watermark(), want.Watermark())
	}
	if late := r.Late(); len(late) > 0 {
		t.Errorf("restored Late() = %v, want empty: the side output is not state", late)
	}
	gotOuts, gotLate := goldenContinuation(r)
	wantOuts, wantLate := goldenContinuation(want)
	for i := range wantOuts {
		if !slices.Equal(gotOuts[i], wantOuts[i]) {
			t.Errorf("call %d of the continuation: restored from %s returned %v, the fixture %v", i+1, goldenPath(1), gotOuts[i], wantOuts[i])
		}
	}
	if !slices.Equal(gotLate, wantLate) {
		t.Errorf("continuation's side output: restored %v, fixture %v", gotLate, wantLate)
	}
	// The continuation exercises what the golden holds; pin a few of its
	// results so the fixture cannot quietly lose them.
	if u := (kit.Result{Key: "bob", Start: 10, End: 20, Count: 2, Sum: 8, IsUpdate: true}); !slices.Equal(gotOuts[1], []kit.Result{u}) {
		t.Errorf("after restoring %s, Process(e10 bob@12=2) = %v, want [%v]", goldenPath(1), gotOuts[1], u)
	}
	if len(gotLate) != 1 || gotLate[0].ID != "e13" {
		t.Errorf("after restoring %s, the side output is %v, want only e13", goldenPath(1), gotLate)
	}
}

// TestSnapshotMatchesGolden checks that Snapshot of goldenFixture writes
// exactly the golden of the current format version, so a change to the
// encoding cannot go unnoticed. With -update-snapshot-golden it writes
// that golden instead.
func TestSnapshotMatchesGolden(t *testing.T) {
	got, err := goldenFixture(t).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	path := goldenPath(snapshotVersion)
	if *updateGolden {
		if snapshotVersion == 1 {
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("refusing to overwrite %s: version-1 savepoints exist; bump snapshotVersion for a new format", path)
			}
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", path, len(got))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with -update-snapshot-golden when introducing format version %d)", err, snapshotVersion)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Snapshot() of the golden fixture differs from %s:\n got % x\nwant % x\n"+
			"The snapshot format changed. If on purpose, bump snapshotVersion, keep version %d readable, and\n"+
			"write the new golden with -update-snapshot-golden; if not, fix the encoder.", path, got, want, snapshotVersion)
	}
	again, err := RestoreProcessor(want)
	if err != nil {
		t.Fatal(err)
	}
	if round, _ := again.Snapshot(); !bytes.Equal(round, want) {
		t.Errorf("Snapshot(RestoreProcessor(%s)) differs from the golden: restore or encode is not canonical", path)
	}
}

// FuzzDecodeV1 fuzzes the body decoder directly, behind the checksum that
// keeps random bytes from ever reaching it through RestoreProcessor: any
// body must decode to an error or to a processor whose snapshot decodes
// again to the same snapshot, never to a panic.
func FuzzDecodeV1(f *testing.F) {
	golden, err := os.ReadFile(goldenPath(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden[headerLen:])
	empty, _ := NewProcessor(Config{WindowSize: 1})
	snap, _ := empty.Snapshot()
	f.Add(snap[headerLen:])
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeV1(body)
		if err != nil {
			if p != nil {
				t.Fatalf("decodeV1 returned a processor with the error %v", err)
			}
			return
		}
		snap, _ := p.Snapshot()
		q, err := RestoreProcessor(snap)
		if err != nil {
			t.Fatalf("decodeV1 accepted a body whose re-encoding does not restore: %v", err)
		}
		if again, _ := q.Snapshot(); !bytes.Equal(again, snap) {
			t.Fatalf("re-encoding is not stable:\n% x\n% x", snap, again)
		}
		p.Process(kit.Event{ID: "fuzz", Key: "k", TS: 0, Value: 1})
		p.Flush()
	})
}
