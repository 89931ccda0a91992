package solutions

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/flk-byo/course/kit"
)

// SessionConfig configures a SessionProcessor. Times are milliseconds of
// event time.
type SessionConfig struct {
	// Gap is the inactivity that ends a session: a session closes after Gap
	// of event time with no event of its key. It must be positive.
	Gap int64
	// AllowedLateness is how long a session keeps its state after it has
	// fired, to take late events (as in stage 03). It must not be negative.
	AllowedLateness int64
}

// SessionProcessor counts and sums events per key in event-time session
// windows, as Flink's EventTimeSessionWindows with a WindowOperator: each
// event opens [ts, ts+Gap), and the sessions of a key that intersect or
// touch merge into the interval that covers them. It follows upstream
// watermarks (AdvanceWatermark) and generates none: a session fires when
// the watermark reaches its end and expires AllowedLateness later.
//
// Its output is a changelog. When a session fires, it first retracts every
// result downstream holds for its events (a fired session it swallowed, or
// its own earlier result), in ascending Start order, each as the result
// with Count and Sum negated and IsUpdate true; then it emits itself, as an
// update if it retracted anything. So a consumer that sums Count and Sum
// per (Key, Start, End) and drops zero rows always holds exactly the
// sessions as last fired. Every slice it returns (results, Late) is new:
// the caller's to keep or reuse, never written to or read back. It is not
// safe for concurrent use.
type SessionProcessor struct {
	cfg SessionConfig

	// watermark is the highest AdvanceWatermark so far (math.MaxInt64 after
	// Flush); math.MinInt64 before any. Events never move it.
	watermark int64

	// seen holds every event ID processed, counted or late: a redelivery is
	// a no-op.
	seen idSet

	// byKey holds each key's unexpired sessions, sorted by start. They are
	// disjoint and never touch (touching sessions merge), so they are also
	// sorted by end, and the sessions an event merges with are a run.
	byKey map[string][]*session

	// byEnd holds every unexpired session, sorted by (end, start, key):
	// sessions fire and expire in end order, so the ones due are a run at the
	// front, found without scanning all state. (end, key) alone is unique; the
	// start makes the order the results' order, (End, Start, Key).
	byEnd []*session

	// late is the side output, in arrival order.
	late []kit.Event

	// reuse is empty in the plain build. The tuned build (-tags fast,
	// sessionstate_fast.go) keeps merged and expired sessions there, and
	// the session slices of keys that have none left, for new state to
	// reuse.
	reuse sessionReuse
}

// session is the state of one session of one key: its bounds, its running
// count and sum, and what downstream currently holds for its events.
type session struct {
	key        string
	start, end int64
	count, sum int64

	// published are the results downstream holds for the events of this
	// session, ascending: after the session fires, its own result; before,
	// the last results of the fired sessions it has swallowed by merging
	// (none if it swallowed none). Its next firing retracts every one of
	// them, then emits the session itself, so that summing Count and Sum
	// per (Key, Start, End) downstream always leaves exactly the sessions as
	// last fired.
	published []span
}

// span is a result as downstream holds it, without its key.
type span struct {
	start, end, count, sum int64
}

// NewSessionProcessor returns an empty SessionProcessor for cfg, or an error
// naming the invalid field: Gap ≤ 0 or AllowedLateness < 0.
func NewSessionProcessor(cfg SessionConfig) (*SessionProcessor, error) {
	switch {
	case cfg.Gap <= 0:
		return nil, fmt.Errorf("sessions: Gap must be positive, got %d", cfg.Gap)
	case cfg.AllowedLateness < 0:
		return nil, fmt.Errorf("sessions: AllowedLateness must not be negative, got %d", cfg.AllowedLateness)
	}
	return &SessionProcessor{
		cfg:       cfg,
		watermark: math.MinInt64,
		seen:      newIDSet(0),
		byKey:     make(map[string][]*session),
	}, nil
}

