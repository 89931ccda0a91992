//go:build lab || solution

package checkpoint

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// formatCfg is the configuration of the format tests' processors.
var formatCfg = Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 150}

// busySnapshot returns a snapshot of a processor with every kind of state:
// seen IDs (counted and late), open windows, fired-but-not-expired windows
// with several keys, and a watermark raised by events and by
// AdvanceWatermark.
func busySnapshot(t testing.TB, n int) []byte {
	t.Helper()
	p := newProcessor(t, formatCfg)
	ops := genOps(kit.NewRand(uint64(n)), formatCfg, n, 250)
	runOps(p, ops[:len(ops)-3]) // stop before Flush: windows still open
	return snapshotOf(t, p)
}

// TestSnapshotHasVersionedHeader certifies that every snapshot begins with the magic "FLKS" and the format version byte 1.
func TestSnapshotHasVersionedHeader(t *testing.T) {
	defer suite.Recover(t)
	flushed := newProcessor(t, formatCfg)
	flushed.Process(ev("e1", "a", 5, 1))
	flushed.Flush()
	for _, c := range []struct {
		what string
		snap []byte
	}{
		{"a new processor", snapshotOf(t, newProcessor(t, formatCfg))},
		{"a processor with open and fired windows", busySnapshot(t, 60)},
		{"a flushed processor", snapshotOf(t, flushed)},
	} {
		if !bytes.HasPrefix(c.snap, []byte("FLKS\x01")) {
			t.Errorf("Snapshot() of %s begins % x (%q), want the magic \"FLKS\" then the version byte 1 (46 4c 4b 53 01).\n"+
				"A savepoint outlives the code that wrote it: the magic says \"this is a snapshot\" and the version says\n"+
				"which layout follows, before a reader trusts a single byte of it.", c.what, c.snap[:min(len(c.snap), 5)], c.snap[:min(len(c.snap), 5)])
		}
	}
}

// TestEqualStateGivesEqualBytes certifies that processors in the same state give byte-for-byte equal snapshots, and a restored snapshot snapshots again to the same bytes.
func TestEqualStateGivesEqualBytes(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)

	t.Run("the same input twice", func(t *testing.T) {
		defer suite.Recover(t)
		ops := genOps(rnd, formatCfg, 100, 250)
		p1, p2 := newProcessor(t, formatCfg), newProcessor(t, formatCfg)
		for i, o := range ops {
			o.Apply(p1)
			o.Apply(p2)
			if i%10 != 9 && i != len(ops)-1 {
				continue
			}
			if a, b := snapshotOf(t, p1), snapshotOf(t, p2); !bytes.Equal(a, b) {
				t.Errorf("Two processors given the same %d calls gave different snapshots:\n%s\n"+
					"Equal state must give equal bytes, or no one can tell two savepoints apart, diff them or dedup\n"+
					"them. Go randomises map iteration order: sort the seen IDs, the windows and the keys before\n"+
					"writing them.", i+1, suite.ByteDiff(a, b))
				return
			}
		}
	})

	t.Run("restore then snapshot", func(t *testing.T) {
		defer suite.Recover(t)
		ops := genOps(rnd, formatCfg, 100, 250)
		p := newProcessor(t, formatCfg)
		for i := 0; i <= len(ops); i++ {
			if i%7 == 0 || i == len(ops) {
				snap := snapshotOf(t, p)
				if again := snapshotOf(t, restoreOf(t, snap)); !bytes.Equal(snap, again) {
					t.Errorf("After %d calls, Snapshot() of RestoreProcessor(snapshot) differs from the snapshot:\n%s\n"+
						"A restored processor is in the same state as the one snapshotted, so its snapshot is the same\n"+
						"bytes. A difference means the restore lost or changed something, or the encoding depends on\n"+
						"map order.", i, suite.ByteDiff(snap, again))
					return
				}
			}
			if i < len(ops) {
				ops[i].Apply(p)
			}
		}
	})

	t.Run("two delivery orders of the same events", func(t *testing.T) {
		defer suite.Recover(t)
		// Disorder within the delay: no event is late, so any order ends in
		// the same state: the same watermark, windows, sums and seen IDs.
		ordered := kit.RandomEvents(rnd, 150, []string{"a", "b", "c", "d", "e"}, -500, 2000)
		var snaps [2][]byte
		var orders [2][]kit.Event
		for i := range snaps {
			orders[i] = kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, ordered, formatCfg.WatermarkDelay), 0.3)
			p := newProcessor(t, formatCfg)
			for _, e := range orders[i] {
				p.Process(e)
			}
			snaps[i] = snapshotOf(t, p)
		}
		if !bytes.Equal(snaps[0], snaps[1]) {
			t.Errorf("Two delivery orders of the same 150 events (disorder within the delay, some duplicated) gave\n"+
				"different snapshots:\n%s\nBoth processors have the same watermark, the same windows with the same\n"+
				"counts and sums, and the same seen IDs: equal state, so equal bytes. Write everything in a canonical\n"+
				"order (sorted), never in arrival or map order.\nfirst order:  %s\nsecond order: %s",
				suite.ByteDiff(snaps[0], snaps[1]), windowtest.FmtEvents(orders[0]), windowtest.FmtEvents(orders[1]))
		}
	})
}

