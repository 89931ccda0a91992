//go:build lab || solution

package rescaling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// regionUser is a composite key: kit.StableHash encodes a struct field by
// field, so a struct of supported fields is a valid key.
type regionUser struct {
	Region string
	User   int
}

// groupKeys are keys of every kind kit.StableHash supports.
var groupKeys = []any{
	"", "a", "b", "user-42", "user-43", "züri", strings.Repeat("a long key ", 12),
	0, 1, 7, -1, -1 << 40, int64(1) << 62, uint(7), uint64(1) << 63, true, false,
	regionUser{"eu", 3}, regionUser{"us", 3}, [2]string{"a", "b"},
}

// TestKeyGroupIsStableHashModMaxParallelism certifies that KeyGroup(key, maxP) is kit.StableHash(key) % maxP for keys of every supported kind.
func TestKeyGroupIsStableHashModMaxParallelism(t *testing.T) {
	defer suite.Recover(t)
	errs := &suite.ErrorCap{T: t, Max: 6}
	defer errs.Done()
	highBit := false
	for _, key := range groupKeys {
		highBit = highBit || kit.StableHash(key)>>63 == 1
		for _, maxP := range []int{1, 2, 7, 128, 1000, 32768} {
			want := wantKeyGroup(key, maxP)
			if got := KeyGroup(key, maxP); got != want {
				errs.Errorf("KeyGroup(%#v, %d) = %d, want %d = kit.StableHash(key) %% %d (hash %d).\n"+
					"A key's key group is its stable hash modulo maxParallelism, reduced in uint64 (an int conversion\n"+
					"first can make it negative): it must be the same in every process and at every parallelism,\n"+
					"because it names where the key's state is saved.", key, maxP, got, want, maxP, kit.StableHash(key))
			}
		}
	}
	if !highBit {
		t.Fatal("suite bug: no key in the table has a hash with the top bit set; add one")
	}
}

// flinkRanges are key-group ranges computed by Flink's
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex.
var flinkRanges = []struct {
	maxP, p int
	ranges  [][2]int
}{
	{128, 3, [][2]int{{0, 42}, {43, 85}, {86, 127}}},
	{128, 4, [][2]int{{0, 31}, {32, 63}, {64, 95}, {96, 127}}},
	{128, 5, [][2]int{{0, 25}, {26, 51}, {52, 76}, {77, 102}, {103, 127}}},
	{128, 1, [][2]int{{0, 127}}},
	{10, 3, [][2]int{{0, 3}, {4, 6}, {7, 9}}},
	{10, 4, [][2]int{{0, 2}, {3, 4}, {5, 7}, {8, 9}}},
	{7, 7, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}},
	{1, 1, [][2]int{{0, 0}}},
}

// TestKeyGroupRangeMatchesFlinkVectors certifies that KeyGroupRange and TaskForKeyGroup give Flink's ranges, e.g. [0,42] [43,85] [86,127] for maxParallelism 128 at parallelism 3.
func TestKeyGroupRangeMatchesFlinkVectors(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range flinkRanges {
		t.Run(fmt.Sprintf("maxP=%d/p=%d", c.maxP, c.p), func(t *testing.T) {
			defer suite.Recover(t)
			var got []string
			differ := false
			for i, want := range c.ranges {
				first, last := KeyGroupRange(i, c.maxP, c.p)
				got = append(got, fmt.Sprintf("[%d,%d]", first, last))
				differ = differ || first != want[0] || last != want[1]
			}
			if differ {
				var want []string
				for _, r := range c.ranges {
					want = append(want, fmt.Sprintf("[%d,%d]", r[0], r[1]))
				}
				t.Errorf("KeyGroupRange(i, %d, %d) for i = 0…%d gives %s\nwant (Flink's ranges)            %s\n"+
					"Both ends are inclusive: first = (i*maxP + p − 1) / p rounds i*maxP/p UP, last = ((i+1)*maxP − 1) / p is\n"+
					"the next range's first minus one. A range end that is off by one drops a key group or gives it two owners.",
					c.maxP, c.p, c.p-1, strings.Join(got, " "), strings.Join(want, " "))
			}
			for i, r := range c.ranges {
				for _, kg := range []int{r[0], r[1]} { // the edges, where an off-by-one shows
					if got := TaskForKeyGroup(kg, c.maxP, c.p); got != i {
						t.Errorf("TaskForKeyGroup(%d, %d, %d) = %d, want %d: key group %d is in subtask %d's range [%d,%d]; "+
							"the owner is kg * p / maxP = %d * %d / %d", kg, c.maxP, c.p, got, i, kg, i, r[0], r[1], kg, c.p, c.maxP)
					}
				}
			}
		})
	}
}

// kgSpan names the key groups a…b with their verb: "key group 3 has",
// "key groups 3…5 have".
func kgSpan(a, b int) string {
	if a == b {
		return fmt.Sprintf("key group %d has", a)
	}
	return fmt.Sprintf("key groups %d…%d have", a, b)
}

// rangeMaxPs are the maxParallelism values whose every parallelism the
// range tests try.
var rangeMaxPs = []int{1, 7, 128, 1000}

