package kit

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// TestStableOrderIsAStableSort certifies that stableOrder gives the
// permutation of a stable sort by key, ties in index order, on both of its
// ways: keys whose range packs into 64 bits beside the indices, and keys
// from the int64 extremes, which do not.
func TestStableOrderIsAStableSort(t *testing.T) {
	r := NewRand(7)
	random := func(n int, lo, span int64) []int64 {
		ks := make([]int64, n)
		for i := range ks {
			ks[i] = lo + r.Int64N(span)
		}
		return ks
	}
	cases := map[string][]int64{
		"none":                     {},
		"one":                      {5},
		"ties, narrow":             {3, 1, 3, 1, 2, 3, 1},
		"ties, the int64 extremes": {math.MaxInt64, math.MinInt64, 0, math.MaxInt64, math.MinInt64, 0, -1, math.MaxInt64},
		"one key":                  {9, 9, 9, 9},
		"many, few values":         random(5000, -3, 7),
		"many, a wide range":       append(random(5000, math.MinInt64, math.MaxInt64), math.MaxInt64, math.MinInt64, math.MaxInt64),
	}
	for name, keys := range cases {
		want := make([]int, len(keys))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
		got := stableOrder(len(keys), func(i int) int64 { return keys[i] })
		if !slices.Equal(got, want) {
			at := 0
			for at < min(len(got), len(want)) && got[at] == want[at] {
				at++
			}
			t.Errorf("%s (%d keys): stableOrder differs from a stable sort by key from place %d on: got %v, want %v",
				name, len(keys), at, got[at:min(len(got), at+8)], want[at:min(len(want), at+8)])
		}
	}
}