// TestTruncatedSnapshotIsAnError certifies that every proper prefix of a snapshot (a seeded sample of them past 4 KiB) is rejected with an error, never a panic.
//
// A crash while writing a savepoint leaves exactly such a file.
func TestTruncatedSnapshotIsAnError(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, snap := range [][]byte{snapshotOf(t, newProcessor(t, formatCfg)), busySnapshot(t, 60)} {
		// Every length if the snapshot is small; a seeded sample (with the
		// shortest and the longest) if it holds a 70 000-byte key.
		for _, n := range windowtest.SamplePositions(rnd, len(snap)) {
			// A copy, so that nothing lies past the end: like a truncated file.
			if expectRestoreError(t, fmt.Sprintf("the first %d of the %d bytes of a snapshot", n, len(snap)), bytes.Clone(snap[:n]),
				"a truncated snapshot is missing state; restoring it would silently lose windows or seen IDs.\n"+
					"Record the length, or check a checksum over the rest, and reject what does not add up") == nil {
				return
			}
		}
	}
}

// TestCorruptSnapshotIsAnError certifies that a snapshot with any byte changed (a seeded sample of the bytes past 4 KiB), or with bytes appended, is rejected with an error, never a panic, and so is one whose checksum holds but which holds a window off the grid of WindowSize, a window not WindowSize long, or a window its watermark has expired.
func TestCorruptSnapshotIsAnError(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	why := "a corrupted snapshot would restore a silently different state (a count, a watermark, an ID).\n" +
		"A checksum over the bytes after the header (CRC-32 or SHA-256) catches any changed byte"
	for _, snap := range [][]byte{snapshotOf(t, newProcessor(t, formatCfg)), busySnapshot(t, 60)} {
		// Every byte if the snapshot is small; a seeded sample (with the
		// header and the last bytes) if it is large.
		for _, i := range windowtest.SamplePositions(rnd, len(snap)) {
			for _, mask := range []byte{0x01, byte(1 + rnd.IntN(255))} {
				bad := bytes.Clone(snap)
				bad[i] ^= mask
				what := fmt.Sprintf("a %d-byte snapshot with byte %d changed from %#02x to %#02x", len(snap), i, snap[i], bad[i])
				if expectRestoreError(t, what, bad, why) == nil {
					return
				}
			}
		}
		for _, tail := range [][]byte{{0}, []byte("x"), snap} {
			what := fmt.Sprintf("a %d-byte snapshot followed by %d more bytes", len(snap), len(tail))
			if expectRestoreError(t, what, append(bytes.Clone(snap), tail...), "bytes after the end are not part of the state: "+why) == nil {
				return
			}
		}
	}

	// A snapshot whose checksum holds, holding what no processor writes. The
	// suite cannot know your layout: it moves one value in your bytes and
	// seals them again when it can read your format's values and checksum
	// (windowtest.ForgeValue), and where it cannot, it says so and tries
	// nothing. The processor's one window is [123456789000,123456790000) and
	// its watermark 123456789650, values found nowhere else in its state.
	p := newProcessor(t, Config{WindowSize: 1000, WatermarkDelay: 100})
	p.Process(ev("e1", "a", 123456789750, 1))
	good := snapshotOf(t, p)
	offGrid := "a snapshot whose checksum holds, with its window moved to [123456789001,123456790001), off the grid of WindowSize 1000"
	var forged []windowtest.Damaged
	end, endOK := windowtest.ForgeValue(good, 123456790000, 123456790001)
	if f, ok := windowtest.ForgeValue(good, 123456789000, 123456789001); ok {
		if both, ok := windowtest.ForgeValue(f, 123456790000, 123456790001); ok {
			f = both // its end too, where the format stores it
		}
		forged = append(forged, windowtest.Damaged{What: offGrid, Input: f})
		if endOK { // a format that stores both bounds: the end alone moved
			forged = append(forged, windowtest.Damaged{
				What:  "a snapshot whose checksum holds, with its window's end moved: [123456789000,123456790001), 1001 ms long with WindowSize 1000",
				Input: end,
			})
		}
	} else if endOK {
		forged = append(forged, windowtest.Damaged{What: offGrid, Input: end}) // a format that stores the end alone
	}
	if f, ok := windowtest.ForgeValue(good, 123456789650, 123456790000); ok {
		forged = append(forged, windowtest.Damaged{
			What:  "a snapshot whose checksum holds, with its watermark moved from 123456789650 to 123456790000, where its window [123456789000,123456790000) has expired (AllowedLateness 0)",
			Input: f,
		})
	}
	if len(forged) == 0 {
		t.Logf("the suite found no window bound or watermark it could move in this snapshot's format: forged snapshots are not tried")
		return
	}
	windowtest.CheckRefused(t, "RestoreProcessor(%s)", forged, RestoreProcessor,
		"no processor writes that state. A window starts at a multiple\n"+
			"of WindowSize and is WindowSize long, and a window the watermark has expired (watermark ≥ end +\n"+
			"AllowedLateness) is gone: kept, it never fires, and its counts are lost without a word. The checksum proves\n"+
			"the bytes are the ones written, not that the writer was right: check what you decode too.")
}

