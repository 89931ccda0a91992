//go:build lab || solution

package spillingstate

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// unkeyedSlack is how many bytes the state under 0xFF 0xFF may exceed
// that of a processor that has seen one window come and go, at the same
// watermark: room for a few numbers of the processor's own (an event
// count, the largest timestamp) whose encoding grows with their value. A
// phase of expiryWindows windows that leaves one byte each behind is
// larger.
const unkeyedSlack = 32

// expiryWindows is how many windows each phase of the expiry test opens.
const expiryWindows = 40

// expiryIDGroups is how many key groups the expiry test's IDs use: no
// event key is in them, so every key in any other key group is window
// state.
const expiryIDGroups = 8

// expiryCase is one timeline of TestExpiredWindowsLeaveTheBackend: a
// config, the first window start and the number of phases, each phase
// expiryWindows windows that all expire before the next phase begins.
type expiryCase struct {
	name   string
	cfg    Config
	first  int64 // a timestamp in the first window of the first phase
	phases int
}

// expiryCases are the timelines: no lateness (a window expires as it
// fires), corrections within a lateness, windows across zero and near
// math.MinInt64 (negative timestamps, a watermark that saturates), windows
// near math.MaxInt64 whose cleanup time saturates and others beside them
// whose cleanup time does not, and a lateness of math.MaxInt64 (windows
// ending below zero expire just below math.MaxInt64, the others only at
// Flush).
var expiryCases = []expiryCase{
	{"no lateness", Config{WindowSize: 10, WatermarkDelay: 5}, 0, 3},
	{"corrections, across zero", Config{WindowSize: 10, WatermarkDelay: 3, AllowedLateness: 25}, -400, 3},
	{"long lateness", Config{WindowSize: 7, WatermarkDelay: 20, AllowedLateness: 60}, 100, 2},
	{"near MinInt64", Config{WindowSize: 10, WatermarkDelay: 50, AllowedLateness: 30}, math.MinInt64 + 20, 2},
	{"cleanup saturates near MaxInt64", Config{WindowSize: 10, WatermarkDelay: 2, AllowedLateness: 1000}, math.MaxInt64 - 1300, 1},
	{"lateness MaxInt64", Config{WindowSize: 10, WatermarkDelay: 3, AllowedLateness: math.MaxInt64}, -200, 1},
}

// expiryWindow is one window of an expiry timeline: where it is, the key
// group all of its keys belong to, and the keys.
type expiryWindow struct {
	start, end int64
	group      int
	keys       []string
	counted    bool // the oracle's: an event of it was counted
}

// show renders the window as [start,end), near an end of the int64 range
// relative to it.
func (w *expiryWindow) show() string {
	return fmt.Sprintf("[%s,%s)", windowtest.NearEdge(w.start), windowtest.NearEdge(w.end))
}

// cleanup is the window's cleanup time: end + AllowedLateness, saturating.
func (w *expiryWindow) cleanup(cfg Config) int64 {
	if w.end > math.MaxInt64-cfg.AllowedLateness {
		return math.MaxInt64
	}
	return w.end + cfg.AllowedLateness
}

// expiryTimeline is a generated run: the calls, and the windows they
// touch, by start.
type expiryTimeline struct {
	ops      []windowtest.Op
	windows  []*expiryWindow // in start order
	idGroups []int
}

// floorStart is the start of the window of ts: ts rounded down to a
// multiple of size.
func floorStart(ts, size int64) int64 {
	r := ts % size
	if r < 0 {
		r += size
	}
	return ts - r
}

