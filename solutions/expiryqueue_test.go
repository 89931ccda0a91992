//go:build solution

package solutions

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// queueOp is one step of a test of expiryQueue: push an ID with its expiry,
// forget every ID due at a watermark, or rebuild the queue as a restore does.
type queueOp struct {
	kind   string // "push", "advance" or "restore"
	id     string // push's
	expiry int64  // push's
	wm     int64  // advance's
}

func push(id string, expiry int64) queueOp { return queueOp{kind: "push", id: id, expiry: expiry} }
func advance(wm int64) queueOp             { return queueOp{kind: "advance", wm: wm} }
func restore() queueOp                     { return queueOp{kind: "restore"} }

// queueModel runs queueOps on an expiryQueue and its seen set, as a
// Processor uses them, and on a reference (a map of ID to expiry, sorted
// when compared), and checks after every step that the two agree.
type queueModel struct {
	t    *testing.T
	q    expiryQueue
	seen idSet
	want map[string]int64
	r    *rand.Rand // shuffles what a restore appends
}

func newQueueModel(t *testing.T, r *rand.Rand) *queueModel {
	return &queueModel{t: t, seen: newIDSet(0), want: make(map[string]int64), r: r}
}

// run applies op, step being its index, for the messages.
func (m *queueModel) run(step int, op queueOp) {
	m.t.Helper()
	switch op.kind {
	case "push":
		if !m.seen.add(op.id) {
			m.t.Fatalf("step %d: the test pushed %q twice", step, op.id)
		}
		m.q.push(op.expiry, op.id)
		m.want[op.id] = op.expiry
	case "advance":
		m.advance(step, op.wm)
	case "restore":
		// In the order of a snapshot, shuffled: init must not rely on it.
		entries := m.q.all()
		m.r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		m.q, m.seen = newExpiryQueue(len(entries)), newIDSet(len(entries))
		for _, x := range entries {
			m.seen.addBytes([]byte(x.id))
			m.q.appendBytes(x.expiry, []byte(x.id))
		}
		m.q.init()
	}
	m.check(step, op)
}

// advance forgets what is due at wm, as Processor.forgetExpired does, and
// checks that the queue offers the expiries in ascending order, those of
// the reference's IDs due at wm and no others.
func (m *queueModel) advance(step int, wm int64) {
	m.t.Helper()
	var due []int64
	for id, expiry := range m.want {
		if expiry <= wm {
			due = append(due, expiry)
			delete(m.want, id)
		}
	}
	slices.Sort(due)
	var got []int64
	for m.q.Len() > 0 && m.q.soonest() <= wm {
		got = append(got, m.q.soonest())
		m.q.forgetSoonest(m.seen)
	}
	if !slices.Equal(got, due) {
		m.t.Fatalf("step %d, advance to %d: the queue offered expiries %v, want %v (ascending, every one ≤ the watermark)", step, wm, got, due)
	}
}

// check compares the queue and the seen set with the reference: their
// sizes at every step, and the soonest expiry and every ID and expiry when
// the reference is small, at every 64th step and after a restore (advance
// has checked the expiries it forgot, the soonest first).
func (m *queueModel) check(step int, op queueOp) {
	m.t.Helper()
	if m.q.Len() != len(m.want) || m.seen.len() != len(m.want) {
		m.t.Fatalf("step %d (%+v): Len() = %d, seen.len() = %d, want %d", step, op, m.q.Len(), m.seen.len(), len(m.want))
	}
	if len(m.want) > 200 && step%64 != 0 && op.kind != "restore" {
		return
	}
	if len(m.want) > 0 {
		soonest := slices.Min(slices.Collect(maps.Values(m.want)))
		if got := m.q.soonest(); got != soonest {
			m.t.Fatalf("step %d (%+v): soonest() = %d, want %d", step, op, got, soonest)
		}
	}
	wantIDs := slices.Sorted(maps.Keys(m.want))
	if got := m.seen.sorted(); !slices.Equal(got, wantIDs) {
		m.t.Fatalf("step %d (%+v): seen holds %q, want %q", step, op, got, wantIDs)
	}
	all := m.q.all()
	slices.SortFunc(all, func(a, b idExpiry) int { return strings.Compare(a.id, b.id) })
	for i, x := range all {
		if x.id != wantIDs[i] || x.expiry != m.want[x.id] {
			m.t.Fatalf("step %d (%+v): all()[%d] by ID = (%q, %d), want (%q, %d)", step, op, i, x.id, x.expiry, wantIDs[i], m.want[wantIDs[i]])
		}
	}
}

// long15 and long16 are IDs at the tuned build's inline limit
// (maxInlineID, 15 bytes; the plain build has no such limit) and one past
// it, where the tuned queue holds the ID in its slab instead.
var (
	long15 = strings.Repeat("x", 15)
	long16 = strings.Repeat("y", 16)
)

