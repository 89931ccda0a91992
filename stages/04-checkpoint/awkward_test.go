//go:build lab || solution

package checkpoint

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The tests of this file put into a snapshot what breaks naive encodings:
// keys and IDs of 0, 1, 255, 256 and 70 000 bytes, NUL bytes, invalid UTF-8,
// strings that are prefixes of each other (kit.AwkwardStrings), and values
// at the int64 edges and above 2⁵³ (kit.EdgeValues). A length in one or two
// bytes, a NUL-terminated string, a string passed through
// strings.ToValidUTF8, []rune or JSON, or a number decoded through float64
// each restores one of them as something else.

// awkwardCfg fires a window at its end and keeps it for corrections until
// 20 ms later.
var awkwardCfg = Config{WindowSize: 10, AllowedLateness: 20}

// awkwardName names a subtest after an awkward string: its length and how
// kit.ShowString shows it.
func awkwardName(s string) string {
	return fmt.Sprintf("%d bytes %s", len(s), kit.ShowString(s))
}

// TestSnapshotKeepsAwkwardKeys certifies that keys of 0, 1, 255, 256 and 70 000 bytes, with NUL bytes, in invalid UTF-8 or a prefix of another key restore exactly, in open and in fired windows, each a key of its own, their results ordered by the keys' bytes.
func TestSnapshotKeepsAwkwardKeys(t *testing.T) {
	defer suite.Recover(t)
	for _, key := range kit.AwkwardStrings() {
		t.Run(awkwardName(key), func(t *testing.T) {
			defer suite.Recover(t)
			// longer has key as a prefix, one NUL byte longer: a decoder
			// that stops at a NUL, or reads a length wrong, confuses them.
			longer := key + "\x00"
			s := newSession(t, awkwardCfg)
			s.ProcessAll(ev("e1", key, 2, 1), ev("e2", longer, 5, 2))
			s.Expect(fmt.Sprintf("Process(%v)", ev("e3", key, 13, 4)), s.Process(ev("e3", key, 13, 4)),
				[]kit.Result{res(key, 0, 10, 1, 1), res(longer, 0, 10, 1, 2)},
				"watermark 13 fires [0,10); a key sorts before the key it is a prefix of")
			s.checkpoint() // [0,10) fired and kept for corrections, [10,20) open

			s.Expect(fmt.Sprintf("Process(%v) after the restore", ev("e4", key, 7, 8)), s.Process(ev("e4", key, 7, 8)),
				[]kit.Result{upd(key, 0, 10, 2, 9)},
				fmt.Sprintf("the key %s was in the fired window [0,10) before the snapshot, so this correction counts e1 and e4\n"+
					"under the same key. A key must come back byte for byte: its length written in full (a uvarint, not one\n"+
					"or two bytes), every byte kept (no NUL terminator, no strings.ToValidUTF8, []rune or JSON round trip)", kit.ShowString(key)))
			s.Expect(fmt.Sprintf("Process(%v) after the restore", ev("e5", longer, 4, 16)), s.Process(ev("e5", longer, 4, 16)),
				[]kit.Result{upd(longer, 0, 10, 2, 18)},
				fmt.Sprintf("%s is another key than %s, with its own tally in [0,10)", kit.ShowString(longer), kit.ShowString(key)))
			s.Process(ev("e6", longer, 15, 32))
			s.Expect("Flush()", s.Flush(), []kit.Result{res(key, 10, 20, 1, 4), res(longer, 10, 20, 1, 32)},
				"[10,20) was open at the snapshot with e3 of "+kit.ShowString(key)+"; e6 joined it after the restore")
		})
	}

	t.Run("all of them in one window", func(t *testing.T) {
		defer suite.Recover(t)
		keys := kit.AwkwardStrings()
		s := newSession(t, awkwardCfg)
		var want []kit.Result
		for i, k := range keys {
			s.Process(ev(fmt.Sprintf("e%d", i), k, int64(i%10), int64(i+1)))
			want = append(want, res(k, 0, 10, 1, int64(i+1)))
		}
		// The order of one call's results is by key, byte by byte, as Go
		// compares strings: neither by length nor by how the key prints.
		slices.SortFunc(want, func(a, b kit.Result) int { return compareBytes(a.Key, b.Key) })
		r, _ := roundTrip(t, s.p)
		s.restored(r)
		s.Expect("Flush() after the restore", s.Flush(), want, fmt.Sprintf("%d awkward keys, one event each in [0,10), snapshot, restore.\n"+
			"Every key comes back byte for byte and apart from the others, and the results of one call are ordered by\n"+
			"(End, Start, Key), keys compared byte by byte (kit.SortResults).", len(keys)))
	})
}