// Process adds e to its key's sessions and returns what that emits: nothing
// while the session it lands in is not due (its end above the watermark);
// otherwise, at once, the retractions of what downstream holds for that
// session and then the session's new result (see fire). A redelivered ID is
// ignored; an event whose merged session would be expired goes to Late.
func (s *SessionProcessor) Process(e kit.Event) []kit.Result {
	// Dedup first: a redelivery has no effect, not even on the side output.
	if !s.seen.add(e.ID) {
		return nil
	}

	// The event's own window, merged with every session of its key that it
	// intersects or touches: Flink's TimeWindow.intersects is inclusive at
	// both ends, so [10,20) and [20,30) merge. The key's sessions are sorted
	// and disjoint, so these are the run [i, j): from the first that ends at
	// or after ts, to the last that starts at or before ts+Gap.
	start, end := e.TS, plusSaturating(e.TS, s.cfg.Gap)
	sessions := s.byKey[e.Key]
	i, _ := slices.BinarySearchFunc(sessions, start, func(x *session, ts int64) int { return cmp.Compare(x.end, ts) })
	j := i
	for j < len(sessions) && sessions[j].start <= end {
		j++
	}
	if i < j {
		start, end = min(start, sessions[i].start), max(end, sessions[j-1].end)
	}

	// Lateness is judged on the merged session, as Flink's WindowOperator
	// does (isWindowLate of the window MergingWindowSet.addWindow returns):
	// an event whose own window expired long ago is still on time if it
	// joins a session that has not expired. Every session in state is
	// unexpired, so only an event that merges with none can be late.
	if s.watermark >= s.cleanupTime(end) {
		s.late = append(s.late, e)
		return nil
	}

	merged := s.newSession(e.Key, start, end)
	merged.count, merged.sum = 1, e.Value
	for _, old := range sessions[i:j] {
		merged.count += old.count
		merged.sum += old.sum
		// The parts are in start order and their results disjoint, so the
		// merged session's published results stay in start order.
		merged.published = append(merged.published, old.published...)
		s.unindex(old)
		s.release(old)
	}
	if sessions == nil {
		sessions = s.newSessionList()
	}
	s.byKey[e.Key] = slices.Replace(sessions, i, j, merged)
	s.index(merged)

	// A session whose end the watermark has passed has fired: its changed
	// result goes out now (a late firing). Otherwise it fires when the
	// watermark reaches its end, and retracts then what it has swallowed:
	// downstream keeps the old sessions until the new one replaces them.
	if merged.end <= s.watermark {
		return merged.fire(nil)
	}
	return nil
}

// AdvanceWatermark raises the watermark to wm, fires every session whose end
// it reaches and drops every session that expires. A wm at or below the
// current watermark changes nothing: watermarks never go back. The firing
// sessions come in (End, Start, Key) order (byEnd's order: sessions that
// end together by Start before Key), each right after its own
// retractions: not the order kit.SortResults would give the whole call,
// which could move a retraction away from the session that replaces it.
func (s *SessionProcessor) AdvanceWatermark(wm int64) []kit.Result {
	if wm <= s.watermark {
		return nil
	}
	old := s.watermark
	s.watermark = wm

	// The sessions to fire are those with old < end ≤ wm: a run of byEnd.
	// Those with end ≤ old fired already (and again at once on every late
	// event), so they are only waiting to expire.
	i, _ := slices.BinarySearchFunc(s.byEnd, old+1, func(x *session, end int64) int { return cmp.Compare(x.end, end) })
	due := s.byEnd[i:]
	fire := 0
	for fire < len(due) && due[fire].end <= wm {
		fire++
	}
	var out []kit.Result
	if fire > 0 {
		// One result per session, and retractions for the few that
		// replace something: room for the first, at least, at once.
		out = make([]kit.Result, 0, fire)
	}
	for _, x := range due[:fire] {
		out = x.fire(out)
	}

	// Expire after firing: with AllowedLateness 0 a session fires and
	// expires in the same step, and still emits. Cleanup times grow with
	// end, so the expired sessions are a prefix of byEnd, and for each key
	// its first sessions: a key's sessions are in end order too.
	n := 0
	for n < len(s.byEnd) && s.cleanupTime(s.byEnd[n].end) <= wm {
		x := s.byEnd[n]
		// x is its key's first session.
		rest := slices.Delete(s.byKey[x.key], 0, 1)
		if len(rest) > 0 {
			s.byKey[x.key] = rest
		} else {
			delete(s.byKey, x.key)
			s.releaseList(rest)
		}
		s.release(x)
		n++
	}
	clear(s.byEnd[:n])
	s.byEnd = s.byEnd[n:] // slicing off the front moves no open session
	return out
}

