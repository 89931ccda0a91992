//go:build solution

package solutions

import (
	"math/big"
	"testing"
)

// FuzzAssignWindow checks AssignWindow's contract on any timestamp within
// ±2^62 and any size from 1 to 2^62 (the domain where every window lies
// inside the int64 range): start ≤ ts < end, end − start == size, and start
// is ts rounded down, towards minus infinity, to a multiple of size, as
// computed independently with math/big. It never panics there.
//
// Inputs outside the domain are folded into it, not skipped, so that every
// fuzz input is a test.
func FuzzAssignWindow(f *testing.F) {
	const limit = int64(1) << 62
	for _, seed := range [][2]int64{
		{0, 1}, {1, 1}, {-1, 1},
		{0, 10}, {9, 10}, {10, 10}, {-1, 10}, {-10, 10}, {-11, 10},
		{123456789, 1000}, {-123456789, 1000},
		{limit - 1, limit}, {-(limit - 1), limit}, {limit - 1, 3}, {-(limit - 1), 3},
		{limit - 1, limit - 1}, {-(limit - 1), limit - 1},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, ts, size int64) {
		ts %= limit // (−2^62, 2^62); values inside are kept
		if size < 1 || size > limit {
			size = 1 + int64(uint64(size)%uint64(limit)) // [1, 2^62]
		}

		start, end := AssignWindow(ts, size)

		if !(start <= ts && ts < end) {
			t.Fatalf("AssignWindow(%d, %d) = [%d, %d), which does not contain %d", ts, size, start, end, ts)
		}
		if end-start != size {
			t.Fatalf("AssignWindow(%d, %d) = [%d, %d), %d long, want %d", ts, size, start, end, end-start, size)
		}
		if start%size != 0 {
			t.Fatalf("AssignWindow(%d, %d) = [%d, %d): the start is not a multiple of the size", ts, size, start, end)
		}
		// floor(ts / size) · size. big.Int's Div is Euclidean, which for a
		// positive divisor is the floor.
		q := new(big.Int).Div(big.NewInt(ts), big.NewInt(size))
		want := q.Mul(q, big.NewInt(size))
		if !want.IsInt64() || want.Int64() != start {
			t.Fatalf("AssignWindow(%d, %d) starts at %d, want %s (ts rounded down to a multiple of the size)", ts, size, start, want)
		}
	})
}