// minusSat is a − b for b ≥ 0, saturating at math.MinInt64.
func minusSat(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

// plusSat is a + b for b ≥ 0, saturating at math.MaxInt64.
func plusSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// keyPools returns, for every key group, at least three keys that belong
// to it, awkward ones (empty, NUL, invalid UTF-8, long) among them.
func keyPools() [][]string {
	pools := make([][]string, BackendMaxParallelism)
	add := func(k string) {
		g := KeyGroup(k, BackendMaxParallelism)
		pools[g] = append(pools[g], k)
	}
	for _, k := range []string{"", "\x00", "\xff\xfe", "a\x00b", "\xc3\x28", "ключ", strings.Repeat("k", 300)} {
		add(k)
	}
	for i := 0; slices.ContainsFunc(pools, func(p []string) bool { return len(p) < 3 }); i++ {
		add(fmt.Sprintf("key-%d", i))
	}
	return pools
}

// newExpiryTimeline generates c's calls: in each phase, events of
// expiryWindows windows (each with its own key group, keys of no other
// window open with it) in a bounded shuffle with redeliveries, among
// AdvanceWatermark calls to around the windows' ends and cleanup times,
// then an AdvanceWatermark to exactly the phase's last cleanup time (or
// Flush if that is math.MaxInt64); a late event and a redelivery of the
// phase before open the next; Flush and a late event end the run.
func newExpiryTimeline(rnd *rand.Rand, c expiryCase) expiryTimeline {
	size := c.cfg.WindowSize
	pools := keyPools()
	groups := rnd.Perm(BackendMaxParallelism)
	tl := expiryTimeline{idGroups: groups[:expiryIDGroups]}
	slices.Sort(tl.idGroups)
	windowGroups := groups[expiryIDGroups:]

	nextID := 0
	newID := func() string {
		for {
			id := fmt.Sprintf("id-%d", nextID)
			nextID++
			if slices.Contains(tl.idGroups, KeyGroup(id, BackendMaxParallelism)) {
				return id
			}
		}
	}
	event := func(w *expiryWindow) kit.Event {
		return kit.Event{ID: newID(), Key: w.keys[rnd.IntN(len(w.keys))], TS: w.start + rnd.Int64N(size), Value: rnd.Int64N(100)}
	}
	bound := c.cfg.WatermarkDelay + 2*size + min(c.cfg.AllowedLateness, 3*size)

	start := floorStart(c.first, size)
	var prev []*expiryWindow
	var prevEvents []kit.Event
	for range c.phases {
		// The phase's windows: expiryWindows of 1.5 times as many slots.
		var ws []*expiryWindow
		slots := rnd.Perm(expiryWindows * 3 / 2)[:expiryWindows]
		slices.Sort(slots)
		rnd.Shuffle(len(windowGroups), func(i, j int) { windowGroups[i], windowGroups[j] = windowGroups[j], windowGroups[i] })
		for i, s := range slots {
			w := &expiryWindow{start: start + int64(s)*size, group: windowGroups[i]}
			w.end = w.start + size
			pool := slices.Clone(pools[w.group])
			rnd.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
			w.keys = pool[:1+rnd.IntN(3)]
			ws = append(ws, w)
		}
		tl.windows = append(tl.windows, ws...)

		var events []kit.Event
		for _, w := range ws {
			for range len(w.keys) + rnd.IntN(3) {
				events = append(events, event(w))
			}
		}
		delivered := kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, events, bound), 0.1)
		if len(prev) > 0 { // the phase before has expired: its events are late or redelivered
			delivered = slices.Insert(delivered, rnd.IntN(len(delivered)), event(prev[rnd.IntN(len(prev))]),
				prevEvents[rnd.IntN(len(prevEvents))])
		}
		windowOf := func(ts int64) int { return int((floorStart(ts, size) - start) / size) }
		for _, e := range delivered {
			tl.ops = append(tl.ops, windowtest.ProcessOp(e))
			if rnd.IntN(4) > 0 {
				continue
			}
			// Near the event's window: its end or cleanup time, exactly or one off.
			near := slices.IndexFunc(ws, func(w *expiryWindow) bool { return int(w.start-start)/int(size) >= windowOf(e.TS) })
			w := ws[max(0, min(len(ws)-1, near-2+rnd.IntN(5)))]
			at := w.cleanup(c.cfg)
			if at == math.MaxInt64 || rnd.IntN(3) == 0 { // only the run's end reaches MaxInt64
				at = w.end
			}
			switch rnd.IntN(3) {
			case 0:
				at = minusSat(at, 1)
			case 1:
				at = plusSat(at, 1)
			}
			tl.ops = append(tl.ops, windowtest.AdvanceOp(at))
		}
		last := ws[len(ws)-1].cleanup(c.cfg)
		if last == math.MaxInt64 {
			tl.ops = append(tl.ops, windowtest.FlushOp())
			break
		}
		tl.ops = append(tl.ops, windowtest.AdvanceOp(last))
		prev, prevEvents = ws, events
		start = floorStart(last, size) + 2*size
	}
	tl.ops = append(tl.ops, windowtest.FlushOp(), windowtest.ProcessOp(event(tl.windows[rnd.IntN(len(tl.windows))])))
	return tl
}

