//go:build lab || solution

package sessions

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// Short names for the shared constructors: ev("e1", "a", 10, 1) is the event
// e1 of key a at ts 10 with value 1; res and upd are a first result and an
// update; ret is a retraction, the negative of what downstream holds.
var (
	ev  = windowtest.Ev
	res = windowtest.Res
	upd = windowtest.Upd
)

// ret returns the retraction of key's session [start, end) that downstream
// holds with count and sum: Count −count, Sum −sum, IsUpdate true.
func ret(key string, start, end, count, sum int64) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: -count, Sum: -sum, IsUpdate: true}
}

// newSessions returns a new SessionProcessor for cfg; it stops the test if
// NewSessionProcessor rejects this valid config.
func newSessions(t testing.TB, cfg SessionConfig) *SessionProcessor {
	t.Helper()
	s, err := NewSessionProcessor(cfg)
	if err != nil || s == nil {
		t.Fatalf("NewSessionProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, s, err)
	}
	return s
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg SessionConfig) picture.Windows {
	return picture.Windows{Gap: cfg.Gap, Lateness: cfg.AllowedLateness}
}

// sessionKey identifies a session downstream: one row per (Key, Start, End).
type sessionKey struct {
	key        string
	start, end int64
}

// downstream is a consumer of the changelog a SessionProcessor emits: it
// keeps one row per (Key, Start, End), adds each result's Count and Sum to
// it and drops rows that reach zero. Applying results, it checks them
// against the contract, so that a failure names the first result that a
// real consumer could not have made sense of.
type downstream struct {
	rows map[string]map[sessionKey]kit.Result // by key, then by session
}

func newDownstream() *downstream { return &downstream{rows: map[string]map[sessionKey]kit.Result{}} }

// row returns the row downstream holds for k, if any.
func (d *downstream) row(k sessionKey) (kit.Result, bool) {
	r, ok := d.rows[k.key][k]
	return r, ok
}

// apply applies the results of one call (or one committed changelog) in
// order. It returns "" if every result is one a consumer can apply, or what
// is wrong with the first that is not:
//
//   - a retraction (Count < 0) is an update that cancels exactly a row
//     downstream holds;
//   - a first result (IsUpdate false) comes after no retraction and
//     overlaps no row of its key: nothing of the session was out before;
//   - an update (Count > 0, IsUpdate true) comes right after the
//     retractions of what it replaces, all within its bounds;
//   - after an insert no two rows of a key overlap: a session that
//     swallowed others has retracted them;
//   - no retraction is left without the result that replaces it.
func (d *downstream) apply(rs []kit.Result) string {
	var retracted []kit.Result // retractions since the last insert
	for i, r := range rs {
		at := fmt.Sprintf("result %d of %d, %v", i+1, len(rs), r)
		k := sessionKey{r.Key, r.Start, r.End}
		held, holds := d.row(k)
		switch {
		case r.Count == 0:
			return at + ": a result with Count 0 says nothing; a session holds at least one event, and a retraction\n" +
				"carries the negative count of the row it cancels"
		case r.Count < 0 && !r.IsUpdate:
			return at + ": a retraction changes what was emitted before, so it has IsUpdate true"
		case r.Count < 0 && !holds:
			return fmt.Sprintf("%s: downstream holds no row for %s [%d,%d) to retract; it holds %s.\n"+
				"Retract exactly the results you emitted before, with their bounds.", at, r.Key, r.Start, r.End, d.describeKey(r.Key))
		case r.Count < 0 && (held.Count != -r.Count || held.Sum != -r.Sum):
			return fmt.Sprintf("%s: downstream holds %v; a retraction cancels the row exactly (Count %d, Sum %d),\n"+
				"so that summing per session leaves nothing of it.", at, held, -held.Count, -held.Sum)
		case r.Count < 0:
			delete(d.rows[k.key], k)
			retracted = append(retracted, r)
			continue
		case !r.IsUpdate && len(retracted) > 0:
			return fmt.Sprintf("%s follows the retraction%s %s, so it replaces them: it is an update (IsUpdate true).",
				at, plural(len(retracted)), fmtList(retracted))
		case !r.IsUpdate && len(d.overlapping(r)) > 0:
			return fmt.Sprintf("%s is a first result (IsUpdate false), but downstream already holds %s, which overlaps it.\n"+
				"Either that row was not retracted before this session replaced it, or this session was emitted before\n"+
				"and this is a repeated first emission.", at, fmtList(d.overlapping(r)))
		case r.IsUpdate && len(retracted) == 0:
			return fmt.Sprintf("%s is an update, but no retraction comes right before it. An update replaces results\n"+
				"downstream holds: retract each of them (Count −count, Sum −sum), then emit the new session.\n"+
				"Downstream holds %s.", at, d.describeKey(r.Key))
		}
		for _, x := range retracted {
			if x.Key != r.Key || x.Start < r.Start || x.End > r.End {
				return fmt.Sprintf("%s follows the retraction %v, which is not part of it: each session's retractions come\n"+
					"immediately before that session's result.", at, x)
			}
		}
		if over := d.overlapping(r); len(over) > 0 {
			return fmt.Sprintf("%s: downstream now holds both it and %s, which overlap: the session that swallowed them\n"+
				"did not retract them, so a consumer counts their events twice.", at, fmtList(over))
		}
		r.IsUpdate = false
		if d.rows[k.key] == nil {
			d.rows[k.key] = map[sessionKey]kit.Result{}
		}
		d.rows[k.key][k] = r
		retracted = nil
	}
	if len(retracted) > 0 {
		return fmt.Sprintf("the retraction%s %s %s not followed by the session that replaces them. Emit the new session's\n"+
			"result right after its retractions, in the same call.", plural(len(retracted)), fmtList(retracted), isAre(len(retracted)))
	}
	return ""
}

// overlapping returns the rows of r's key that share at least one
// millisecond with [r.Start, r.End), sorted.
func (d *downstream) overlapping(r kit.Result) []kit.Result {
	var out []kit.Result
	for k, row := range d.rows[r.Key] {
		if k.start < r.End && r.Start < k.end {
			out = append(out, row)
		}
	}
	return kit.SortResults(out)
}

// describeKey renders the rows downstream holds for key.
func (d *downstream) describeKey(key string) string {
	var rows []kit.Result
	for _, row := range d.rows[key] {
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return "nothing of key " + key
	}
	return fmtList(kit.SortResults(rows))
}

// sessions returns the rows downstream holds, as first results in (End,
// Start, Key) order: the final set of sessions, once the input is over.
func (d *downstream) sessions() []kit.Result {
	var out []kit.Result
	for _, rows := range d.rows {
		out = slices.AppendSeq(out, maps.Values(rows))
	}
	return kit.SortResults(out)
}

// rebuild applies rs to a new downstream and returns it with the first
// problem, if any.
func rebuild(rs []kit.Result) (*downstream, string) {
	d := newDownstream()
	return d, d.apply(rs)
}

// batchSessions is the oracle: the sessions of events computed in one pass
// over the whole input, as if it had arrived in order at once. Each event
// ID counts once. Per key, the events sorted by timestamp form one session
// while each is at most Gap after the one before: windows [a, a+gap) and
// [b, b+gap) with a ≤ b intersect or touch exactly when b ≤ a+gap. A
// session is [first ts, last ts + gap).
func batchSessions(events []kit.Event, gap int64) []kit.Result {
	seen := map[string]bool{}
	byKey := map[string][]kit.Event{}
	for _, e := range events {
		if !seen[e.ID] {
			seen[e.ID] = true
			byKey[e.Key] = append(byKey[e.Key], e)
		}
	}
	var out []kit.Result
	for key, es := range byKey {
		slices.SortFunc(es, func(a, b kit.Event) int { return cmp.Compare(a.TS, b.TS) })
		cur := kit.Result{Key: key, Start: es[0].TS}
		last := es[0].TS
		for _, e := range es {
			if e.TS > last+gap { // a gap larger than Gap: the session is over
				out = append(out, cur)
				cur = kit.Result{Key: key, Start: e.TS}
			}
			last = e.TS
			cur.End = last + gap
			cur.Count++
			cur.Sum += e.Value
		}
		out = append(out, cur)
	}
	return kit.SortResults(out)
}

// run drives one SessionProcessor through a hand-written scenario and
// records what went in and what came out, for the timeline of a failure.
type run struct {
	t   *testing.T
	cfg SessionConfig
	r   *windowtest.Run
}

// newRun returns a run on a new SessionProcessor for cfg.
func newRun(t *testing.T, cfg SessionConfig) *run {
	t.Helper()
	r := &run{t: t, cfg: cfg, r: windowtest.NewRun(t, newSessions(t, cfg), 0, cfg.AllowedLateness)}
	r.r.SetWindows(pictureWindows(cfg))
	return r
}

func (r *run) process(e kit.Event) []kit.Result            { return r.r.Process(e) }
func (r *run) processAll(events ...kit.Event) []kit.Result { return r.r.ProcessAll(events...) }
func (r *run) advance(wm int64) []kit.Result               { return r.r.Advance(wm) }
func (r *run) flush() []kit.Result                         { return r.r.Flush() }

// report is the message of a failed check of the run other than its
// results: msg, the timeline with what downstream holds, and the link to
// the run's page, which shows msg.
func (r *run) report(msg string) string { return r.r.Report(msg, r.downstream()) }

// fatalf stops the test with a failed check of the run (report).
func (r *run) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s", r.report(fmt.Sprintf(format, args...)))
}

