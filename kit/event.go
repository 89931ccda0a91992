package kit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Event is one input record. Times are int64 milliseconds of event time.
//
// ID identifies the record for deduplication: the same ID delivered twice is
// the same record delivered twice (at-least-once input), whatever the other
// fields say.
type Event struct {
	ID    string
	Key   string
	TS    int64
	Value int64
}

// String renders an event compactly for failure messages, e.g. "e7 a@1500=3".
func (e Event) String() string {
	return fmt.Sprintf("%s %s@%d=%d", ShowString(e.ID), ShowString(e.Key), e.TS, e.Value)
}

// showMax is how many bytes of a key or ID ShowString shows.
const showMax = 24

// ShowString renders a key or an ID for a failure message: as it is when
// it is short, printable UTF-8 without spaces; otherwise Go-quoted, with
// at most 24 bytes shown and the length said, so that an empty ID, a NUL
// byte, invalid UTF-8 (or U+FFFD, what a lossy conversion leaves of it) or
// a 70 000-byte key (see AwkwardStrings) is both visible and short: "", "\x00", "\xff\xfe", "iiiiiiiiiiiiiiiiiiiiiiii"…(70000 bytes).
func ShowString(s string) string {
	plain := s != "" && len(s) <= showMax && utf8.ValidString(s)
	for _, r := range s {
		if !plain || !unicode.IsPrint(r) || unicode.IsSpace(r) || r == utf8.RuneError {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	if len(s) <= showMax {
		return strconv.QuoteToASCII(s)
	}
	return fmt.Sprintf("%s…(%d bytes)", strconv.QuoteToASCII(s[:showMax]), len(s))
}

// Result is what a window emits for one key: the count and sum of the
// values of its events. Start is inclusive and End exclusive, as in
// Flink's TimeWindow. IsUpdate marks a re-emission that corrects an
// earlier result of the same window and key (stage 03); the first
// emission of a window is never an update.
type Result struct {
	Key        string
	Start, End int64
	Count, Sum int64
	IsUpdate   bool
}

// String renders a result compactly, e.g. "a [0,10) count=2 sum=5" with
// " (update)" appended for a correction.
func (r Result) String() string {
	s := fmt.Sprintf("%s [%d,%d) count=%d sum=%d", ShowString(r.Key), r.Start, r.End, r.Count, r.Sum)
	if r.IsUpdate {
		s += " (update)"
	}
	return s
}

// CompareResults orders results by (End, Start, Key), the order in which
// the results of one call must be returned. Use it with slices.SortFunc.
func CompareResults(a, b Result) int {
	return cmp.Or(
		cmp.Compare(a.End, b.End),
		cmp.Compare(a.Start, b.Start),
		cmp.Compare(a.Key, b.Key),
	)
}

// SortResults sorts results in place by (End, Start, Key) and returns them.
// The sort is stable, so a window's first result stays before its updates.
func SortResults(rs []Result) []Result {
	slices.SortStableFunc(rs, CompareResults)
	return rs
}
