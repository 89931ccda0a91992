//go:build flink

package parity

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/solutions"
)

// TestKeyGroupsMatchFlink checks stage 06's key groups against Flink's
// KeyGroupRangeAssignment, for random (maxParallelism, parallelism) pairs
// and the edges (parallelism 1 and equal to maxParallelism, maxParallelism
// 1 and 32768, powers of two and not): the subtask of every key group
// (TaskForKeyGroup, computeOperatorIndexForKeyGroup), the range of every
// subtask (KeyGroupRange, computeKeyGroupRangeForOperatorIndex), that both
// refuse a parallelism above maxParallelism or below 1, and the default
// maxParallelism (drill 06's engine.DefaultMaxParallelism,
// computeDefaultMaxParallelism) for parallelism 1 … 32768.
//
// Keys are hashed differently on purpose (docs/PARITY.md, row 5): the
// course's key group is kit.StableHash(key) % maxP, Flink's is
// murmurHash(key.hashCode()) % maxP. What comes after the hash is
// compared: Flink's key group of a String key, handed to the course's
// TaskForKeyGroup, must give the subtask keyBy sends the key to
// (assignKeyToParallelOperator).
func TestKeyGroupsMatchFlink(t *testing.T) {
	check(t, "stage 06, key groups", func(r *seeded) differential[flinkrun.KeyGroupsOp] { return keyGroupsScenario(r) })
}

// A keyGroupsCase is one (maxParallelism, parallelism) pair and the
// questions asked about it.
type keyGroupsCase struct {
	flinkrun.KeyGroupsSpec
	ops []flinkrun.KeyGroupsOp
}

func (c keyGroupsCase) describe() string {
	return fmt.Sprintf("maxParallelism %d, parallelism %d", c.MaxParallelism, c.Parallelism)
}

func (c keyGroupsCase) calls() []flinkrun.KeyGroupsOp { return c.ops }

func (c keyGroupsCase) with(ops []flinkrun.KeyGroupsOp) differential[flinkrun.KeyGroupsOp] {
	c.ops = ops
	return c
}

func (c keyGroupsCase) compare(t *testing.T) (int, func() string, error) {
	fl, err := flink.RunKeyGroups(c.KeyGroupsSpec, c.ops)
	if err != nil {
		return 0, nil, err
	}
	return c.differs(fl), func() string { return c.sideBySide(fl) }, nil
}

// answer is the course's answer to question i, in the shape of Flink's:
// for a key, it is the subtask the course's TaskForKeyGroup gives Flink's
// key group (the key groups differ by their hash, on purpose), so fl is
// Flink's answer to the same question.
func (c keyGroupsCase) answer(o flinkrun.KeyGroupsOp, fl flinkrun.KeyGroupsStep) (a flinkrun.KeyGroupsStep) {
	maxP, p := c.MaxParallelism, c.Parallelism
	defer func() {
		if r := recover(); r != nil {
			a = flinkrun.KeyGroupsStep{Rejected: fmt.Sprint(r)}
		}
	}()
	switch o.Op {
	case "operators":
		a.Operators = make([]int, maxP)
		for kg := range a.Operators {
			a.Operators[kg] = solutions.TaskForKeyGroup(kg, maxP, p)
		}
	case "ranges":
		for i := range max(p, 1) {
			first, last := solutions.KeyGroupRange(i, maxP, p)
			a.Ranges = append(a.Ranges, [2]int{first, last})
		}
	case "default":
		d := engine.DefaultMaxParallelism(o.Parallelism)
		a.DefaultMaxParallelism = &d
	case "key":
		if fl.KeyGroup == nil {
			return a
		}
		kg, task := *fl.KeyGroup, solutions.TaskForKeyGroup(*fl.KeyGroup, maxP, p)
		a.KeyGroup, a.Operator = &kg, &task
	}
	return a
}

// same reports whether the course's answer a is Flink's fl: equal, or both
// a refusal (whatever the words).
func same(a, fl flinkrun.KeyGroupsStep) bool {
	if a.Rejected != "" || fl.Rejected != "" {
		return a.Rejected != "" && fl.Rejected != ""
	}
	eq := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return slices.Equal(a.Operators, fl.Operators) && slices.Equal(a.Ranges, fl.Ranges) &&
		eq(a.DefaultMaxParallelism, fl.DefaultMaxParallelism) && eq(a.KeyGroup, fl.KeyGroup) && eq(a.Operator, fl.Operator)
}

// differs returns the first question the course and Flink answer
// differently, or −1.
func (c keyGroupsCase) differs(fl []flinkrun.KeyGroupsStep) int {
	for i, o := range c.ops {
		if !same(c.answer(o, fl[i]), fl[i]) {
			return i
		}
	}
	return -1
}