// downstream is the timeline's line of what downstream holds.
func (r *run) downstream() string { return "  downstream  " + heldAfter(r.r.Emitted()) + "\n" }

// heldAfter renders the sessions downstream holds after applying rs.
func heldAfter(rs []kit.Result) string {
	d, problem := rebuild(rs)
	held := "(nothing)"
	if rows := d.sessions(); len(rows) > 0 {
		held = fmtList(rows)
	}
	if problem != "" {
		held += " — but the changelog so far cannot be applied: " + strings.ReplaceAll(problem, "\n", " ")
	}
	return held
}

// expect fails the test unless got equals want, naming the call, saying why
// want is right, and drawing the timeline.
func (r *run) expect(call string, got, want []kit.Result, why string) {
	r.t.Helper()
	if slices.Equal(got, want) {
		return
	}
	msg := fmt.Sprintf("%s returned\n%s\nwant\n%s\n%s", call, windowtest.FmtResults(got), windowtest.FmtResults(want), why)
	r.t.Errorf("%s", r.r.Failure(msg, got, want, r.downstream()))
}

// expectLate fails the test unless Late() is want.
func (r *run) expectLate(want []kit.Event, why string) {
	r.t.Helper()
	r.r.ExpectLate(want, why, r.downstream())
}

// expectHeld fails the test unless applying everything emitted so far
// leaves downstream holding exactly want.
func (r *run) expectHeld(want []kit.Result, why string) {
	r.t.Helper()
	d, problem := rebuild(r.r.Emitted())
	switch {
	case problem != "":
		r.t.Errorf("%s", r.report(fmt.Sprintf("the results emitted so far cannot be applied downstream: %s\n%s", problem, why)))
	case !slices.Equal(d.sessions(), want):
		r.t.Errorf("%s", r.report(fmt.Sprintf("downstream, summing Count and Sum per (Key, Start, End), now holds\n%s\nwant\n%s\n%s",
			windowtest.FmtResults(d.sessions()), windowtest.FmtResults(want), why)))
	}
}

// fmtList renders results on one line, separated by commas.
func fmtList(rs []kit.Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// shuffled returns a bounded shuffle of events (kit.BoundedShuffle) with
// events redelivered at rate dupRate (kit.WithDuplicates).
func shuffled(rnd *rand.Rand, events []kit.Event, bound int64, dupRate float64) []kit.Event {
	return kit.WithDuplicates(rnd, kit.BoundedShuffle(rnd, events, bound), dupRate)
}
