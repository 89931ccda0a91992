//go:build lab || solution

package keyedpartitioning

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestMapFilterChainKeepsOrder certifies that FromSlice, Map, Filter and Collect transform a stream element by element and keep its order.
func TestMapFilterChainKeepsOrder(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	xs := make([]int, 60)
	for i := range xs {
		xs[i] = r.IntN(1000) - 500
	}
	even := func(x int) bool { return x%2 == 0 }
	var wantEvenSquares []string
	for _, x := range xs {
		if even(x) {
			wantEvenSquares = append(wantEvenSquares, "#"+strconv.Itoa(x*x))
		}
	}
	var wantEven []int
	var wantStrings []string
	for _, x := range xs {
		if even(x) {
			wantEven = append(wantEven, x)
		}
		wantStrings = append(wantStrings, strconv.Itoa(x))
	}

	tests := []struct {
		name  string
		chain string
		run   func() []string
		want  []string
	}{
		{
			name: "collect", chain: "FromSlice(xs).Collect()",
			run:  func() []string { return strs(FromSlice(xs).Collect()) },
			want: strs(xs),
		},
		{
			name: "map", chain: "Map(FromSlice(xs), strconv.Itoa).Collect()",
			run:  func() []string { return Map(FromSlice(xs), strconv.Itoa).Collect() },
			want: wantStrings,
		},
		{
			name: "filter", chain: "Filter(FromSlice(xs), even).Collect()",
			run:  func() []string { return strs(Filter(FromSlice(xs), even).Collect()) },
			want: strs(wantEven),
		},
		{
			name: "map-filter-map", chain: `Map(Filter(Map(FromSlice(xs), square), even), "#"+Itoa).Collect()`,
			run: func() []string {
				sq := Map(FromSlice(xs), func(x int) int { return x * x })
				return Map(Filter(sq, even), func(x int) string { return "#" + strconv.Itoa(x) }).Collect()
			},
			want: wantEvenSquares,
		},
		{
			name: "filter-all", chain: "Filter(FromSlice(xs), never).Collect()",
			run:  func() []string { return strs(Filter(FromSlice(xs), func(int) bool { return false }).Collect()) },
			want: nil,
		},
		{
			name: "empty", chain: "FromSlice([]int{}).Collect()",
			run:  func() []string { return strs(FromSlice([]int{}).Collect()) },
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer suite.Recover(t)
			got := tc.run()
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s with xs = %v\n  got  %v\n  want %v\n"+
					"Map and Filter work element by element and keep the order of the stream.",
					tc.chain, xs, got, tc.want)
			}
		})
	}
}

