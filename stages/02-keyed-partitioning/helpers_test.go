//go:build lab || solution

package keyedpartitioning

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/flk-byo/course/kit"
)

// rec is the element type of the reduce tests: a key, the element's
// position in the input (Seq), a number to sum and a trail to concatenate.
type rec struct {
	Key   string
	Seq   int
	Val   int64
	Trail string
}

// sumVals adds the values: commutative, so it cannot see the order.
func sumVals(acc, v rec) rec {
	acc.Val += v.Val
	return acc
}

// concatTrails appends v's trail to acc's: not commutative, so any change
// in the order of a key's elements changes the result.
func concatTrails(acc, v rec) rec {
	acc.Trail += "," + v.Trail
	return acc
}

func recKey(r rec) string { return r.Key }

// randomRecs returns the elements of keys, each key with between minPer and
// maxPer elements, in a random interleaving; Seq is the position in the
// result and Trail is Seq as text.
func randomRecs(r *rand.Rand, keys []string, minPer, maxPer int) []rec {
	var out []rec
	for _, k := range keys {
		for range minPer + r.IntN(maxPer-minPer+1) {
			out = append(out, rec{Key: k, Val: 1 + r.Int64N(100)})
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	for i := range out {
		out[i].Seq = i
		out[i].Trail = strconv.Itoa(i)
	}
	return out
}

// keyNames returns n keys "<prefix>0" … "<prefix><n-1>".
func keyNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// stablePartition is what PartitionOf must return, computed from kit
// directly, so that a suite check never trusts the code under test.
func stablePartition(key any, n int) int {
	return int(kit.StableHash(key) % uint64(n))
}

// sequentialFold is the plain, single-goroutine per-key fold that every
// parallel run must equal: the first element of a key is its accumulator,
// fn folds in the rest in input order.
func sequentialFold[K comparable, T any](xs []T, key func(T) K, fn func(acc, v T) T) map[K]T {
	out := make(map[K]T)
	for _, x := range xs {
		k := key(x)
		if acc, ok := out[k]; ok {
			out[k] = fn(acc, x)
		} else {
			out[k] = x
		}
	}
	return out
}

// diffResults describes how got differs from want, key by key (missing,
// unexpected, different), at most eight lines; "" when they are equal.
func diffResults[K cmp.Ordered, T comparable](want, got map[K]T) string {
	var keys []K
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var lines []string
	for _, k := range keys {
		w, inWant := want[k]
		g, inGot := got[k]
		switch {
		case !inGot:
			lines = append(lines, fmt.Sprintf("  key %v: missing, want %+v", k, w))
		case !inWant:
			lines = append(lines, fmt.Sprintf("  key %v: not in the input, got %+v", k, g))
		case w != g:
			lines = append(lines, fmt.Sprintf("  key %v:\n      want %+v\n      got  %+v", k, w, g))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	differ, more := len(lines), ""
	if len(lines) > 8 {
		more = fmt.Sprintf("\n  … and %d more keys", len(lines)-8)
		lines = lines[:8]
	}
	return fmt.Sprintf("%d of %d keys differ (want %d keys, got %d):\n%s%s",
		differ, len(keys), len(want), len(got), strings.Join(lines, "\n"), more)
}

// goroutineID returns the id of the calling goroutine, read from the
// "goroutine N [" header that runtime.Stack writes. Tests use it only to
// tell goroutines apart; ids are never reused within a process.
func goroutineID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	s := strings.TrimPrefix(string(buf[:n]), "goroutine ")
	id, _, _ := strings.Cut(s, " ")
	v, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		panic("goroutineID: cannot parse the stack header " + strconv.Quote(string(buf[:n])))
	}
	return v
}

// callLog records, for each key, the goroutines on which the reduce
// function was called for it and how often. It is safe for concurrent use:
// the reduce function runs on the workers.
type callLog struct {
	mu    sync.Mutex
	calls map[string]map[uint64]int // key → goroutine id → calls
}

func newCallLog() *callLog { return &callLog{calls: map[string]map[uint64]int{}} }

// wrap returns fn, recording each call under the accumulator's key.
func (l *callLog) wrap(fn func(acc, v rec) rec) func(acc, v rec) rec {
	return func(acc, v rec) rec {
		id := goroutineID()
		l.mu.Lock()
		if l.calls[v.Key] == nil {
			l.calls[v.Key] = map[uint64]int{}
		}
		l.calls[v.Key][id]++
		l.mu.Unlock()
		return fn(acc, v)
	}
}

// goroutines returns the sorted ids of the goroutines key was reduced on.
func (l *callLog) goroutines(key string) []uint64 {
	var ids []uint64
	for id := range l.calls[key] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// total returns how many times fn was called for key.
func (l *callLog) total(key string) int {
	n := 0
	for _, c := range l.calls[key] {
		n += c
	}
	return n
}
