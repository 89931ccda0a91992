//go:build lab || solution

package keyedpartitioning

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// regionShard is a composite key: kit.StableHash encodes a struct field by
// field, so a struct of supported fields is a valid key.
type regionShard struct {
	Region string
	Shard  int
}

// partitionKeys are keys of every kind kit.StableHash supports.
var partitionKeys = []any{
	"", "a", "b", "user-42", "user-43", "züri", strings.Repeat("a key longer than one BLAKE2b block ", 6),
	0, 1, 7, -1, -1 << 40, int64(1) << 62, int8(-8), uint(7), uint64(1) << 63,
	true, false,
	regionShard{"eu", 3}, regionShard{"us", 3}, regionShard{"", 0},
	[2]string{"a", "b"}, [3]int{1, 2, 3},
}

// TestPartitionOfIsStableHashModN certifies that PartitionOf(key, n) is kit.StableHash(key) % n for strings, integers, bools, structs and arrays.
func TestPartitionOfIsStableHashModN(t *testing.T) {
	defer suite.Recover(t)
	errs := &suite.ErrorCap{T: t, Max: 6}
	defer errs.Done()
	highBit := false
	for _, key := range partitionKeys {
		highBit = highBit || kit.StableHash(key)>>63 == 1
		for _, n := range []int{1, 2, 3, 7, 10, 128, 1000} {
			want := stablePartition(key, n)
			got := PartitionOf(key, n)
			if got != want {
				errs.Errorf("PartitionOf(%#v, %d) = %d, want %d = kit.StableHash(key) %% %d (hash %d).\n"+
					"Every process must route a key to the same worker, so the partition must be the stable hash "+
					"modulo n, computed in uint64 (an int conversion first can make the hash negative).",
					key, n, got, want, n, kit.StableHash(key))
			}
		}
	}
	if !highBit {
		t.Fatal("suite bug: no key in the table has a hash with the top bit set; add one")
	}
}

// TestPartitionOfRejectsNonPositiveN certifies that PartitionOf and WorkerAssignment panic with a clear message when the number of workers is below 1.
func TestPartitionOfRejectsNonPositiveN(t *testing.T) {
	defer suite.Recover(t)
	const why = "there is no worker to own the key among fewer than one"
	for _, n := range []int{0, -1, -7} {
		suite.MustPanic(t, fmt.Sprintf("PartitionOf(%q, %d)", "a", n), why, func() { PartitionOf("a", n) })
		suite.MustPanic(t, fmt.Sprintf("WorkerAssignment([a b], %d)", n), why, func() { WorkerAssignment([]string{"a", "b"}, n) })
		// With no key to place, the argument is as wrong: a check that only
		// PartitionOf makes, key by key, never runs.
		suite.MustPanic(t, fmt.Sprintf("WorkerAssignment([], %d)", n), why, func() { WorkerAssignment([]string{}, n) })
		suite.MustPanic(t, fmt.Sprintf("WorkerAssignment(nil, %d)", n), why, func() { WorkerAssignment[int](nil, n) })
	}
}

// TestWorkerAssignmentMatchesPartitionOf certifies that WorkerAssignment maps every distinct key, and only those, to PartitionOf(key, n).
func TestWorkerAssignmentMatchesPartitionOf(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	names := keyNames("key-", 50)
	for _, n := range []int{1, 2, 5, 16} {
		// Draw keys with repeats: a repeated key still has one worker.
		keys := make([]string, 80)
		for i := range keys {
			keys[i] = names[r.IntN(len(names))]
		}
		got := WorkerAssignment(keys, n)
		checkAssignment(t, fmt.Sprintf("WorkerAssignment(<%d string keys>, %d)", len(keys), n), keys, n, got)

		ints := []int{0, 1, 2, 3, -5, 1 << 33, 1, 2}
		checkAssignment(t, fmt.Sprintf("WorkerAssignment(%v, %d)", ints, n), ints, n, WorkerAssignment(ints, n))
	}
	if got := WorkerAssignment([]string{}, 3); len(got) != 0 {
		t.Errorf("WorkerAssignment(no keys, 3) = %v, want an empty map", got)
	}
}

func checkAssignment[K comparable](t *testing.T, call string, keys []K, n int, got map[K]int) {
	t.Helper()
	errs := &suite.ErrorCap{T: t, Max: 4}
	defer errs.Done()
	distinct := map[K]bool{}
	for _, k := range keys {
		if distinct[k] {
			continue // a repeated key is checked once
		}
		distinct[k] = true
		want := stablePartition(k, n)
		if w, ok := got[k]; !ok {
			errs.Errorf("%s has no entry for key %v, want %d", call, k, want)
		} else if w != want {
			errs.Errorf("%s[%v] = %d, want PartitionOf(%v, %d) = %d: the assignment is the partition, "+
				"not a count or an order (a map's iteration order changes from run to run)", call, k, w, k, n, want)
		}
	}
	for k, w := range got {
		if !distinct[k] {
			errs.Errorf("%s has an entry %v → %d for a key that is not in the input", call, k, w)
		}
	}
}

// partitionReport renders PartitionOf for every key of partitionKeys and a
// WorkerAssignment of fifty keys, one result a line, in a fixed order.
func partitionReport() []string {
	var lines []string
	for _, key := range partitionKeys {
		for _, n := range []int{2, 3, 7, 128} {
			lines = append(lines, fmt.Sprintf("partition\t%T %#v\t%d\t%d", key, key, n, PartitionOf(key, n)))
		}
	}
	assign := WorkerAssignment(keyNames("user-", 50), 7)
	keys := make([]string, 0, len(assign))
	for k := range assign {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("assign\t%s\t7\t%d", k, assign[k]))
	}
	return lines
}

// TestPartitionStableAcrossProcesses certifies that PartitionOf and WorkerAssignment give the same workers in a freshly started process.
//
// The test runs itself again as a child process (the test binary, with
// FLK_CHILD=partitions); the child prints its partitions and the parent compares
// them with its own. A restarted job must find every key's state on the
// worker it was on: Go's hash/maphash and map iteration order are seeded
// per process and fail this test.
func TestPartitionStableAcrossProcesses(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "partitions" {
		fmt.Println(strings.Join(partitionReport(), "\n"))
		return
	}
	want := partitionReport()

	out, err := suite.RunChild("TestPartitionStableAcrossProcesses", "partitions")
	if err != nil {
		t.Fatalf("the child process failed (%v); its output:\n%s", err, out)
	}
	var got []string
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "partition\t") || strings.HasPrefix(line, "assign\t") {
			got = append(got, line)
		}
	}

	if len(got) != len(want) {
		t.Fatalf("the child process printed %d partition lines, want %d; its output:\n%s", len(got), len(want), out)
	}
	var diffs []string
	for i := range want {
		if got[i] != want[i] {
			diffs = append(diffs, fmt.Sprintf("  this process:  %s\n  child process: %s", want[i], got[i]))
		}
	}
	if len(diffs) > 0 {
		shown := diffs[:min(len(diffs), 6)]
		t.Errorf("%d of %d partitions differ between this process and a fresh one (columns: key, n, worker):\n%s\n"+
			"A key must land on the same worker in every process, or after a restart its records reach a worker "+
			"that does not hold its state. hash/maphash and Go's map order are seeded per process; "+
			"kit.StableHash is the same everywhere.", len(diffs), len(want), strings.Join(shown, "\n"))
	}
}
