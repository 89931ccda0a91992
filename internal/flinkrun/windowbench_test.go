package flinkrun

import (
	"math"
	"testing"
)

// digestCases are known answers of HashResult, which the runner's
// WindowBenchTest.digestMatchesTheGoSidesKnownAnswers pins for its
// Digest.hash too: the Go and the Java digests of the same results must
// agree, or the benchmark's check that Flink and the reference produced
// the same results means nothing. They
// cover an ASCII key, the empty key with both int64 extremes and an
// update, and a Cyrillic key with an emoji (non-ASCII UTF-8).
var digestCases = []struct {
	r    Result
	hash uint64
}{
	{Result{Key: "a", Start: 0, End: 1000, Count: 1, Sum: 5}, 0x4d4933c8e4c02433},
	{Result{Key: "", Start: math.MinInt64, End: math.MaxInt64, Count: -2, Sum: -7, Update: true}, 0x2f7b54663da3a2b2},
	{Result{Key: "ключ 🙂", Start: -1000, End: 0, Count: 3, Sum: math.MaxInt64}, 0xbd48b320b41fa44b},
}

// TestDigestKnownAnswers certifies HashResult's known answers, shared with
// the Java side, and that a Digest is their sum modulo 2^64 with the
// counts and sums added up, whatever the order of the results.
func TestDigestKnownAnswers(t *testing.T) {
	var fwd, rev Digest
	for i, c := range digestCases {
		if got := HashResult(c.r); got != c.hash {
			t.Errorf("HashResult(%+v) = %#016x, want %#016x", c.r, got, c.hash)
		}
		fwd.Add(c.r)
		rev.Add(digestCases[len(digestCases)-1-i].r)
	}
	want := Digest{Results: 3, Hash: 0x3a0d3b4fd6836b30, Counted: 2, Summed: math.MaxInt64 - 2}
	if fwd != want {
		t.Errorf("the digest of the cases is %v, want %v", fwd, want)
	}
	if rev != fwd {
		t.Errorf("the digest depends on the order: %v in reverse, %v in order", rev, fwd)
	}
}