// TestKeyGroupRangesCoverEveryKeyGroupOnce certifies that for every parallelism up to maxParallelism the ranges are contiguous, disjoint, never empty, balanced and cover 0..maxParallelism−1.
func TestKeyGroupRangesCoverEveryKeyGroupOnce(t *testing.T) {
	defer suite.Recover(t)
	errs := &suite.ErrorCap{T: t, Max: 5}
	defer errs.Done()
	for _, maxP := range rangeMaxPs {
		for p := 1; p <= maxP; p++ {
			next := 0 // the first key group no range has covered yet
			small, large := maxP/p, (maxP+p-1)/p
			for i := range p {
				first, last := KeyGroupRange(i, maxP, p)
				if first == next && last >= first && (last-first+1 == small || last-first+1 == large) {
					next = last + 1
					continue // the common case, checked without formatting a message
				}
				// One message per parallelism: the first range that is wrong.
				call := fmt.Sprintf("KeyGroupRange(%d, %d, %d) = [%d,%d]", i, maxP, p, first, last)
				switch {
				case last >= maxP:
					errs.Errorf("%s reaches past key group %d, the last of %d: both ends are inclusive, so\n"+
						"last = ((i+1)*maxP − 1) / p, and the last range ends at maxP − 1", call, maxP-1, maxP)
				case first != next && i == 0:
					errs.Errorf("%s; the first range must start at key group 0, or %s no owner", call, kgSpan(0, first-1))
				case first > next:
					errs.Errorf("%s, but the previous range ended at %d: %s no owner,\n"+
						"so after a restore at parallelism %d nobody reads that state", call, next-1, kgSpan(next, first-1), p)
				case first < next:
					errs.Errorf("%s, but the previous range ended at %d: %s two owners,\n"+
						"so two subtasks would restore (and fire) the same state", call, next-1, kgSpan(first, next-1))
				case last < first:
					errs.Errorf("%s is empty: with parallelism ≤ maxParallelism every subtask owns at least one key group", call)
				default:
					share := fmt.Sprintf("%d or %d", small, large)
					if small == large {
						share = fmt.Sprintf("exactly %d", small)
					}
					errs.Errorf("%s holds %d key groups; %d key groups over %d subtasks give each %s:\n"+
						"first = (i*maxP + p − 1) / p and last = ((i+1)*maxP − 1) / p, both inclusive", call, last-first+1, maxP, p, share)
				}
				next = -1
				break
			}
			if next >= 0 && next < maxP {
				errs.Errorf("the last range of maxParallelism %d at parallelism %d ends at key group %d, want %d:\n"+
					"%s no owner, so that state is never restored", maxP, p, next-1, maxP-1, kgSpan(next, maxP-1))
			}
		}
	}
}

// TestTaskForKeyGroupAgreesWithKeyGroupRange certifies that TaskForKeyGroup(kg) is i exactly when kg is in KeyGroupRange(i), for every key group and every parallelism up to maxParallelism.
//
// Routing (TaskForKeyGroup) and restoring (KeyGroupRange) must agree, or an
// event reaches a subtask that did not restore its key's state.
func TestTaskForKeyGroupAgreesWithKeyGroupRange(t *testing.T) {
	defer suite.Recover(t)
	errs := &suite.ErrorCap{T: t, Max: 5}
	defer errs.Done()
	for _, maxP := range rangeMaxPs {
		for p := 1; p <= maxP; p++ {
			for i := range p {
				first, last := KeyGroupRange(i, maxP, p)
				for kg := max(first, 0); kg <= min(last, maxP-1); kg++ {
					if got := TaskForKeyGroup(kg, maxP, p); got != i {
						if errs.Full() {
							errs.Errorf("") // only counted: skip formatting a message nobody sees
							continue
						}
						fix := fmt.Sprintf("The owner of a key group is kg * p / maxP (= %d).", wantTask(kg, maxP, p))
						if got == wantTask(kg, maxP, p) {
							wf, wl := wantRange(i, maxP, p)
							fix = fmt.Sprintf("TaskForKeyGroup is right; the range is not: subtask %d owns [%d,%d], the key groups kg with\n"+
								"i*maxP ≤ kg*p < (i+1)*maxP, i.e. [(i*maxP + p − 1) / p, ((i+1)*maxP − 1) / p].", i, wf, wl)
						}
						errs.Errorf("TaskForKeyGroup(%d, %d, %d) = %d, but KeyGroupRange(%d, %d, %d) = [%d,%d] holds key group %d.\n"+
							"Events of the key group are routed to subtask %d while its state is restored on subtask %d.\n%s",
							kg, maxP, p, got, i, maxP, p, first, last, kg, got, i, fix)
					}
				}
			}
		}
	}
}

