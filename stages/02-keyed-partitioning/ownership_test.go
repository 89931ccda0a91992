//go:build lab || solution

package keyedpartitioning

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// The tests of this file pin who owns what. A stream is a value the
// caller builds and reads, never a view of the caller's slices: FromSlice
// copies its input, Collect returns a slice of the caller's own, Map and
// Filter leave the stream they read unchanged, and the maps WorkerAssignment
// and RunParallel return are new on every call. A shared slice is the bug
// of this family: two owners, one array, and an edit in one place shows up
// somewhere no one looked.

// The chain steps of the ownership tests.
func square(x int) int   { return x * x }
func even(x int) bool    { return x%2 == 0 }
func evenRec(r rec) bool { return r.Val%2 == 0 }
func tagRec(r rec) rec   { r.Trail = "#" + r.Trail; return r }

// onlyEven returns the records of xs with an even Val, in a new slice.
func onlyEven(xs []rec) []rec {
	return slices.DeleteFunc(slices.Clone(xs), func(x rec) bool { return !evenRec(x) })
}

// TestFromSliceCopiesItsInput certifies that FromSlice copies its input, of one element or many: editing the caller's slice afterwards changes neither the stream's elements nor anything built on it.
func TestFromSliceCopiesItsInput(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	xs := randomRecs(r, keyNames("k", 8), 1, 6)
	want := slices.Clone(xs)
	wantEven := onlyEven(xs)
	wantFold := sequentialFold(want, recKey, concatTrails)

	s := FromSlice(xs)
	mapped := Map(s, tagRec)
	kept := Filter(s, evenRec)
	reduced := KeyBy(s, recKey).Reduce(concatTrails, 3)
	// The caller reuses its slice, as a source reading into one buffer does.
	for i := range xs {
		xs[i] = rec{Key: "edited", Seq: -1, Val: 1, Trail: "edited"}
	}

	const why = "FromSlice must copy xs (slices.Clone): the caller may reuse its slice the moment FromSlice returns, " +
		"as a source reading records into one buffer does, and a stream that keeps the caller's array changes with it."
	if got := s.Collect(); !slices.Equal(got, want) {
		t.Errorf("s := FromSlice(xs); then the test overwrote every element of xs. s.Collect() = %s\nwant the elements xs had when FromSlice was called: %s\n%s",
			showRecs(got), showRecs(want), why)
	}
	if got, wantMapped := mapped.Collect(), mapRecs(want, tagRec); !slices.Equal(got, wantMapped) {
		t.Errorf("Map(FromSlice(xs), tag), built before the test overwrote xs: Collect() = %s\nwant %s\n%s", showRecs(got), showRecs(wantMapped), why)
	}
	if got := kept.Collect(); !slices.Equal(got, wantEven) {
		t.Errorf("Filter(FromSlice(xs), even), built before the test overwrote xs: Collect() = %s\nwant %s\n%s", showRecs(got), showRecs(wantEven), why)
	}
	if d := diffResults(wantFold, RunParallel(reduced)); d != "" {
		t.Errorf("KeyBy(FromSlice(xs)).Reduce(concat, 3), planned before the test overwrote xs, then RunParallel: %s\n%s", d, why)
	}

	// A buffer of one record is the caller's too: a shortcut that keeps the
	// caller's slice when there seems to be nothing to copy shares its array.
	one := []rec{{Key: "solo", Seq: 0, Val: 7, Trail: "0"}}
	wantOne := slices.Clone(one)
	single := FromSlice(one)
	one[0] = rec{Key: "edited", Seq: -1, Val: 1, Trail: "edited"}
	if got := single.Collect(); !slices.Equal(got, wantOne) {
		t.Errorf("s := FromSlice(xs) with one element; then the test overwrote it in xs. s.Collect() = %s\nwant %s\n%s",
			showRecs(got), showRecs(wantOne), why)
	}
}

// TestCollectReturnsASliceTheCallerOwns certifies that Collect returns a new slice on every call, of FromSlice, Map and Filter streams alike, of one element or many: editing it changes neither the stream, nor a second Collect, nor a chain or a reduction built on the stream.
func TestCollectReturnsASliceTheCallerOwns(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	xs := randomRecs(r, keyNames("k", 8), 2, 6)
	base := func() *Stream[rec] { return FromSlice(xs) }
	for _, c := range []struct {
		chain string
		build func() *Stream[rec]
		want  []rec
	}{
		{"FromSlice(xs)", base, slices.Clone(xs)},
		{"Map(FromSlice(xs), tag)", func() *Stream[rec] { return Map(base(), tagRec) }, mapRecs(xs, tagRec)},
		{"Filter(FromSlice(xs), even)", func() *Stream[rec] { return Filter(base(), evenRec) }, onlyEven(xs)},
		{"Filter(Map(FromSlice(xs), tag), even)", func() *Stream[rec] { return Filter(Map(base(), tagRec), evenRec) },
			onlyEven(mapRecs(xs, tagRec))},
		// One element is still the stream's: a shortcut that hands out the
		// stream's own slice when there seems to be nothing to copy shares it.
		{"FromSlice(xs[:1])", func() *Stream[rec] { return FromSlice(xs[:1]) }, slices.Clone(xs[:1])},
		{"Map(FromSlice(xs[:1]), tag)", func() *Stream[rec] { return Map(FromSlice(xs[:1]), tagRec) }, mapRecs(xs[:1], tagRec)},
		{"Filter(FromSlice(xs), is xs[0])", func() *Stream[rec] { return Filter(base(), func(r rec) bool { return r.Seq == 0 }) },
			slices.Clone(xs[:1])},
	} {
		t.Run(c.chain, func(t *testing.T) {
			defer suite.Recover(t)
			if len(c.want) == 0 {
				t.Fatalf("suite bug: %s is empty, so editing what Collect returns proves nothing", c.chain)
			}
			s := c.build()
			first := s.Collect()
			for i := range first {
				first[i].Trail, first[i].Val = "edited by the caller", -1
			}
			const why = "Collect must return a new slice (slices.Clone of the stream's elements): the caller owns it and may " +
				"edit it, and a stream is never modified once built."
			if got := s.Collect(); !slices.Equal(got, c.want) {
				t.Errorf("s := %s; the test edited every element of s.Collect(); then s.Collect() = %s\nwant %s\n%s",
					c.chain, showRecs(got), showRecs(c.want), why)
			}
			if got, want := Map(s, tagRec).Collect(), mapRecs(c.want, tagRec); !slices.Equal(got, want) {
				t.Errorf("s := %s; the test edited every element of s.Collect(); then Map(s, tag).Collect() = %s\nwant %s\n%s",
					c.chain, showRecs(got), showRecs(want), why)
			}
			want := sequentialFold(c.want, recKey, concatTrails)
			if d := diffResults(want, RunParallel(KeyBy(s, recKey).Reduce(concatTrails, 2))); d != "" {
				t.Errorf("s := %s; the test edited every element of s.Collect(); then RunParallel(KeyBy(s).Reduce(concat, 2)): %s\n%s",
					c.chain, d, why)
			}
		})
	}
}

