//go:build solution

package solutions

import (
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestIDSetSortsLikeStrings checks idSet against a plain set of strings:
// the same answers from add, and sorted giving the order slices.Sort gives,
// for IDs chosen to trip a radix sort: the empty ID, prefixes of each
// other, zero bytes (which the inline form pads with), bytes above 0x7f,
// and lengths either side of the tuned build's maxInlineID (15). In the
// plain build (a map of strings) it checks the same contract.
func TestIDSetSortsLikeStrings(t *testing.T) {
	fixed := []string{"", "a", "a\x00", "a\x00\x00", "a\x00b", "ab", "b", "\x00", "\xff", "\xff\xff",
		"123456789012345", "1234567890123456", "12345678901234\x00", "12345678901234\x00\x00"}
	r := suite.Rand(t)
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	random := make([]string, 3000)
	for i := range random {
		b := make([]byte, r.IntN(20)) // either side of the tuned build's 15-byte inline limit
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		random[i] = string(b)
	}

	for _, ids := range [][]string{nil, {"x"}, fixed, random} {
		set, want := newIDSet(0), make(map[string]bool)
		for _, id := range append(slices.Clone(ids), ids...) { // each twice
			if got, isNew := set.add(id), !want[id]; got != isNew {
				t.Fatalf("add(%q) = %v, want %v", id, got, isNew)
			}
			want[id] = true
		}
		if set.len() != len(want) {
			t.Errorf("len() = %d, want %d", set.len(), len(want))
		}
		wantSorted := make([]string, 0, len(want))
		for id := range want {
			wantSorted = append(wantSorted, id)
		}
		slices.Sort(wantSorted)
		if got := set.sorted(); !slices.Equal(got, wantSorted) {
			i := 0
			for i < min(len(got), len(wantSorted)) && got[i] == wantSorted[i] {
				i++
			}
			t.Errorf("sorted() of %d IDs gave %d, first different at index %d:\n got  %q\n want %q",
				len(want), len(got), i, got[i:min(i+3, len(got))], wantSorted[i:min(i+3, len(wantSorted))])
		}
	}
}