func strs[T any](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// TestChainFeedsKeyedReduce certifies that a Filter/Map chain feeds KeyBy and Reduce, with string and integer keys.
func TestChainFeedsKeyedReduce(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	events := kit.RandomEvents(r, 600, []string{"a", "b", "c", "d", "e"}, 0, 20_000)
	type total struct {
		Key        string
		Count, Sum int64
	}
	add := func(acc, v total) total { return total{acc.Key, acc.Count + v.Count, acc.Sum + v.Sum} }
	toTotal := func(e kit.Event) total { return total{e.Key, 1, e.Value} }
	bigEnough := func(e kit.Event) bool { return e.Value >= 4 }

	t.Run("string key", func(t *testing.T) {
		defer suite.Recover(t)
		want := map[string]total{}
		for _, e := range events {
			if bigEnough(e) {
				w := want[e.Key]
				want[e.Key] = total{e.Key, w.Count + 1, w.Sum + e.Value}
			}
		}
		totals := Map(Filter(FromSlice(events), bigEnough), toTotal)
		got := RunParallel(KeyBy(totals, func(x total) string { return x.Key }).Reduce(add, 3))
		if d := diffResults(want, got); d != "" {
			t.Errorf("FromSlice(600 events) → Filter(Value >= 4) → Map(to count/sum) → KeyBy(Key) → Reduce(add, 3): %s", d)
		}
	})

	t.Run("int key", func(t *testing.T) {
		defer suite.Recover(t)
		// Key by the second of event time: K is an int, not a string.
		type bucket struct{ Second, Sum int64 }
		want := map[int64]bucket{}
		for _, e := range events {
			if bigEnough(e) {
				want[e.TS/1000] = bucket{e.TS / 1000, want[e.TS/1000].Sum + e.Value}
			}
		}
		buckets := Map(Filter(FromSlice(events), bigEnough), func(e kit.Event) bucket { return bucket{e.TS / 1000, e.Value} })
		keyed := KeyBy(buckets, func(b bucket) int64 { return b.Second })
		got := RunParallel(keyed.Reduce(func(acc, v bucket) bucket { return bucket{acc.Second, acc.Sum + v.Sum} }, 4))
		if d := diffResults(want, got); d != "" {
			t.Errorf("FromSlice(600 events) → Filter(Value >= 4) → Map(to second/sum) → KeyBy(second) → Reduce(add, 4): %s", d)
		}
	})
}

// TestReduceRunsOnWorkerGoroutines certifies that RunParallel calls the reduce function on parallelism worker goroutines, never on the caller's.
func TestReduceRunsOnWorkerGoroutines(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	keys := keyNames("k", 40)
	xs := randomRecs(r, keys, 2, 6)
	for _, p := range []int{1, 4} {
		partitions := map[int]bool{}
		for _, k := range keys {
			partitions[stablePartition(k, p)] = true
		}
		if len(partitions) != p {
			t.Fatalf("suite bug: the keys cover %d of %d partitions", len(partitions), p)
		}

		caller := goroutineID()
		log := newCallLog()
		RunParallel(KeyBy(FromSlice(xs), recKey).Reduce(log.wrap(sumVals), p))

		workers := map[uint64]bool{}
		for _, k := range keys {
			for _, id := range log.goroutines(k) {
				workers[id] = true
			}
		}
		if workers[caller] {
			t.Errorf("parallelism %d: the reduce function ran on the goroutine that called RunParallel (%d).\n"+
				"RunParallel must hand the elements to worker goroutines over channels and let them fold; "+
				"folding in the caller is a sequential program, not a keyed stream.", p, caller)
		}
		if len(workers) != p {
			t.Errorf("parallelism %d: the reduce function ran on %d distinct goroutines %v, want %d: "+
				"one worker goroutine per partition, and every partition has keys here.",
				p, len(workers), slices.Sorted(maps.Keys(workers)), p)
		}
	}
}

// TestEachKeyReducedOnItsOwnWorker certifies that all the elements of a key are reduced on one worker, the one PartitionOf assigns, and that distinct partitions have distinct workers.
func TestEachKeyReducedOnItsOwnWorker(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	keys := keyNames("user-", 60)
	xs := randomRecs(r, keys, 3, 8)
	for _, p := range []int{2, 3, 7} {
		t.Run(fmt.Sprintf("parallelism=%d", p), func(t *testing.T) {
			defer suite.Recover(t)
			log := newCallLog()
			got := RunParallel(KeyBy(FromSlice(xs), recKey).Reduce(log.wrap(sumVals), p))

			errs := &suite.ErrorCap{T: t, Max: 5}
			defer errs.Done()
			workerOfPartition := map[int]uint64{}
			keyOfPartition := map[int]string{}
			partitionOfWorker := map[uint64]int{}
			keyOfWorker := map[uint64]string{}
			for _, k := range keys {
				ids := log.goroutines(k)
				if len(ids) == 0 {
					errs.Errorf("key %q has at least 3 elements, but the reduce function was never called for it: "+
						"no worker saw two of its elements, so they were spread over workers instead of all going to one", k)
					continue
				}
				if len(ids) != 1 {
					errs.Errorf("key %q was reduced on %d goroutines %v, want exactly 1: every element of a key must go to "+
						"the one worker that owns it (round-robin or random routing splits a key's state over workers)",
						k, len(ids), ids)
					continue
				}
				id, part := ids[0], stablePartition(k, p)
				if other, seen := partitionOfWorker[id]; seen && other != part {
					errs.Errorf("keys %q (partition %d) and %q (partition %d) were both reduced on goroutine %d: "+
						"a worker must receive only the keys of its partition, PartitionOf(key, %d)",
						keyOfWorker[id], other, k, part, id, p)
				}
				if other, seen := workerOfPartition[part]; seen && other != id {
					errs.Errorf("keys %q and %q are both in partition %d but were reduced on goroutines %d and %d: "+
						"one worker per partition, so that a partition's keys share that worker's state",
						keyOfPartition[part], k, part, other, id)
				}
				partitionOfWorker[id], keyOfWorker[id] = part, k
				workerOfPartition[part], keyOfPartition[part] = id, k
			}
			if d := diffResults(sequentialFold(xs, recKey, sumVals), got); d != "" {
				t.Errorf("per-key sums at parallelism %d: %s", p, d)
			}
		})
	}
}

// TestResultsEqualSequentialFoldAtEveryParallelism certifies that RunParallel returns, at parallelism 1, 3 and 7, exactly a plain per-key fold, even for a non-commutative function.
func TestResultsEqualSequentialFoldAtEveryParallelism(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	xs := randomRecs(r, keyNames("k", 25), 1, 30)
	fns := []struct {
		name string
		fn   func(acc, v rec) rec
		note string
	}{
		{"sum", sumVals, "a sum does not depend on order, so a wrong value means elements were lost, duplicated or mixed between keys"},
		{"concat", concatTrails, "the trail lists a key's input positions in the order they were folded: " +
			"each key must be folded in stream order, which a channel per worker (FIFO) gives for free"},
	}
	for _, f := range fns {
		want := sequentialFold(xs, recKey, f.fn)
		for _, p := range []int{1, 3, 7} {
			t.Run(fmt.Sprintf("%s/parallelism=%d", f.name, p), func(t *testing.T) {
				defer suite.Recover(t)
				got := RunParallel(KeyBy(FromSlice(xs), recKey).Reduce(f.fn, p))
				if d := diffResults(want, got); d != "" {
					t.Errorf("Reduce(%s, %d) over %d elements of 25 keys differs from a sequential per-key fold: %s\n%s",
						f.name, p, len(xs), d, f.note)
				}
			})
		}
	}
}

// TestFirstElementIsInitialAccumulator certifies that the first element of a key is its initial accumulator: the reduce function is called once per later element, and never for a key with one element.
func TestFirstElementIsInitialAccumulator(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	keys := keyNames("k", 12)
	xs := randomRecs(r, keys, 1, 5)
	xs = append(xs, rec{Key: "solo", Seq: len(xs), Val: 42, Trail: "solo-only"})
	count := map[string]int{}
	for _, x := range xs {
		count[x.Key]++
	}

	log := newCallLog()
	got := RunParallel(KeyBy(FromSlice(xs), recKey).Reduce(log.wrap(concatTrails), 3))

	if g, want := got["solo"], xs[len(xs)-1]; g != want {
		t.Errorf(`key "solo" has one element %+v; got %+v, want that element unchanged: `+
			"a key's first element is its accumulator, there is no zero value to start from", want, g)
	}
	errs := &suite.ErrorCap{T: t, Max: 4}
	for _, k := range append(keys, "solo") {
		if calls := log.total(k); calls != count[k]-1 {
			errs.Errorf("key %q has %d element(s), and the reduce function was called %d times for it, want %d: "+
				"the first element is the accumulator, fn(acc, v) folds in each later one", k, count[k], calls, count[k]-1)
		}
	}
	errs.Done()
	if d := diffResults(sequentialFold(xs, recKey, concatTrails), got); d != "" {
		t.Errorf("Reduce(concat, 3): %s", d)
	}
}

// TestReduceRejectsNonPositiveParallelism certifies that a reduction with parallelism below 1 panics with a clear message, in Reduce or RunParallel, over an empty stream too.
func TestReduceRejectsNonPositiveParallelism(t *testing.T) {
	defer suite.Recover(t)
	keyed := KeyBy(FromSlice([]rec{{Key: "a", Val: 1}, {Key: "b", Val: 2}}), recKey)
	// With no element to route, the argument is as wrong: a check made only
	// on the way to a worker, or after a shortcut for an empty stream, never
	// runs.
	empty := KeyBy(FromSlice([]rec{}), recKey)
	for _, p := range []int{0, -1, -4} {
		suite.MustPanic(t, fmt.Sprintf("RunParallel(keyed.Reduce(sum, %d))", p), "a job needs at least one worker",
			func() { RunParallel(keyed.Reduce(sumVals, p)) })
		suite.MustPanic(t, fmt.Sprintf("RunParallel(KeyBy(FromSlice(no elements)).Reduce(sum, %d))", p),
			"a job needs at least one worker, whether or not its input has elements",
			func() { RunParallel(empty.Reduce(sumVals, p)) })
	}
}

// TestEmptyStreamReducesToEmptyMap certifies that reducing an empty stream, at any parallelism, returns no keys and does not hang.
func TestEmptyStreamReducesToEmptyMap(t *testing.T) {
	defer suite.Recover(t)
	for _, p := range []int{1, 5} {
		got := RunParallel(KeyBy(FromSlice([]rec{}), recKey).Reduce(sumVals, p))
		if len(got) != 0 {
			t.Errorf("RunParallel over an empty stream at parallelism %d = %v, want no keys", p, got)
		}
		none := Filter(FromSlice([]rec{{Key: "a"}, {Key: "b"}}), func(rec) bool { return false })
		if got := RunParallel(KeyBy(none, recKey).Reduce(sumVals, p)); len(got) != 0 {
			t.Errorf("RunParallel over a stream filtered to nothing at parallelism %d = %v, want no keys", p, got)
		}
	}
}

// TestRunParallelIsRaceFree certifies that many workers reducing thousands of keys share no unsynchronised state (run with -race, as de and CI do) and still equal a plain fold.
//
// The workload runs in a fresh child process (this test binary, with
// FLK_CHILD=race), for two reasons: the race detector reports a given race
// only once per process, so another test of the stage that met the race
// first would leave nothing for this one to see; and workers that crash
// the runtime ("concurrent map writes") take down their process, which
// here is the child, so this test can still say what went wrong.
func TestRunParallelIsRaceFree(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "race" {
		reduceManyKeys(t)
		return
	}
	// In this process only a one-worker run, which cannot race, so that an
	// unfinished RunParallel is reported here as not implemented.
	one := []rec{{Key: "a", Val: 1}, {Key: "a", Val: 2}}
	if got := RunParallel(KeyBy(FromSlice(one), recKey).Reduce(sumVals, 1)); got["a"].Val != 3 || len(got) != 1 {
		t.Fatalf("RunParallel(Reduce(sum, 1)) over %+v = %+v, want key a with Val 3 only", one, got)
	}

	out, err := suite.RunChild("TestRunParallelIsRaceFree", "race")
	if err == nil {
		return
	}
	text := string(out)
	why := "It failed; its output is above."
	switch {
	case strings.Contains(text, "WARNING: DATA RACE"):
		text = firstRaceReport(text)
		why = "The race detector found two workers touching the same memory without synchronisation (report above). " +
			"Give each worker its own state (its own map) and merge the workers' maps after they have all finished " +
			"(after wg.Wait, or after receiving each worker's map over a channel)."
	case strings.Contains(text, "concurrent map"):
		why = "The Go runtime caught two goroutines using one map at once, at least one of them writing, and crashed (above). " +
			"Give each worker its own map and merge them after the workers have finished."
	}
	t.Errorf("RunParallel with 16 and 64 workers over 3000 keys, run again in a fresh process, failed:\n%s\n%s",
		firstLines(text, 60), why)
	if !suite.RaceEnabled {
		t.Log("the race detector was off in this run: re-run with -race (de test does) to see data races reported")
	}
}

// reduceManyKeys reduces 3000 keys on 16 and then 64 workers and checks the
// results against a sequential fold.
func reduceManyKeys(t *testing.T) {
	t.Helper()
	r := suite.Rand(t)
	xs := randomRecs(r, keyNames("key-", 3000), 1, 12)
	// The functions are pure on purpose: a lock in them would order the
	// workers and could hide a race in RunParallel from the detector.
	for _, p := range []int{16, 64} {
		for _, f := range []struct {
			name string
			fn   func(acc, v rec) rec
		}{{"sum", sumVals}, {"concat", concatTrails}} {
			got := RunParallel(KeyBy(FromSlice(xs), recKey).Reduce(f.fn, p))
			if d := diffResults(sequentialFold(xs, recKey, f.fn), got); d != "" {
				t.Errorf("Reduce(%s, %d) over %d elements of 3000 keys differs from a sequential fold: %s\n"+
					"With many workers, state shared between them without a lock (one result map for all, say) "+
					"loses updates; give each worker its own state and merge after they finish.", f.name, p, len(xs), d)
			}
		}
	}
}

// firstRaceReport returns the first "WARNING: DATA RACE" report in the
// output s, between its "==================" rules.
func firstRaceReport(s string) string {
	const rule = "==================\n"
	start := strings.Index(s, "WARNING: DATA RACE")
	end := strings.Index(s[start:], rule)
	if end < 0 {
		return s[start:]
	}
	return s[start : start+end]
}

// firstLines returns the first n lines of s, with a note of how many more
// there were.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-n)
}
