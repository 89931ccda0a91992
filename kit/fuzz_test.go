package kit_test

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/flk-byo/course/kit"
)

// pair is a composite key of two strings: the case where a careless
// encoding (plain concatenation) makes {"ab", "c"} and {"a", "bc"} equal.
type pair struct{ A, B string }

// mixed is a composite key of every supported kind.
type mixed struct {
	S string
	N int64
	U uint32
	B bool
	P [2]string
}

// FuzzStableHashEncoding checks the canonical key encoding behind
// kit.StableHash, on which every key's partition depends:
//   - it is injective: two composite keys encode equally exactly when
//     they are equal, in particular when only the boundary between two
//     string fields moves ({"ab","c"} vs {"a","bc"});
//   - it is prefix-free: no string's encoding is a proper prefix of
//     another's, which is what makes field-by-field encoding injective;
//   - it is deterministic and append-only: AppendStableKey(prefix, v)
//     keeps prefix and appends the same bytes as AppendStableKey(nil, v),
//     and StableHash of equal values is equal;
//   - kinds never collide: a string, a signed and an unsigned integer
//     with the same text encode differently, while int and int64 of one
//     value (and a named string type and string) encode the same.
func FuzzStableHashEncoding(f *testing.F) {
	f.Add("ab", "c", "a", "bc", int64(0), int64(1))
	f.Add("", "x", "x", "", int64(-1), int64(1))
	f.Add("a\x00", "b", "a", "\x00b", int64(math.MinInt64), int64(math.MaxInt64))
	f.Add("same", "same", "same", "same", int64(7), int64(7))
	f.Add("s\x00\x00\x00\x00\x00\x00\x00\x01b", "", "s", "b", int64(256), int64(1))
	f.Add("héllo", "wörld", "héllowö", "rld", int64(-128), int64(127))

	f.Fuzz(func(t *testing.T, a, b, c, d string, x, y int64) {
		enc := func(v any) []byte {
			t.Helper()
			out, err := kit.AppendStableKey(nil, v)
			if err != nil {
				t.Fatalf("AppendStableKey(%#v): %v", v, err)
			}
			return out
		}
		sameIffEqual := func(u, v any, equal bool) {
			t.Helper()
			if eu, ev := enc(u), enc(v); bytes.Equal(eu, ev) != equal {
				t.Fatalf("%#v and %#v (equal: %v) encode as\n% x\n% x", u, v, equal, eu, ev)
			}
		}

		p, q := pair{a, b}, pair{c, d}
		sameIffEqual(p, q, p == q)
		if b != "" {
			moved := pair{a + b[:1], b[1:]} // same concatenation, other boundary
			sameIffEqual(p, moved, false)
		}
		m1 := mixed{a, x, uint32(y), x < y, [2]string{b, c}}
		m2 := mixed{c, y, uint32(x), y < x, [2]string{d, a}}
		sameIffEqual(m1, m2, m1 == m2)

		if ea, ec := enc(a), enc(c); a != c && (bytes.HasPrefix(ea, ec) || bytes.HasPrefix(ec, ea)) {
			t.Fatalf("the encodings of %q and %q are not prefix-free:\n% x\n% x", a, c, ea, ec)
		}

		prefix := []byte(b)
		out, err := kit.AppendStableKey(bytes.Clone(prefix), p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out[:len(prefix)], prefix) || !bytes.Equal(out[len(prefix):], enc(p)) {
			t.Fatalf("AppendStableKey(%q, %#v) = % x: not the prefix followed by the value's encoding % x", prefix, p, out, enc(p))
		}
		if h1, h2 := kit.StableHash(p), kit.StableHash(pair{a, b}); h1 != h2 {
			t.Fatalf("StableHash(%#v) gave %#x, then %#x", p, h1, h2)
		}
		if h1, h2 := kit.StableHash(m1), kit.StableHash(m1); h1 != h2 {
			t.Fatalf("StableHash(%#v) gave %#x, then %#x", m1, h1, h2)
		}

		text := strconv.FormatInt(x, 10)
		sameIffEqual(text, x, false)
		sameIffEqual(x, uint64(x), false)
		sameIffEqual(a, a == "", false) // a string is never a bool
		if strconv.IntSize == 64 {
			sameIffEqual(int(x), x, true)
		}
		sameIffEqual(userID(a), a, true)
	})
}