// TestKeyGroupsAssignedInContiguousRanges certifies that walking the key groups in order, TaskForKeyGroup never goes back and steps by at most one subtask, from subtask 0 to subtask p−1.
func TestKeyGroupsAssignedInContiguousRanges(t *testing.T) {
	defer suite.Recover(t)
	errs := &suite.ErrorCap{T: t, Max: 3}
	defer errs.Done()
	for _, maxP := range []int{7, 128, 1000} {
		for _, p := range []int{1, 2, 3, 5, 7, maxP / 3, maxP} {
			if p < 1 || p > maxP {
				continue
			}
			tasks := make([]int, maxP)
			for kg := range tasks {
				tasks[kg] = TaskForKeyGroup(kg, maxP, p)
			}
			seq := fmt.Sprint(tasks[:min(maxP, 12)])
			if maxP > 12 {
				seq = strings.TrimSuffix(seq, "]") + " …]"
			}
			bad := -1
			for kg, task := range tasks {
				if (kg == 0 && task != 0) || (kg > 0 && (task < tasks[kg-1] || task > tasks[kg-1]+1)) {
					bad = kg
					break
				}
			}
			switch {
			case bad == 0:
				errs.Errorf("TaskForKeyGroup(0, %d, %d) = %d, want 0: subtask 0 owns the first range", maxP, p, tasks[0])
			case bad > 0:
				more := ""
				if tasks[bad] == bad%p && tasks[bad] < tasks[bad-1] {
					more = fmt.Sprintf("\nThat is kg %% p, round robin. It spreads key groups evenly, but subtask 0 owns key groups 0, %d, %d, …:\n"+
						"after a rescale every new subtask needs state from every old one. With kg * p / maxP neighbours stay\n"+
						"together, and a new subtask reads one contiguous stretch of key groups from one or two old subtasks.", p, 2*p)
				}
				errs.Errorf("TaskForKeyGroup(kg, %d, %d) for kg = 0, 1, 2, … is %s;\n"+
					"at key group %d it jumps from subtask %d to %d. Each subtask owns ONE contiguous range of key groups,\n"+
					"so walking them in order visits subtask 0, then 1, … each once.%s",
					maxP, p, seq, bad, tasks[bad-1], tasks[bad], more)
			case tasks[maxP-1] != p-1:
				errs.Errorf("TaskForKeyGroup(%d, %d, %d) = %d, want %d: the last key group belongs to the last subtask",
					maxP-1, maxP, p, tasks[maxP-1], p-1)
			}
		}
	}
}

// TestInvalidArgumentsPanicWithAClearMessage certifies that KeyGroup, TaskForKeyGroup, KeyGroupRange and KeysOn panic with a message of their own on an impossible argument.
func TestInvalidArgumentsPanicWithAClearMessage(t *testing.T) {
	defer suite.Recover(t)
	const (
		noGroups   = "there are no key groups when maxParallelism < 1"
		noTasks    = "there is no subtask to own a key group when parallelism < 1"
		tooMany    = "parallelism above maxParallelism leaves subtasks without a key group"
		badGroup   = "key groups are 0…maxParallelism−1"
		badSubtask = "subtasks are 0…parallelism−1"
	)
	for _, maxP := range []int{0, -1} {
		suite.MustPanic(t, fmt.Sprintf("KeyGroup(%q, %d)", "a", maxP), noGroups, func() { KeyGroup("a", maxP) })
		suite.MustPanic(t, fmt.Sprintf("TaskForKeyGroup(0, %d, 1)", maxP), noGroups, func() { TaskForKeyGroup(0, maxP, 1) })
		suite.MustPanic(t, fmt.Sprintf("KeyGroupRange(0, %d, 1)", maxP), noGroups, func() { KeyGroupRange(0, maxP, 1) })
	}
	for _, c := range []struct {
		arg, maxP, p int
		why          string
	}{
		{0, 8, 0, noTasks}, {0, 8, -2, noTasks}, {0, 8, 9, tooMany}, {0, 1, 2, tooMany},
	} {
		suite.MustPanic(t, fmt.Sprintf("TaskForKeyGroup(%d, %d, %d)", c.arg, c.maxP, c.p), c.why, func() { TaskForKeyGroup(c.arg, c.maxP, c.p) })
		suite.MustPanic(t, fmt.Sprintf("KeyGroupRange(%d, %d, %d)", c.arg, c.maxP, c.p), c.why, func() { KeyGroupRange(c.arg, c.maxP, c.p) })
	}
	for _, kg := range []int{-1, 8, 100} {
		suite.MustPanic(t, fmt.Sprintf("TaskForKeyGroup(%d, 8, 2)", kg), badGroup, func() { TaskForKeyGroup(kg, 8, 2) })
	}
	for _, task := range []int{-1, 2, 5} {
		suite.MustPanic(t, fmt.Sprintf("KeyGroupRange(%d, 8, 2)", task), badSubtask, func() { KeyGroupRange(task, 8, 2) })
	}
	pp := newParallel(t, ParallelConfig{Processor: Config{WindowSize: 10}, Parallelism: 2, MaxParallelism: 8})
	for _, i := range []int{-1, 2} {
		suite.MustPanic(t, fmt.Sprintf("KeysOn(%d) at parallelism 2", i), badSubtask, func() { pp.KeysOn(i) })
	}
}