// TestMalformedInputIsAnError certifies that nil, empty, too-short, wrong-magic and garbage input is rejected with an error, never a panic.
func TestMalformedInputIsAnError(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	snap := busySnapshot(t, 30)
	garbage := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.IntN(256))
		}
		return b
	}
	withMagic := func(magic string) []byte { return append([]byte(magic), snap[4:]...) }
	cases := []struct {
		what  string
		input []byte
	}{
		{"nil", nil},
		{"an empty slice", []byte{}},
		{`"F"`, []byte("F")},
		{`"FLK"`, []byte("FLK")},
		{`the magic "FLKS" alone`, []byte("FLKS")},
		{`"FLKS" and the version byte alone`, []byte("FLKS\x01")},
		{`"FLKS", version 1, and 64 zero bytes`, append([]byte("FLKS\x01"), make([]byte, 64)...)},
		{`"FLKS", version 1, and 64 bytes 0xff`, append([]byte("FLKS\x01"), bytes.Repeat([]byte{0xff}, 64)...)},
		{`"FLKS", version 1, and 200 random bytes`, append([]byte("FLKS\x01"), garbage(200)...)},
		{"a snapshot with the magic in lower case", withMagic("flks")},
		{"a snapshot with the magic reversed", withMagic("SKLF")},
		{"a snapshot with four zero bytes for a magic", withMagic("\x00\x00\x00\x00")},
		{"a snapshot without its magic", bytes.Clone(snap[4:])},
		{"1 random byte", garbage(1)},
		{"17 random bytes", garbage(17)},
		{"1000 random bytes", garbage(1000)},
		{"a JSON document", []byte(`{"version":1,"watermark":5,"windows":[]}`)},
		{"a gzip header", []byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff}},
	}
	for _, c := range cases {
		expectRestoreError(t, c.what, c.input, "it is not a snapshot Snapshot wrote, so there is no state to restore from it")
	}
}