// TestExpiryQueueCases certifies the expiry queue of both builds on cases
// chosen by hand: the forgetting rule watermark ≥ expiry, equal expiries
// (popped in any order, all at once), the int64 edges, IDs inline and long
// (the tuned queue's slab and its free list), and a restore's rebuild.
// That the slab reuses what it frees is TestExpiryQueueSlabStaysBounded's,
// in the tuned build only.
func TestExpiryQueueCases(t *testing.T) {
	defer suite.Recover(t)
	tests := []struct {
		name string
		ops  []queueOp
	}{
		{"empty", []queueOp{advance(math.MaxInt64), restore(), advance(math.MaxInt64)}},
		{"one", []queueOp{push("a", 5), advance(4), advance(5), advance(6)}},
		{"watermark reaches expiry", []queueOp{push("a", 10), push("b", 11), advance(10), advance(11)}},
		{"equal expiries", []queueOp{
			push("a", 7), push("b", 7), push("c", 3), push("d", 7), push("e", 7), push("f", 7),
			advance(6), push("g", 7), advance(7),
		}},
		{"descending pushes", []queueOp{
			push("e", 50), push("d", 40), push("c", 30), push("b", 20), push("a", 10),
			push("f", 5), advance(25), advance(45), advance(50),
		}},
		{"int64 edges", []queueOp{
			push("max", math.MaxInt64), push("min", math.MinInt64+1), push("zero", 0),
			push("max-1", math.MaxInt64-1), push("min+1", math.MinInt64+2), push("-1", -1),
			advance(math.MinInt64), advance(math.MinInt64 + 1), advance(-1), restore(),
			advance(math.MaxInt64 - 1), advance(math.MaxInt64),
		}},
		{"empty ID and the inline limit", []queueOp{
			push("", 3), push(long15, 2), push(long16, 1), push(long16+"z", 2),
			advance(1), restore(), advance(2), advance(3),
		}},
		{"long IDs forgotten and pushed again", []queueOp{
			push(long16+"1", 1), push(long16+"2", 2), push(long16+"3", 3),
			advance(2), push(long16+"4", 4), push(long16+"5", 1), push(long16+"1", 5),
			advance(1), restore(), push(long16+"2", 9), advance(math.MaxInt64),
		}},
		{"restore keeps the order", []queueOp{
			push("a", 30), push("b", 10), push("c", 20), push("d", 10), push("e", 40), push("f", 50),
			restore(), advance(10), advance(30), restore(), advance(math.MaxInt64),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newQueueModel(t, suite.Rand(t))
			for step, op := range tt.ops {
				m.run(step, op)
			}
		})
	}
}

// TestExpiryQueueAgainstReference certifies the expiry queue of both builds
// on seeded random runs, pushes and forgetting interleaved as a Processor
// makes them, with restores among them, against a sorted reference: expiries
// from a narrow range (many equal) and from the int64 edges, math.MinInt64+1
// to math.MaxInt64; watermarks at random, mostly in that narrow range, where
// they tie with expiries, and not always rising (the queue's rule holds at
// any watermark); IDs inline and long. Queues grow past
// several levels of the heap (4-ary in the tuned build: 1, 5, 21, 85, ...).
// The full comparison, a sort of every ID, runs on every step of a small
// queue and on every 64th (and every restore) of a large one.
func TestExpiryQueueAgainstReference(t *testing.T) {
	defer suite.Recover(t)
	r := suite.Rand(t)
	edges := []int64{math.MinInt64 + 1, math.MinInt64 + 2, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}
	for _, size := range []int{10, 100, 2000} {
		m := newQueueModel(t, r)
		next := 0 // IDs are never reused while remembered: the seen set would refuse them
		for step := range 10 * size {
			switch k := r.IntN(100); {
			case k < 60 || m.q.Len() < size/2:
				id := "e" + strconv.Itoa(next)
				next++
				if r.IntN(10) == 0 {
					id += "-a-long-one-past-15" // the tuned queue's slab
				}
				var expiry int64
				switch r.IntN(4) {
				case 0:
					expiry = edges[r.IntN(len(edges))]
				case 1:
					// Uniform over math.MinInt64+1 .. math.MaxInt64: the sum wraps into place.
					expiry = math.MinInt64 + 1 + int64(r.Uint64N(math.MaxUint64))
				default:
					expiry = int64(r.IntN(size)) // narrow: equal expiries
				}
				m.run(step, push(id, expiry))
			case k < 98:
				// The queue's rule holds at any watermark, rising or not: mostly
				// one in the narrow range (ties at the line), sometimes an edge.
				wm := int64(r.IntN(size+2)) - 1
				if r.IntN(20) == 0 {
					wm = edges[r.IntN(len(edges))]
				}
				m.run(step, advance(wm))
			default:
				m.run(step, restore())
			}
		}
		m.run(-1, advance(math.MaxInt64))
	}
}
