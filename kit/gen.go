package kit

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// NewRand returns a deterministic random source for seed. Tests print the
// seed they used so that a failure can be replayed exactly.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// RandomEvents returns n events with IDs "e0" … "e<n-1>", keys drawn from
// keys, timestamps drawn uniformly from [from, from+span) and values from
// [1, 10], sorted by timestamp (ties in ID order): an in-order stream that
// BoundedShuffle and WithDuplicates can then disorder.
func RandomEvents(r *rand.Rand, n int, keys []string, from, span int64) []Event {
	if len(keys) == 0 || span <= 0 {
		panic(fmt.Sprintf("kit.RandomEvents: need at least one key and a positive span (keys=%d span=%d)", len(keys), span))
	}
	// Draw every event's fields in ID order, then lay the events out in
	// timestamp order once: event i is "e<i>" wherever it lands.
	type draw struct {
		key       string
		ts, value int64
	}
	draws := make([]draw, n)
	for i := range draws {
		draws[i] = draw{key: keys[r.IntN(len(keys))], ts: from + r.Int64N(span), value: 1 + r.Int64N(10)}
	}
	evs := make([]Event, n)
	for k, i := range stableOrder(n, func(i int) int64 { return draws[i].ts }) {
		d := draws[i]
		evs[k] = Event{ID: "e" + strconv.Itoa(i), Key: d.key, TS: d.ts, Value: d.value}
	}
	return evs
}

// BoundedShuffle returns a copy of events in a random delivery order whose
// disorder is bounded by bound: whenever an event f is delivered before an
// event e, f.TS <= e.TS + bound. So when e arrives, the largest timestamp
// seen so far is at most e.TS + bound, and a watermark of max − delay with
// delay >= bound is never past e.TS: no event becomes late by the shuffle.
//
// It works by giving each event a random deadline in [TS, TS+bound] and
// delivering in deadline order: if f comes before e then
// f.TS <= deadline(f) <= deadline(e) <= e.TS + bound.
func BoundedShuffle(r *rand.Rand, events []Event, bound int64) []Event {
	deadlines := make([]int64, len(events))
	for i, e := range events {
		deadlines[i] = e.TS + r.Int64N(bound+1)
	}
	// Shuffle first so that equal deadlines are delivered in a random order
	// too: pos[j] is the event in place j after the shuffle.
	pos := make([]int, len(events))
	for j := range pos {
		pos[j] = j
	}
	r.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
	out := make([]Event, len(events))
	for k, j := range stableOrder(len(pos), func(j int) int64 { return deadlines[pos[j]] }) {
		out[k] = events[pos[j]]
	}
	return out
}

// stableOrder returns the indices 0 … n−1 ordered by key, equal keys in
// index order: the permutation a stable sort by key would make. Sorting
// (key, index) pairs, which are all distinct, gives it with an unstable
// sort, many times faster on a million events than a stable sort moving
// whole events (slices.SortStableFunc's merges move each element
// O(log n) times): the benchmark stream is built in every test binary.
// When the keys' range and the indices fit in 64 bits together, as every
// timestamp range but the int64 extremes' does, each pair is packed into
// one uint64, (key − min) above the index, whose plain order is the pairs'
// order: sorting those with slices.Sort took the benchmark stream's two
// sorts from about 0.67 s to 0.27 s on a 2-core machine, against a
// comparison function over (key, index) structs.
func stableOrder(n int, key func(i int) int64) []int {
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = key(i)
	}
	order := make([]int, n)
	if n == 0 {
		return order
	}
	lo, hi := slices.Min(keys), slices.Max(keys)
	idxBits := bits.Len(uint(n - 1))
	if bits.Len64(uint64(hi)-uint64(lo))+idxBits <= 64 {
		packed := make([]uint64, n)
		for i, k := range keys {
			packed[i] = (uint64(k)-uint64(lo))<<idxBits | uint64(i)
		}
		slices.Sort(packed)
		for k, p := range packed {
			order[k] = int(p & (1<<idxBits - 1))
		}
		return order
	}
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(keys[a], keys[b]), cmp.Compare(a, b))
	})
	return order
}

// WithDuplicates returns a copy of events in which each event, with
// probability rate, is delivered a second time at a random later position:
// an at-least-once source replaying after a failure. A duplicate may land
// long after its original, when its window has closed; a correct processor
// recognises it by ID and ignores it.
func WithDuplicates(r *rand.Rand, events []Event, rate float64) []Event {
	out := slices.Clone(events)
	for _, e := range events {
		if r.Float64() >= rate {
			continue
		}
		at := slices.IndexFunc(out, func(x Event) bool { return x.ID == e.ID })
		pos := at + 1 + r.IntN(len(out)-at)
		out = slices.Insert(out, pos, e)
	}
	return out
}