// Watermark returns the current watermark: math.MinInt64 before the first
// AdvanceWatermark, math.MaxInt64 after Flush.
func (s *SessionProcessor) Watermark() int64 {
	return s.watermark
}

// Flush ends a bounded input: it fires every session that has not fired,
// as a final watermark of math.MaxInt64 would, and leaves the watermark
// there, so every later event goes to Late.
func (s *SessionProcessor) Flush() []kit.Result {
	return s.AdvanceWatermark(math.MaxInt64)
}

// Late returns every event sent to the side output so far, in arrival
// order. The slice is the caller's.
func (s *SessionProcessor) Late() []kit.Event {
	return slices.Clone(s.late)
}

// fire appends the session's firing to out: a retraction of every result
// downstream holds for its events (in start order), then its own result,
// which is an update exactly when it replaces something. The retractions
// come first so that a downstream that keeps one row per (Key, Start, End)
// deletes before it inserts, even when the old and the new session have
// the same bounds (a late event inside a fired session).
func (x *session) fire(out []kit.Result) []kit.Result {
	for _, p := range x.published {
		out = append(out, kit.Result{Key: x.key, Start: p.start, End: p.end, Count: -p.count, Sum: -p.sum, IsUpdate: true})
	}
	out = append(out, kit.Result{Key: x.key, Start: x.start, End: x.end, Count: x.count, Sum: x.sum, IsUpdate: len(x.published) > 0})
	x.published = append(x.published[:0], span{x.start, x.end, x.count, x.sum})
	return out
}