// sideBySide renders both sides question by question; a long list is
// shown by its first differences.
func (c keyGroupsCase) sideBySide(fl []flinkrun.KeyGroupsStep) string {
	var b strings.Builder
	for i, o := range c.ops {
		a := c.answer(o, fl[i])
		mark := " "
		if !same(a, fl[i]) {
			mark = "≠"
		}
		q := o.Op
		switch o.Op {
		case "default":
			q = fmt.Sprintf("default maxParallelism of parallelism %d", o.Parallelism)
		case "key":
			q = fmt.Sprintf("key %q (the course's own key group, from kit.StableHash: %d)", o.Key, solutions.KeyGroup(o.Key, c.MaxParallelism))
		}
		fmt.Fprintf(&b, "%s %2d  %s\n       course  %s\n       Flink   %s\n", mark, i+1, q, fmtKeyGroups(a, fl[i]), fmtKeyGroups(fl[i], a))
	}
	return b.String()
}

// fmtKeyGroups shows s; a list of key groups or ranges is shown where it
// differs from other's, at most five places.
func fmtKeyGroups(s, other flinkrun.KeyGroupsStep) string {
	switch {
	case s.Rejected != "":
		return "refused: " + s.Rejected
	case s.Operators != nil:
		return fmtDiffering("key group", "subtask", s.Operators, other.Operators)
	case s.Ranges != nil:
		return fmtDiffering("subtask", "range", s.Ranges, other.Ranges)
	case s.DefaultMaxParallelism != nil:
		return fmt.Sprint(*s.DefaultMaxParallelism)
	case s.KeyGroup != nil && s.Operator != nil:
		return fmt.Sprintf("key group %d → subtask %d", *s.KeyGroup, *s.Operator)
	}
	return "—"
}

// fmtDiffering shows xs by its length and the first places it differs
// from ys, as "what i: x".
func fmtDiffering[T comparable](what, of string, xs, ys []T) string {
	var diff []string
	for i, x := range xs {
		if i >= len(ys) || x != ys[i] {
			diff = append(diff, fmt.Sprintf("%s %d: %v", what, i, x))
			if len(diff) == 5 {
				diff = append(diff, "…")
				break
			}
		}
	}
	if len(diff) == 0 {
		return fmt.Sprintf("%d of them, each the other side's %s", len(xs), of)
	}
	return fmt.Sprintf("%d of them; %s", len(xs), strings.Join(diff, ", "))
}

// keyGroupsScenario makes a random pair and its questions: every key
// group's subtask and every subtask's range, the default maxParallelism of
// the parallelism and of a few others, and a few keys. One pair in twenty
// is impossible (a parallelism above maxParallelism, or below 1): then
// only the ranges and the default are asked, which both sides must refuse.
func keyGroupsScenario(r *seeded) keyGroupsCase {
	const upper = 32768 // Flink's UPPER_BOUND_MAX_PARALLELISM
	var maxP int
	switch r.IntN(8) {
	case 0:
		maxP = 1
	case 1:
		maxP = upper
	case 2:
		maxP = 1 << r.IntN(16) // a power of two
	case 3:
		maxP = 1 + r.IntN(upper)
	default:
		maxP = 1 + r.IntN(1000)
	}
	var p int
	switch r.IntN(6) {
	case 0:
		p = 1
	case 1:
		p = maxP
	case 2:
		p = max(maxP-1, 1)
	default:
		p = 1 + r.IntN(maxP)
	}
	var ops []flinkrun.KeyGroupsOp
	if r.IntN(20) == 0 {
		p = []int{maxP + 1 + r.IntN(maxP), 0, -1 - r.IntN(5)}[r.IntN(3)]
		ops = append(ops, flinkrun.RangesQuery())
	} else {
		ops = append(ops, flinkrun.OperatorsQuery(), flinkrun.RangesQuery())
		for range 1 + r.IntN(4) {
			ops = append(ops, flinkrun.KeyQuery(r.key()))
		}
	}
	// The default maxParallelism, at Flink's bounds and where it steps
	// (85 → 128, 86 → 256; 21845 → 32768), and anywhere in 1 … 32768.
	// Flink refuses a parallelism outside 1 … 32768. The course's
	// DefaultMaxParallelism refuses one below 1 too, but answers 32768 for
	// one above (and the course lets maxParallelism exceed 32768): a
	// difference no course test pins, so no scenario asks it.
	defaults := []int{p, 1 + r.IntN(upper), 1 + r.IntN(200), []int{1, 85, 86, 21845, 21846, upper, 0, -1}[r.IntN(8)]}
	for _, n := range defaults {
		if n <= upper {
			ops = append(ops, flinkrun.DefaultMaxParallelismQuery(n))
		}
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return keyGroupsCase{flinkrun.KeyGroupsSpec{MaxParallelism: maxP, Parallelism: p}, ops}
}

// key returns a key for Flink to hash: one of keyPool's, or a random
// string of letters, digits and a few non-ASCII runes.
func (r *seeded) key() string {
	if r.IntN(2) == 0 {
		return keyPool[r.IntN(len(keyPool))]
	}
	runes := []rune("abcxyz0129-_ äöüßжя中🦀")
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}
