package suite

import "fmt"

// HexHead describes an input for a failure message: its length and its
// first bytes in hex, or "input: nil".
func HexHead(b []byte) string {
	if b == nil {
		return "input: nil"
	}
	const show = 24
	if len(b) <= show {
		return fmt.Sprintf("input: %d bytes % x", len(b), b)
	}
	return fmt.Sprintf("input: %d bytes % x …", len(b), b[:show])
}

// ByteDiff describes where a and b first differ, with the bytes around it:
// what a learner needs to see when two snapshots should be equal.
func ByteDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	around := func(x []byte) string {
		lo, hi := max(0, i-8), min(len(x), i+8)
		return fmt.Sprintf("% x", x[lo:hi])
	}
	return fmt.Sprintf("lengths %d and %d; first difference at byte %d\n  first:  … %s …\n  second: … %s …",
		len(a), len(b), i, around(a), around(b))
}