// TestExpiredWindowsLeaveTheBackend certifies that a window's state leaves
// the backend in the same call in which the watermark reaches its cleanup
// time (end + AllowedLateness, saturating at math.MaxInt64), and not
// before: after every call of seeded timelines (no lateness, corrections,
// negative timestamps down to near math.MinInt64, cleanup times that
// saturate near math.MaxInt64, a lateness of math.MaxInt64), exactly the
// windows that counted an event and whose cleanup time the watermark has
// not reached hold keys in their keys' key groups; whenever every window
// has expired, and after Flush, the state under 0xFF 0xFF is no bigger
// than that of a processor at the same watermark that has seen one window
// come and go (give or take unkeyedSlack bytes); and after Flush nothing
// but the seen IDs is left in the key groups. It looks at the suite's map
// backend by key group only, never decoding what follows the prefix.
func TestExpiredWindowsLeaveTheBackend(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, c := range expiryCases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			checkExpiry(t, c.cfg, newExpiryTimeline(rnd, c))
		})
	}
}

// checkExpiry replays tl on a processor over the suite's map backend and,
// after every call, compares what the key groups hold with the oracle's
// open windows, and the state under 0xFF 0xFF with that of a processor
// that has seen one window come and go, whenever no window is open.
func checkExpiry(t *testing.T, cfg Config, tl expiryTimeline) {
	t.Helper()
	b := newMemBackend()
	p := newProcessor(t, cfg, b)
	r := windowtest.NewRun(t, p, cfg.WindowSize, cfg.AllowedLateness)
	byStart := map[int64]*expiryWindow{}
	for _, w := range tl.windows {
		byStart[w.start] = w
	}
	seen := map[string]bool{}
	wm := int64(math.MinInt64)
	first := tl.ops[0].Event
	var events, late []kit.Event
	// timeline draws the run so far, only the window w unless it is nil,
	// and ends, with pictures on, with the link to the page of the run;
	// note is the failure's message.
	timeline := func(note string, w *expiryWindow) string {
		full := kit.Timeline{WindowSize: cfg.WindowSize, Lateness: cfg.AllowedLateness, Events: events,
			Watermark: p.Watermark(), Results: r.Emitted(), Late: p.Late()}
		text := full.String()
		if w != nil {
			text = fmt.Sprintf("only window %s, arrival order:\n%s", w.show(), windowtest.OnlyWindow(full, w.start, w.end).String())
		}
		return text + r.Picture(note, nil, nil)
	}

	for i, op := range tl.ops {
		// The oracle: stage 03's rules for what is counted and when a window expires.
		switch op.Kind {
		case "process":
			e := op.Event
			events = append(events, e)
			if !seen[e.ID] {
				seen[e.ID] = true
				if w := byStart[floorStart(e.TS, cfg.WindowSize)]; wm >= w.cleanup(cfg) {
					late = append(late, e)
				} else {
					w.counted = true
				}
				wm = max(wm, minusSat(e.TS, cfg.WatermarkDelay))
			}
		case "advance":
			wm = max(wm, op.WM)
		case "flush":
			wm = math.MaxInt64
		}
		r.Apply(op)
		call := fmt.Sprintf("After call %d of %d, %v (watermark %s)", i+1, len(tl.ops), op, windowtest.NearEdge(wm))

		// Every key group but the IDs' holds keys exactly while one of its windows is open.
		groups, unkeyed := storedByGroup(b)
		open := 0
		for g, keys := range groups {
			if slices.Contains(tl.idGroups, g) {
				continue
			}
			var holder *expiryWindow
			for _, w := range tl.windows {
				if w.group == g && w.counted && wm < w.cleanup(cfg) {
					holder = w
					open++
				}
			}
			switch {
			case holder == nil && len(keys) > 0:
				w := lastExpired(tl.windows, g, cfg, wm)
				msg := fmt.Sprintf("%s, key group %d still holds%s\nwant nothing: its keys are those of window %s (cleanup time %s),\n"+
					"and the watermark has reached that. A window's state leaves the backend in the call in which the\n"+
					"watermark reaches end + AllowedLateness (saturating at math.MaxInt64), as stage 03's Processor forgets\n"+
					"it; left behind, it is state that grows for ever. (If you collect the keys to delete in a Scan callback,\n"+
					"copy them: the slices it gets are the backend's until it returns, and this suite's backend then writes\n"+
					"over them, as Pebble's iterator reuses its own.)",
					call, g, showKeys(keys), w.show(), windowtest.NearEdge(w.cleanup(cfg)))
				t.Fatalf("%s\n\n%s", msg, timeline(msg, w))
			case holder != nil && len(keys) == 0:
				msg := fmt.Sprintf("%s, key group %d holds nothing, want the tallies of window %s (keys%s):\n"+
					"its cleanup time %s is above the watermark, so it still takes corrections.",
					call, g, holder.show(), showKeys(holder.keys), windowtest.NearEdge(holder.cleanup(cfg)))
				t.Fatalf("%s\n\n%s", msg, timeline(msg, holder))
			}
		}
		if !slices.Equal(p.Late(), late) {
			msg := fmt.Sprintf("%s, Late() = %s\nwant      %s\nAn event is late when the watermark has reached its window's cleanup time.",
				call, windowtest.FmtEvents(p.Late()), windowtest.FmtEvents(late))
			t.Fatalf("%s\n\n%s", msg, timeline(msg, nil))
		}

		// No window open: nothing of the windows that came and went is left under 0xFF 0xFF.
		if open > 0 {
			continue
		}
		want := oneWindowGone(t, cfg, first, wm)
		if got := unkeyedBytes(b, unkeyed); got > want+unkeyedSlack {
			msg := fmt.Sprintf("%s, every window has expired, and the state under 0xFF 0xFF is %d bytes (keys and values):%s\n"+
				"want at most %d + %d, what a processor at the same watermark that has seen one window come and go\n"+
				"stores there: an expired window's entry among the open windows leaves with its tallies.",
				call, got, showKeys(unkeyed), want, unkeyedSlack)
			t.Fatalf("%s\n\n%s", msg, timeline(msg, nil))
		}
	}
}