// TestChainStepsLeaveTheirSourceUnchanged certifies that Map and Filter return new streams and leave the stream they read unchanged, so that one stream can feed several chains and be collected and reduced any number of times with the same results.
func TestChainStepsLeaveTheirSourceUnchanged(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	xs := make([]int, 20)
	for i := range xs {
		xs[i] = r.IntN(100) - 50
	}
	s := FromSlice(xs)
	evens := Filter(s, even)
	squares := Map(s, square)
	odds := Filter(s, func(x int) bool { return !even(x) })

	var wantEvens, wantSquares, wantOdds []int
	for _, x := range xs {
		if even(x) {
			wantEvens = append(wantEvens, x)
		} else {
			wantOdds = append(wantOdds, x)
		}
		wantSquares = append(wantSquares, square(x))
	}
	const why = "Map and Filter build a new stream and leave theirs as it was. The in-place filter idiom " +
		"(out := xs[:0]) writes over the array of the stream the caller still holds, and of every chain built on it."
	for round := 1; round <= 2; round++ {
		for _, c := range []struct {
			what      string
			got, want []int
		}{
			{"s, the source, after Filter and Map were built on it", s.Collect(), xs},
			{"Filter(s, even)", evens.Collect(), wantEvens},
			{"Map(s, square)", squares.Collect(), wantSquares},
			{"Filter(s, odd)", odds.Collect(), wantOdds},
		} {
			if !slices.Equal(c.got, c.want) {
				t.Fatalf("s := FromSlice(%v), then evens := Filter(s, even), squares := Map(s, square) and odds := Filter(s, odd).\n"+
					"Collect number %d of %s = %v\nwant %v\n%s", xs, round, c.what, c.got, c.want, why)
			}
		}
	}

	// One plan, run twice: the same result, and the stream is still whole.
	keyed := KeyBy(FromSlice(xs), func(x int) string { return strconv.Itoa(((x % 5) + 5) % 5) })
	plan := keyed.Reduce(func(acc, v int) int { return acc*3 + v }, 3)
	want := sequentialFold(xs, func(x int) string { return strconv.Itoa(((x % 5) + 5) % 5) }, func(acc, v int) int { return acc*3 + v })
	for round := 1; round <= 2; round++ {
		if d := diffResults(want, RunParallel(plan)); d != "" {
			t.Errorf("RunParallel of one planned reduction, run number %d: %s\nA plan is a value: running it again gives the same result.", round, d)
		}
	}
}

// TestReturnedMapsBelongToTheCaller certifies that WorkerAssignment and RunParallel return a new map on every call: editing one result changes no later result.
func TestReturnedMapsBelongToTheCaller(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	keys := keyNames("user-", 30)
	xs := randomRecs(r, keys, 1, 5)

	t.Run("WorkerAssignment", func(t *testing.T) {
		defer suite.Recover(t)
		first := WorkerAssignment(keys, 5)
		for k := range first {
			first[k] = -1
		}
		delete(first, keys[0])
		first["not-a-key"] = 3
		checkAssignment(t, "WorkerAssignment(keys, 5), called again after the test edited the map the first call returned", keys, 5, WorkerAssignment(keys, 5))
	})

	t.Run("RunParallel", func(t *testing.T) {
		defer suite.Recover(t)
		plan := KeyBy(FromSlice(xs), recKey).Reduce(concatTrails, 3)
		first := RunParallel(plan)
		for k, v := range first {
			v.Trail = "edited by the caller"
			first[k] = v
		}
		delete(first, keys[0])
		first["not-a-key"] = rec{Key: "not-a-key"}
		if d := diffResults(sequentialFold(xs, recKey, concatTrails), RunParallel(plan)); d != "" {
			t.Errorf("RunParallel(plan), called again after the test edited the map the first call returned: %s\n"+
				"The map RunParallel returns is the caller's: build a new one on every run, never keep one in the plan.", d)
		}
	})
}

// mapRecs returns f(x) for every x of xs, in a new slice.
func mapRecs(xs []rec, f func(rec) rec) []rec {
	out := make([]rec, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// showRecs renders records compactly, at most eight, for a failure message.
func showRecs(xs []rec) string {
	var parts []string
	for i, x := range xs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(xs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("{%s #%d %d %q}", x.Key, x.Seq, x.Val, x.Trail))
	}
	return fmt.Sprintf("%d records [%s]", len(xs), strings.Join(parts, ", "))
}