// TestSnapshotKeepsAwkwardIDs certifies that an event ID of 0, 1, 255, 256 or 70 000 bytes, with a NUL byte, in invalid UTF-8 or a prefix of another ID is still seen after the restore, counted or late, and stays apart from the IDs it is a prefix of.
func TestSnapshotKeepsAwkwardIDs(t *testing.T) {
	defer suite.Recover(t)
	for _, id := range kit.AwkwardStrings() {
		t.Run(awkwardName(id), func(t *testing.T) {
			defer suite.Recover(t)
			counted, late := id, id+"\x01"
			s := newSession(t, Config{WindowSize: 10, AllowedLateness: 10})
			s.Process(ev(counted, "a", 1, 1))
			s.Expect("Process(w a@12=2)", s.Process(ev("w", "a", 12, 2)), []kit.Result{res("a", 0, 10, 1, 1)}, "watermark 12 fires [0,10)")
			s.Advance(25) // [0,10) kept until 20: expired; [10,20) fired, kept until 30
			s.Process(ev(late, "a", 3, 4))
			s.ExpectLate([]kit.Event{ev(late, "a", 3, 4)}, "[0,10) had expired at watermark 25")
			s.checkpoint()

			s.Expect(fmt.Sprintf("Process(%v) after the restore", ev(counted, "a", 14, 1)), s.Process(ev(counted, "a", 14, 1)), nil,
				fmt.Sprintf("the ID %s was counted before the snapshot, so this event is a redelivery: a no-op, whatever its other\n"+
					"fields say. Were the ID restored as anything else (a length in one or two bytes, a NUL terminator,\n"+
					"strings.ToValidUTF8 or a JSON round trip), the event would count again in the fired window [10,20)", kit.ShowString(counted)))
			s.Expect(fmt.Sprintf("Process(%v) after the restore", ev(late, "a", 13, 8)), s.Process(ev(late, "a", 13, 8)), nil,
				fmt.Sprintf("the ID %s went to the side output before the snapshot: late IDs are seen IDs too", kit.ShowString(late)))
			fresh := ev(counted+"\x00", "a", 16, 16)
			s.Expect(fmt.Sprintf("Process(%v) after the restore", fresh), s.Process(fresh), []kit.Result{upd("a", 10, 20, 2, 18)},
				fmt.Sprintf("%s is a new ID, not %s: it counts in the fired window [10,20) and re-fires it", kit.ShowString(fresh.ID), kit.ShowString(counted)))
			s.ExpectLate(nil, "no event after the restore was late")
		})
	}
}

// TestSnapshotKeepsEdgeValues certifies that per-key sums at the int64 edges and beyond 2⁵³ restore exactly and keep adding up after the restore, wrapping around as Go's int64 arithmetic does.
func TestSnapshotKeepsEdgeValues(t *testing.T) {
	defer suite.Recover(t)
	for _, v := range kit.EdgeValues {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			defer suite.Recover(t)
			twice := v
			twice += v // wraps around at the edges, as every correct sum does
			s := newSession(t, awkwardCfg)
			s.ProcessAll(ev("e1", "a", 1, v), ev("e2", "b", 4, v), ev("e3", "b", 6, v))
			s.Expect("Process(e4 c@12=1)", s.Process(ev("e4", "c", 12, 1)),
				[]kit.Result{res("a", 0, 10, 1, v), res("b", 0, 10, 2, twice)}, "watermark 12 fires [0,10)")
			s.Process(ev("e5", "c", 15, v))
			s.checkpoint()

			s.Expect(fmt.Sprintf("Process(e6 a@2=%d) after the restore", v), s.Process(ev("e6", "a", 2, v)),
				[]kit.Result{upd("a", 0, 10, 2, twice)},
				fmt.Sprintf("a's sum in [0,10) was %d at the snapshot; adding %d gives %d. A sum must come back exactly:\n"+
					"a float64 (encoding/json into interface{}) holds integers exactly only up to 2⁵³", v, v, twice))
			s.Expect("Flush()", s.Flush(), []kit.Result{res("c", 10, 20, 2, 1+v)},
				fmt.Sprintf("c's sum in the open window [10,20) was 1 + %d at the snapshot", v))
		})
	}
}

// compareBytes compares a and b byte by byte, as Go compares strings,
// written out so that the expected order does not trust the code under
// test or a library.
func compareBytes(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}
