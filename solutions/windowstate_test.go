//go:build solution

package solutions

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestWindowStateKeepsEveryKeysTally certifies that a window's state, in
// either build, keeps one running tally per key and gives them back in key
// order, at every number of keys the tuned build treats differently (none;
// one, inline; a few, scanned; many, indexed), for windows filled by
// events, restored from a snapshot and then given events, and recycled
// after they expire into windows of another number of keys: a recycled
// window must hold none of its old keys. A garbage collection before each
// check frees what a window does not keep reachable (the tuned build
// reaches a many-key window's tallies through a handle in its inline
// tally's key), and fresh allocations are then likely to land on it.
func TestWindowStateKeepsEveryKeysTally(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	for _, first := range []int{0, 1, 2, 8, 9, 40} {
		for _, restored := range []bool{false, true} {
			t.Run(fmt.Sprintf("keys=%d/restored=%v", first, restored), func(t *testing.T) {
				defer suite.Recover(t)
				p, err := NewProcessor(Config{WindowSize: 10})
				if err != nil {
					t.Fatal(err)
				}
				// The rounds after the first reuse the window the one before
				// expired, with another number of keys.
				for round, keys := range []int{first, 1, 0, 40, first} {
					want := map[string]keyTally{}
					w := p.newWindow(int64(round)*10, int64(round)*10+10)
					names := make([]string, keys)
					for i := range names {
						names[i] = fmt.Sprintf("r%d-k%d", round, i)
					}
					if keys > 0 {
						names[0] = "" // the empty key is a key like any other
					}
					if restored {
						for _, k := range names[:len(names)/2] {
							w.restoreTally(k, 2, 3)
							want[k] = keyTally{key: k, count: 2, sum: 3}
						}
					}
					for range 4 * keys {
						k := names[r.IntN(len(names))]
						tl := w.tally(k)
						tl.count++
						tl.sum += 5
						got := want[k]
						want[k] = keyTally{key: k, count: got.count + 1, sum: got.sum + 5}
					}
					runtime.GC()
					churn := make([][]keyTally, 256)
					for i := range churn {
						churn[i] = make([]keyTally, 2) // 64 bytes, the size class of a moreTallies
					}
					wantSorted := slices.SortedFunc(maps.Values(want), func(a, b keyTally) int { return strings.Compare(a.key, b.key) })
					if got := p.sortedTallies(w); !slices.Equal(got, wantSorted) {
						t.Fatalf("round %d, %d keys (a recycled window, after round 0): the window's tallies in key order are\n  %v\nwant\n  %v\nwhy it matters: a window's results are its tallies; a lost, doubled or stale key is a wrong result", round, keys, got, wantSorted)
					}
					p.windows = append(p.windows, w)
					p.dropWindows(1)
				}
			})
		}
	}
}

// TestWindowStateSortsKeysInByteOrder certifies that a window's tallies
// come back in the byte order of their keys, as strings.Compare orders
// them, for any keys: the empty key, keys that share long prefixes or are
// prefixes of each other, zero bytes ("a" before "a\x00"), bytes above
// 0x7f, and windows of up to several hundred keys. The tuned build sorts
// words holding each key's first bytes and breaks ties on the whole keys;
// a key misplaced there would put a window's results out of order.
func TestWindowStateSortsKeysInByteOrder(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	// Keys are made of these pieces, so that many share a prefix of up
	// to tens of bytes and many differ only past the first 8.
	pieces := []string{"", "a", "\x00", "\xff", "é", "k1", "k10", "abcdefgh", "abcdefghi", "\x7f\x80"}
	for _, keys := range []int{2, 3, 9, 40, 255, 256, 257, 700} {
		t.Run(fmt.Sprintf("keys=%d", keys), func(t *testing.T) {
			defer suite.Recover(t)
			p, err := NewProcessor(Config{WindowSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			for round := range 3 { // the rounds after the first reuse expired windows and scratch space
				w := p.newWindow(int64(round)*10, int64(round)*10+10)
				want := map[string]keyTally{}
				for len(want) < keys {
					var b strings.Builder
					for range r.IntN(6) {
						b.WriteString(pieces[r.IntN(len(pieces))])
					}
					k := b.String()
					tl := w.tally(k)
					tl.count++
					tl.sum += int64(len(k))
					want[k] = *tl
				}
				wantSorted := slices.SortedFunc(maps.Values(want), func(a, b keyTally) int { return strings.Compare(a.key, b.key) })
				if got := p.sortedTallies(w); !slices.Equal(got, wantSorted) {
					t.Fatalf("round %d: %d keys in key order are\n  %q\nwant (strings.Compare order)\n  %q\nwhy it matters: a window's results go out in key order; a key out of place is a result out of order",
						round, keys, tallyKeys(got), tallyKeys(wantSorted))
				}
				p.windows = append(p.windows, w)
				p.dropWindows(1)
			}
		})
	}
}

// tallyKeys returns the keys of tallies, in their order.
func tallyKeys(tallies []keyTally) []string {
	keys := make([]string, len(tallies))
	for i, t := range tallies {
		keys[i] = t.key
	}
	return keys
}
