//go:build solution

package solutions

import (
	"slices"
	"strconv"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestIDSetRemoveKeepsTheRest certifies that removing IDs from an idSet
// forgets exactly those IDs: after a random mix of adds and removes, as a
// seen TTL makes them, across several growths of the tuned build's table
// (fourfold while it is small, twofold past 16 384 slots: the largest
// universe crosses that size), every add still reports whether its ID was new and the set holds what a
// plain map holds. The tuned table moves IDs back into the hole a removal
// leaves (it keeps no tombstones); an ID moved wrongly, or left behind an
// empty slot, would be reported new again: a duplicate counted twice.
func TestIDSetRemoveKeepsTheRest(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	for _, universe := range []int{8, 100, 5000, 30_000} {
		set, want := newIDSet(0), make(map[string]bool)
		for step := range 20 * universe {
			id := "e" + strconv.Itoa(r.IntN(universe))
			if r.IntN(20) == 0 {
				id += "-a-long-one-past-15" // the tuned build's map of long IDs
			}
			if r.IntN(3) == 0 {
				set.remove(id)
				delete(want, id)
				continue
			}
			if got, isNew := set.add(id), !want[id]; got != isNew {
				t.Fatalf("universe %d, step %d: add(%q) = %v, want %v: after removes, "+
					"the set must still know every ID it holds and none it forgot", universe, step, id, got, isNew)
			}
			want[id] = true
		}
		if set.len() != len(want) {
			t.Errorf("universe %d: len() = %d, want %d", universe, set.len(), len(want))
		}
		wantSorted := make([]string, 0, len(want))
		for id := range want {
			wantSorted = append(wantSorted, id)
		}
		slices.Sort(wantSorted)
		if got := set.sorted(); !slices.Equal(got, wantSorted) {
			t.Errorf("universe %d: sorted() gave %d IDs, want %d:\n got  %q\n want %q",
				universe, len(got), len(wantSorted), got[:min(5, len(got))], wantSorted[:min(5, len(wantSorted))])
		}
	}
}