// storedByGroup returns the keys b holds in each key group, and those
// under 0xFF 0xFF. A key that fits neither is reported by
// TestKeysArePrefixedByKeyGroup; here it is left out.
func storedByGroup(b *memBackend) (groups [][]string, unkeyed []string) {
	groups = make([][]string, BackendMaxParallelism)
	for _, k := range b.keys() {
		if len(k) < 2 {
			continue
		}
		switch g := int(binary.BigEndian.Uint16([]byte(k))); {
		case g == 0xFFFF:
			unkeyed = append(unkeyed, k)
		case g < BackendMaxParallelism:
			groups[g] = append(groups[g], k)
		}
	}
	return groups, unkeyed
}

// unkeyedBytes is the size of the entries of keys in b, keys and values.
func unkeyedBytes(b *memBackend, keys []string) int {
	n := 0
	for _, k := range keys {
		n += len(k) + len(b.entries[k])
	}
	return n
}

// oneWindowGone returns the size of the state under 0xFF 0xFF of a
// processor for cfg that has processed e alone, then had its watermark
// raised to wm (past e's window's cleanup time): the unkeyed state of no
// open window.
func oneWindowGone(t *testing.T, cfg Config, e kit.Event, wm int64) int {
	t.Helper()
	b := newMemBackend()
	p := newProcessor(t, cfg, b)
	p.Process(e)
	if wm == math.MaxInt64 {
		p.Flush()
	} else {
		p.AdvanceWatermark(wm)
	}
	_, unkeyed := storedByGroup(b)
	return unkeyedBytes(b, unkeyed)
}

// lastExpired returns the window of ws in key group g that counted an
// event and expired last at watermark wm: the one whose keys a processor
// that has just failed to drop a window left behind.
func lastExpired(ws []*expiryWindow, g int, cfg Config, wm int64) *expiryWindow {
	var last *expiryWindow
	for _, w := range ws {
		if w.group == g && w.counted && w.cleanup(cfg) <= wm && (last == nil || w.cleanup(cfg) > last.cleanup(cfg)) {
			last = w
		}
	}
	if last == nil { // no window of g was ever counted: the keys are strays
		return &expiryWindow{group: g}
	}
	return last
}
