//go:build solution

package solutions

import (
	"fmt"
	"maps"
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
// after they expire: a recycled window must hold none of its old keys.
func TestWindowStateKeepsEveryKeysTally(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	for _, keys := range []int{0, 1, 2, 8, 9, 40} {
		for _, restored := range []bool{false, true} {
			t.Run(fmt.Sprintf("keys=%d/restored=%v", keys, restored), func(t *testing.T) {
				defer suite.Recover(t)
				p, err := NewProcessor(Config{WindowSize: 10})
				if err != nil {
					t.Fatal(err)
				}
				for round := range 3 { // the rounds after the first reuse expired windows
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
					wantSorted := slices.SortedFunc(maps.Values(want), func(a, b keyTally) int { return strings.Compare(a.key, b.key) })
					if got := p.sortedTallies(w); !slices.Equal(got, wantSorted) {
						t.Fatalf("round %d: the window's tallies in key order are\n  %v\nwant\n  %v\nwhy it matters: a window's results are its tallies; a lost, doubled or stale key is a wrong result", round, got, wantSorted)
					}
					p.windows = append(p.windows, w)
					p.dropWindows(1)
				}
			})
		}
	}
}