// AwkwardStrings returns keys and IDs that break naive encodings, in this
// order: the empty string; one byte; a NUL byte; invalid UTF-8; 255 and
// 256 bytes (either side of a one-byte length, 0xff); 70 000 bytes (past
// 16-bit lengths and 64 KiB buffers); a string that is a prefix of the next
// one; and bytes above 0x7f that sort after every ASCII byte. Every call
// returns new slices of the same strings.
func AwkwardStrings() []string {
	return []string{
		"",
		"k",
		"\x00",
		"\xff\xfe",
		strings.Repeat("p", 255),
		strings.Repeat("p", 256),
		strings.Repeat("i", 70_000),
		"pre",
		"pre\x00fix",
		"\xc3\xa9t\xc3\xa9",
	}
}

// EdgeValues are event values that a lossy encoding of integers gets wrong:
// the int64 extremes and their neighbours, values above 2⁵³ (where a
// float64, as encoding/json decodes into interface{}, loses digits), 0
// and -1. Sums over them wrap around as Go's int64 arithmetic does, the same
// in every correct implementation.
var EdgeValues = []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1<<53 + 1, -(1<<53 + 1), 0, -1}

// WithAwkwardFields returns a copy of events in which, with probability
// rate each, a key is renamed to one of AwkwardStrings (every event of that
// key alike, distinct keys to distinct names), an ID is renamed to an
// awkward one (every delivery of that ID alike, distinct IDs to distinct
// names, so duplicates stay duplicates), and a value is replaced by one of
// EdgeValues. Timestamps are left alone: it changes what state holds, not
// which windows exist. Keys and IDs of events with equal ID stay equal.
func WithAwkwardFields(r *rand.Rand, events []Event, rate float64) []Event {
	awkward := AwkwardStrings()
	keys, ids := map[string]string{}, map[string]string{}
	usedKey, usedID := map[string]bool{}, map[string]bool{}
	for _, e := range events {
		usedKey[e.Key], usedID[e.ID] = true, true
	}
	// rename picks a new name for old: an unused awkward string, or one
	// made unique by the old name, never a name already in the stream.
	rename := func(old string, used map[string]bool) string {
		for range 3 {
			if name := awkward[r.IntN(len(awkward))]; !used[name] {
				used[name] = true
				return name
			}
		}
		for name := awkward[r.IntN(len(awkward))] + old; ; name += "\x00" {
			if !used[name] {
				used[name] = true
				return name
			}
		}
	}
	values := map[string]int64{}
	out := slices.Clone(events)
	for i, e := range out {
		k, ok := keys[e.Key]
		if !ok {
			k = e.Key
			if r.Float64() < rate {
				k = rename(e.Key, usedKey)
			}
			keys[e.Key] = k
		}
		id, ok := ids[e.ID]
		if !ok {
			id = e.ID
			if r.Float64() < rate {
				id = rename(e.ID, usedID)
			}
			ids[e.ID] = id
			v := e.Value
			if r.Float64() < rate {
				v = EdgeValues[r.IntN(len(EdgeValues))]
			}
			values[e.ID] = v
		}
		out[i].Key, out[i].ID, out[i].Value = k, id, values[e.ID]
	}
	return out
}

// The stream of the course's tumbling-window benchmarks (de bench, and
// BenchmarkTumbling in solutions/bench_test.go), and the config they run
// it with: windows of BenchmarkWindow ms, WatermarkDelay BenchmarkDisorder.
const (
	BenchmarkWindow   = int64(1_000) // 1 s tumbling windows: 10 000 of them
	BenchmarkDisorder = int64(5_000) // the stream's disorder bound, in ms
)

// BenchmarkStream returns the stream the course's benchmarks measure:
// BenchmarkStreamOf(1_000_000), a million events over 10 000 keys with
// timestamps over 10 000 s, from a fixed seed, so that every run, on every
// machine, measures the same events. Almost every (key, window) pair is
// distinct, so a tumbling processor emits about one result per event.
func BenchmarkStream() []Event { return BenchmarkStreamOf(1_000_000) }

// BenchmarkStreamOf returns the benchmark stream at n events: 10 000
// keys, 100 events a second of event time over n/100 seconds, delivered
// with disorder bounded by BenchmarkDisorder, from BenchmarkStream's seed.
// The open state is the same at every length; only what a processor
// remembers of the past grows with n, which is what the benchmarks that
// compare lengths measure.
//
// The IDs are allocated in delivery order, as a decoder reading events off
// a wire would allocate them. (RandomEvents allocates ID i for the i-th
// event it draws, then sorts by timestamp: consecutive deliveries would
// read their IDs from random places in 8 MB of heap, a cache miss per
// event that no real source causes and only a processor that reads IDs,
// to dedup, would pay.)
func BenchmarkStreamOf(n int) []Event {
	r := NewRand(0x5eed_0007)
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	events := BoundedShuffle(r, RandomEvents(r, n, keys, 0, int64(n)*10), BenchmarkDisorder)
	for i := range events {
		events[i].ID = strings.Clone(events[i].ID)
	}
	return events
}