// compareByEnd orders sessions as byEnd holds them: by (end, start, key).
// (Not cmp.Or, which would compare the keys every time: its arguments are
// all evaluated before it runs.)
func compareByEnd(a, b *session) int {
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

// index adds x to byEnd.
func (s *SessionProcessor) index(x *session) {
	i, _ := slices.BinarySearchFunc(s.byEnd, x, compareByEnd)
	s.byEnd = slices.Insert(s.byEnd, i, x)
}

// unindex removes x from byEnd.
func (s *SessionProcessor) unindex(x *session) {
	if i, found := slices.BinarySearchFunc(s.byEnd, x, compareByEnd); found {
		s.byEnd = slices.Delete(s.byEnd, i, i+1)
	}
}

// cleanupTime returns the watermark at which a session ending at end
// expires: end + AllowedLateness, saturating at math.MaxInt64.
func (s *SessionProcessor) cleanupTime(end int64) int64 {
	return plusSaturating(end, s.cfg.AllowedLateness)
}

// plusSaturating returns a + b for b ≥ 0, or math.MaxInt64 if that would
// overflow: a session opened near the end of the int64 range ends there.
func plusSaturating(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// A session snapshot has stage 04's header with its own magic, "FLSW"
// (FLink Session Windows), so that neither kind of snapshot restores as the
// other:
//
//	offset  size  field
//	0       4     magic "FLSW"
//	4       1     format version: 1
//	5       8     body length in bytes, uint64 big-endian
//	13      4     CRC-32C (Castagnoli) of the body, uint32 big-endian
//	17      …     body
//
// The body, with stage 04's uvarint, varint and string encodings:
//
//	config      varint Gap, varint AllowedLateness
//	watermark   varint
//	seen IDs    uvarint n, then n strings in ascending byte order
//	keys        uvarint k, then k keys in ascending byte order, each:
//	              string key, uvarint m, then m sessions in ascending start order, each:
//	                varint start, varint end, uvarint count, varint sum,
//	                uvarint p, then p published results in ascending start order, each:
//	                  varint start, varint end, uvarint count, varint sum
//
// The published results are state: without them a restored processor could
// not retract what downstream holds when a late event merges sessions.
const sessionSnapshotMagic = "FLSW"

// sessionSnapshot is a SessionProcessor's kind of snapshot.
var sessionSnapshot = snapshotKind{magic: sessionSnapshotMagic, pkg: "sessions", what: "session snapshot"}

// Snapshot returns all of s's state in the format above: the config, the
// watermark, every seen ID and every unexpired session with what downstream
// holds for it. The side output is not state. Equal state gives equal
// bytes; the bytes are the caller's. The error is always nil here.
func (s *SessionProcessor) Snapshot() ([]byte, error) {
	buf := make([]byte, headerLen, 256)
	buf = binary.AppendVarint(buf, s.cfg.Gap)
	buf = binary.AppendVarint(buf, s.cfg.AllowedLateness)
	buf = binary.AppendVarint(buf, s.watermark)

	buf = appendSeenIDs(buf, s.seen)

	keys := make([]string, 0, len(s.byKey))
	for k := range s.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = binary.AppendUvarint(buf, uint64(len(keys)))
	for _, k := range keys {
		buf = appendString(buf, k)
		buf = binary.AppendUvarint(buf, uint64(len(s.byKey[k])))
		for _, x := range s.byKey[k] {
			buf = appendSpan(buf, span{x.start, x.end, x.count, x.sum})
			buf = binary.AppendUvarint(buf, uint64(len(x.published)))
			for _, p := range x.published {
				buf = appendSpan(buf, p)
			}
		}
	}

	return sessionSnapshot.seal(buf), nil
}

// appendSpan appends varint start, varint end, uvarint count, varint sum.
func appendSpan(buf []byte, p span) []byte {
	buf = binary.AppendVarint(buf, p.start)
	buf = binary.AppendVarint(buf, p.end)
	buf = binary.AppendUvarint(buf, uint64(p.count))
	return binary.AppendVarint(buf, p.sum)
}

// RestoreSessionProcessor returns a SessionProcessor with the state saved in
// snapshot by Snapshot, ready to continue where that one was, with an empty
// side output. It checks the magic, then the version, then the length and
// checksum, then decodes and validates every field. Any invalid input gives
// a nil SessionProcessor and an error, never a panic; the processor shares
// no memory with snapshot.
func RestoreSessionProcessor(snapshot []byte) (*SessionProcessor, error) {
	v, err := sessionSnapshot.version(snapshot)
	if err != nil {
		return nil, err
	}
	switch v {
	case 1:
		body, err := sessionSnapshot.verifiedBody(snapshot) // stage 04's framing: length and CRC
		if err != nil {
			return nil, err
		}
		s, err := decodeSessionsV1(body)
		if err != nil {
			return nil, sessionSnapshot.corrupt(err)
		}
		return s, nil
	default:
		return nil, sessionSnapshot.unsupported(v)
	}
}

// decodeSessionsV1 decodes a verified version-1 body. It accepts only what
// Snapshot writes: canonical order, no expired session, sessions that do
// not touch, a fired session holding exactly its own result downstream.
func decodeSessionsV1(body []byte) (*SessionProcessor, error) {
	r := &reader{buf: body}
	cfg := SessionConfig{Gap: r.varint(), AllowedLateness: r.varint()}
	watermark := r.varint()
	if r.err != nil {
		return nil, r.err
	}
	s, err := NewSessionProcessor(cfg)
	if err != nil {
		return nil, fmt.Errorf("invalid config: %w", err)
	}
	s.watermark = watermark

	if s.seen, err = r.seenIDs(); err != nil {
		return nil, err
	}

	n := r.count()
	prevKey := ""
	for i := range n {
		key := r.key()
		m := r.count()
		if r.err != nil {
			return nil, r.err
		}
		if i > 0 && key <= prevKey {
			return nil, fmt.Errorf("key %s is not after %s", kit.ShowString(key), kit.ShowString(prevKey))
		}
		if m == 0 {
			return nil, fmt.Errorf("key %s has no sessions", kit.ShowString(key))
		}
		sessions := make([]*session, 0, m)
		for range m {
			x, err := s.readSession(r, key)
			if err != nil {
				return nil, err
			}
			if k := len(sessions); k > 0 && x.start <= sessions[k-1].end {
				return nil, fmt.Errorf("session [%d,%d) of key %s does not start after the previous one ends", x.start, x.end, kit.ShowString(key))
			}
			sessions = append(sessions, x)
			s.index(x)
		}
		s.byKey[key] = sessions
		prevKey = key
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.buf) > 0 {
		return nil, fmt.Errorf("%d unread bytes after the last session", len(r.buf))
	}
	return s, nil
}

// readSession reads one session of key and checks it against s's config and
// watermark.
func (s *SessionProcessor) readSession(r *reader, key string) (*session, error) {
	v, err := readSpan(r)
	if err != nil {
		return nil, err
	}
	x := &session{key: key, start: v.start, end: v.end, count: v.count, sum: v.sum}
	switch {
	case x.end < plusSaturating(x.start, s.cfg.Gap):
		return nil, fmt.Errorf("session [%d,%d) of key %s is shorter than the gap %d", x.start, x.end, kit.ShowString(key), s.cfg.Gap)
	case s.watermark >= s.cleanupTime(x.end):
		return nil, fmt.Errorf("session [%d,%d) of key %s had expired at watermark %d", x.start, x.end, kit.ShowString(key), s.watermark)
	}
	p := r.count()
	if r.err != nil {
		return nil, r.err
	}
	for range p {
		v, err := readSpan(r)
		if err != nil {
			return nil, err
		}
		if v.start < x.start || v.end > x.end || (len(x.published) > 0 && v.start <= x.published[len(x.published)-1].end) {
			return nil, fmt.Errorf("published result [%d,%d) of key %s is out of place in session [%d,%d)", v.start, v.end, kit.ShowString(key), x.start, x.end)
		}
		x.published = append(x.published, v)
	}
	if x.end <= s.watermark && !slices.Equal(x.published, []span{{x.start, x.end, x.count, x.sum}}) {
		return nil, fmt.Errorf("fired session [%d,%d) of key %s does not hold its own result downstream", x.start, x.end, kit.ShowString(key))
	}
	return x, nil
}

// readSpan reads what appendSpan wrote; a count must be positive and the
// span not empty, but for the saturated [MaxInt64, MaxInt64).
func readSpan(r *reader) (span, error) {
	v := span{start: r.varint(), end: r.varint()}
	count := r.uvarint()
	v.sum = r.varint()
	switch {
	case r.err != nil:
		return span{}, r.err
	case count == 0 || count > math.MaxInt64:
		return span{}, fmt.Errorf("[%d,%d) has count %d", v.start, v.end, count)
	case v.end < v.start || v.end == v.start && v.end != math.MaxInt64:
		// [MaxInt64, MaxInt64) is the one empty span a processor writes: the
		// session of an event at math.MaxInt64, whose end saturates there.
		return span{}, fmt.Errorf("[%d,%d) is empty", v.start, v.end)
	}
	v.count = int64(count)
	return v, nil
}