// TestUnknownVersionIsAnError certifies that a snapshot with a format version this code does not read is rejected with an error that says "version".
//
// A savepoint written by a newer build (or a corrupted version byte) must
// be refused with a message that tells the operator why.
func TestUnknownVersionIsAnError(t *testing.T) {
	defer suite.Recover(t)
	snap := busySnapshot(t, 30)
	for _, v := range []byte{0, 2, 3, 0x7f, 0xff} {
		bad := bytes.Clone(snap)
		bad[4] = v
		what := fmt.Sprintf("a snapshot whose version byte is %d", v)
		err := expectRestoreError(t, what, bad, "this code writes and reads format version 1; guessing at another layout would restore garbage")
		if err != nil && !strings.Contains(strings.ToLower(err.Error()), "version") {
			t.Errorf("RestoreProcessor(%s) returned the error %q; want a message that says \"version\":\n"+
				"\"unsupported snapshot format version %d\" tells an operator to upgrade, \"checksum mismatch\" sends\n"+
				"them looking for disk corruption. Check the version before the checksum.", what, err, v)
		}
	}
}

// FuzzRestoreProcessor certifies that RestoreProcessor never panics on any input, and whatever it accepts snapshots and restores again to the same bytes.
//
// `go test` runs the seed corpus (snapshots your Snapshot writes, their
// prefixes, and garbage); `go test -tags lab -fuzz FuzzRestoreProcessor
// ./stages/04-checkpoint` searches for more.
func FuzzRestoreProcessor(f *testing.F) {
	defer suite.Recover(f)
	seeds := [][]byte{snapshotOf(f, newProcessor(f, formatCfg))}
	// Busy snapshots of at most 4 KiB, awkward keys and IDs among them: the
	// fuzzer mutates and restores every seed thousands of times a second, and
	// a 70 000-byte key would slow each of those down.
	for n := 5; len(seeds) < 3; n += 7 {
		if snap := busySnapshot(f, n); len(snap) <= 4096 {
			seeds = append(seeds, snap)
		}
	}
	for _, snap := range seeds {
		f.Add(snap)
		f.Add(bytes.Clone(snap[:len(snap)/2]))
		f.Add(bytes.Clone(snap[:len(snap)-1]))
		f.Add(append(bytes.Clone(snap), 0))
	}
	flushed := newProcessor(f, Config{WindowSize: 7, WatermarkDelay: 2})
	flushed.Process(ev("e1", "k", -3, 1))
	flushed.Flush()
	f.Add(snapshotOf(f, flushed))
	f.Add([]byte(nil))
	f.Add([]byte("FLKS"))
	f.Add([]byte("FLKS\x01"))
	f.Add([]byte("FLKS\x02"))
	f.Add(append([]byte("FLKS\x01"), bytes.Repeat([]byte{0xff}, 32)...))
	f.Add([]byte("not a snapshot at all"))

	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		p := windowtest.CheckRestoreInput(t, "RestoreProcessor("+suite.HexHead(data)+")",
			func() (*Processor, error) { return RestoreProcessor(data) }, snapshotOf, restoreOf,
			"a window, a key's tally, a seen ID, the watermark")
		if p == nil {
			return
		}
		p.Process(ev("fuzz", "k", 0, 1))
		p.Flush()
		p.Late()
	})
}
