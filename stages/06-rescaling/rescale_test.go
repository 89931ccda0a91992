//go:build lab || solution

package rescaling

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// rescales are the parallelism changes the mid-stream tests make: the
// parallelisms in order, a snapshot and a restore between each two.
var rescales = []struct {
	maxP int
	ps   []int
}{
	{128, []int{2, 3}},
	{128, []int{4, 1}},
	{128, []int{1, 7}},
	{7, []int{1, 7}}, // parallelism = maxParallelism: one key group per subtask
	{10, []int{3, 2, 5, 1}},
}

// cutSets is how many seeded sets of cut points each rescale tries.
const cutSets = 12

// rescaleName names a rescale, e.g. "2to3/maxP=128".
func rescaleName(ps []int, maxP int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, "to") + fmt.Sprintf("/maxP=%d", maxP)
}

// rescaleRun is one run of a sequence of calls over several parallelisms:
// calls ops[cuts[i-1]:cuts[i]] at parallelism ps[i], with a snapshot and a
// restore at the next parallelism at each cut.
type rescaleRun struct {
	cfg  Config
	maxP int
	ps   []int
	cuts []int // len(ps)−1 cut points, ascending
	ops  []op
	run  *windowtest.Run // the calls of the run, across the restores
	late []kit.Event     // Late() of the processors already replaced
}

// plan describes the run, e.g. "parallelism 2 for calls 1–37, snapshot,
// restore at parallelism 3 for calls 38–150".
func (r *rescaleRun) plan() string {
	var parts []string
	from := 0
	for i, p := range r.ps {
		to := len(r.ops)
		if i < len(r.cuts) {
			to = r.cuts[i]
		}
		span := fmt.Sprintf("calls %d–%d", from+1, to)
		if to == from {
			span = "no calls"
		}
		if i == 0 {
			parts = append(parts, fmt.Sprintf("parallelism %d for %s", p, span))
		} else {
			parts = append(parts, fmt.Sprintf("snapshot, restore at parallelism %d for %s", p, span))
		}
		from = to
	}
	return fmt.Sprintf("Config %+v, maxParallelism %d, %d calls: %s.", r.cfg, r.maxP, len(r.ops), strings.Join(parts, ", "))
}

// check fails t unless the parallel run r equals the single run want, call
// by call, and returns whether it did.
func (r *rescaleRun) check(t *testing.T, want trace) bool {
	t.Helper()
	pp := newParallel(t, ParallelConfig{Processor: r.cfg, Parallelism: r.ps[0], MaxParallelism: r.maxP})
	r.run = windowtest.NewRun(t, pp, r.cfg.WindowSize, r.cfg.AllowedLateness)
	from := 0
	for seg, p := range r.ps {
		to := len(r.ops)
		if seg < len(r.cuts) {
			to = r.cuts[seg]
		}
		for k := from; k < to; k++ {
			if !r.call(t, pp, k, want, seg) {
				return false
			}
		}
		if seg == len(r.ps)-1 {
			break
		}
		snap := snapshotOf(t, pp)
		lateAtSnapshot := pp.Late()
		r.late = append(r.late, lateAtSnapshot...)
		// The old job runs on for a few calls after the snapshot (a rescale
		// restores the last checkpoint; processing did not stop for it). The
		// snapshot must not see any of that. Their results are not part of
		// the run: the restored job repeats these calls.
		old := pp
		for k := to; k < min(to+3, len(r.ops)); k++ {
			if !slices.Equal(r.ops[k].Apply(old), want.Outs[k]) {
				msg := fmt.Sprintf("%s\nAfter Snapshot(), the processor at parallelism %d went on with call %d, %v, and returned something else than\n"+
					"one Processor: taking a snapshot must not change the processor.", r.plan(), p, k+1, r.ops[k])
				t.Errorf("%s%s", msg, r.run.Picture(msg, nil, nil))
				return false
			}
		}
		next := r.ps[seg+1]
		pp = restoreOf(t, snap, next, r.maxP)
		r.run.RestoredFrom(pp, lateAtSnapshot)
		wantWM := int64(math.MinInt64) // before any call
		if to > 0 {
			wantWM = want.WMs[to-1]
		}
		if wm := pp.Watermark(); wm != wantWM {
			msg := fmt.Sprintf("%s\nRestored at parallelism %d after call %d, Watermark() = %s, want %s (the snapshotted processor's).\n"+
				"The watermark is state: save it with the key groups and give it to every new subtask.",
				r.plan(), next, to, kit.FormatWatermark(wm), kit.FormatWatermark(wantWM))
			t.Errorf("%s%s", msg, r.run.Picture(msg, nil, nil))
			return false
		}
		from = to
	}
	late := append(slices.Clone(r.late), pp.Late()...)
	if !slices.Equal(late, want.Late) {
		msg := fmt.Sprintf("%s\nLate() over the whole run (before each snapshot, then the restored processor's): %s\none Processor's: %s\n%s",
			r.plan(), windowtest.FmtEvents(late), windowtest.FmtEvents(want.Late), r.lateHint(late, want.Late))
		t.Errorf("%s%s", msg, r.run.Picture(msg, nil, nil))
		return false
	}
	return true
}

// lateHint explains a side output that differs from one Processor's: an
// event late twice, or late after a rescale although its ID was seen
// before the snapshot, points at seen IDs lost with their key group.
func (r *rescaleRun) lateHint(got, want []kit.Event) string {
	count := map[kit.Event]int{}
	for _, e := range want {
		count[e]++
	}
	for _, e := range got {
		if count[e] > 0 {
			count[e]--
			continue
		}
		first := slices.IndexFunc(r.ops, func(o op) bool { return o.Kind == "process" && o.Event.ID == e.ID })
		if len(r.cuts) > 0 && first >= 0 && first < r.cuts[0] {
			return fmt.Sprintf("%v went to the side output after a rescale, but its ID was delivered at call %d, before the snapshot:\n"+
				"the redelivery must be a no-op. Its key group saw the ID; keep every key group that has seen an event in the\n"+
				"snapshot, with its seen IDs, even when none of its windows is left (expired, flushed, or its only event late).",
				e, first+1)
		}
	}
	return "Late events are judged against the restored watermark, and a redelivered late ID is a no-op after a rescale too."
}

// call makes call k on pp (of segment seg) and checks it against want.
func (r *rescaleRun) call(t *testing.T, pp *ParallelProcessor, k int, want trace, seg int) bool {
	t.Helper()
	got := r.run.Apply(r.ops[k])
	if slices.Equal(got, want.Outs[k]) {
		return true
	}
	where := fmt.Sprintf("before any rescale, at parallelism %d (see TestParallelResultsEqualSingleProcessor)", r.ps[0])
	if seg > 0 {
		where = fmt.Sprintf("after the restore at parallelism %d (snapshot after call %d)", r.ps[seg], r.cuts[seg-1])
	}
	msg := fmt.Sprintf("%s\nCall %d, %v, %s returned\n%s\none Processor returned\n%s",
		r.plan(), k+1, r.ops[k], where, windowtest.FmtResults(got), windowtest.FmtResults(want.Outs[k]))
	t.Errorf("%s\n%s\n\n%s%s", msg, r.hint(got, want.Outs[k], seg), r.timeline(pp, k, got, want.Outs[k]),
		r.run.Picture(msg, got, want.Outs[k]))
	return false
}

// hint explains a wrong result after a rescale: where the keys involved
// lived before and after, and what the difference suggests.
func (r *rescaleRun) hint(got, want []kit.Result, seg int) string {
	missing, extra := windowtest.Unmatched(got, want)
	if len(missing)+len(extra) == 0 {
		return "The same results in another order: one call's results are ordered by (End, Start, Key) across subtasks."
	}
	lines := []string{strings.TrimRight(windowtest.DiffResults(got, want), "\n")}
	for _, k := range keysOf(missing, extra) {
		lines = append(lines, whereIs(k, r.maxP, r.ps[:seg+1]...))
	}
	if seg == 0 {
		return strings.Join(lines, "\n")
	}
	fewer, twice, split := false, false, false
	emitted := r.run.Emitted()
	before := emitted[:len(emitted)-len(got)]
	for i := 1; i < len(got); i++ {
		split = split || (got[i].Key == got[i-1].Key && got[i].Start == got[i-1].Start)
	}
	for _, g := range extra {
		for _, w := range want {
			if g.Key == w.Key && g.Start == w.Start && g.Count < w.Count {
				fewer = true
			}
		}
		if !g.IsUpdate && slices.ContainsFunc(before, func(b kit.Result) bool { return b.Key == g.Key && b.Start == g.Start }) {
			twice = true
		}
	}
	switch {
	case split:
		lines = append(lines, "One call emitted two results for one (key, window): the key's state is split in two. After the restore,\n"+
			"its key group's state sits on one subtask while Process sends new events to another, which starts afresh.\n"+
			"Restore each key group, whole, on TaskForKeyGroup(kg, maxP, newP): where routing looks for it.")
	case fewer:
		lines = append(lines, "Events counted before the snapshot are missing: the key's state did not reach the subtask that owns its key\n"+
			"group at the new parallelism. State moves by key group: restore puts each key group's state, whole, on the subtask\n"+
			"whose KeyGroupRange holds it, where Process (routing by TaskForKeyGroup) looks for it.")
	case twice:
		lines = append(lines, "A window fired a first result twice: its state (or whether it had fired) was restored more than once or\n"+
			"without the watermark. Each key group is restored on exactly one subtask, with the snapshot's watermark.")
	default:
		lines = append(lines, "After a rescale the state must be exactly what it was: every key group's windows, seen IDs and the watermark,\n"+
			"each key group on the subtask that owns it at the new parallelism.")
	}
	return strings.Join(lines, "\n")
}

// timeline draws the window of the first difference, over the calls so far.
func (r *rescaleRun) timeline(pp *ParallelProcessor, k int, got, want []kit.Result) string {
	first, ok := windowtest.FirstDifference(got, want)
	if !ok {
		return ""
	}
	start, end := first.Start, first.End
	tl := kit.Timeline{WindowSize: r.cfg.WindowSize, Lateness: r.cfg.AllowedLateness, Events: eventsOf(r.ops[:k+1]),
		Watermark: watermarkOrNone(pp), Results: r.run.Emitted(), Late: append(slices.Clone(r.late), pp.Late()...)}
	arrivals := 0
	var marks []string
	for i, o := range r.ops[:k+1] {
		if slices.Contains(r.cuts, i) && !slices.Contains(marks, fmt.Sprintf("after arrival %d", arrivals)) {
			marks = append(marks, fmt.Sprintf("after arrival %d", arrivals))
		}
		if o.Kind == "process" {
			arrivals++
		}
	}
	return fmt.Sprintf("your run, only window [%d,%d), arrival order; rescaled %s:\n%s",
		start, end, strings.Join(marks, ", "), windowtest.OnlyWindow(tl, start, end).String())
}

// TestRescaleMidStreamEqualsUnscaledRun certifies that snapshotting at a seeded cut, restoring at another parallelism (2→3, 4→1, 1→7, 3→2→5→1) and continuing gives, call by call, exactly the results of one unscaled Processor.
//
// The inputs are seeded, shuffled (beyond the delay in one config, so that
// corrections and late events cross the rescale), with duplicates,
// AdvanceWatermark calls, a Flush and events after it. FLK_SEED replays a
// failure.
func TestRescaleMidStreamEqualsUnscaledRun(t *testing.T) {
	defer suite.Recover(t)
	for _, pc := range parallelConfigs {
		for _, rs := range rescales {
			t.Run(pc.name+"/"+rescaleName(rs.ps, rs.maxP), func(t *testing.T) {
				defer suite.Recover(t)
				rnd := suite.Rand(t)
				ops := genOps(rnd, pc.cfg, parallelKeys, 120, pc.bound)
				want := singleRun(t, pc.cfg, ops)
				for set := range cutSets {
					cuts := make([]int, len(rs.ps)-1)
					for i := range cuts {
						if set == 0 {
							cuts[i] = (i + 1) * len(ops) / len(rs.ps) // evenly spaced
						} else {
							cuts[i] = rnd.IntN(len(ops) + 1) // anywhere, the very start and end included
						}
					}
					slices.Sort(cuts)
					r := &rescaleRun{cfg: pc.cfg, maxP: rs.maxP, ps: rs.ps, cuts: cuts, ops: ops}
					if !r.check(t, want) {
						return // the first failing run is the one to read
					}
				}
			})
		}
	}
}

// TestKeysOnAfterRescaleMatchNewRanges certifies that after a restore at another parallelism every key with state is on the subtask whose new KeyGroupRange holds its key group, and no key's state is lost.
func TestKeysOnAfterRescaleMatchNewRanges(t *testing.T) {
	defer suite.Recover(t)
	keys := keyNames("user-", 60)
	for _, c := range []struct {
		maxP, from int
		to         []int
	}{
		{128, 2, []int{3, 1, 7, 128}},
		{10, 4, []int{1, 3, 10}},
	} {
		t.Run(fmt.Sprintf("maxP=%d/from=%d", c.maxP, c.from), func(t *testing.T) {
			defer suite.Recover(t)
			cfg := Config{WindowSize: 100, WatermarkDelay: 1000} // nothing fires: every key keeps state
			pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: c.from, MaxParallelism: c.maxP})
			rnd := suite.Rand(t)
			for i := range 2 * len(keys) {
				pp.Process(windowtest.Ev(fmt.Sprintf("e%d", i), keys[i%len(keys)], rnd.Int64N(400), 1))
			}
			snap := snapshotOf(t, pp)
			for _, to := range c.to {
				restored := restoreOf(t, snap, to, c.maxP)
				checkKeysOn(t, restored, keys, c.maxP, to,
					fmt.Sprintf("after a snapshot at parallelism %d and a restore at parallelism %d", c.from, to))
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestRestoreRejectsDifferentMaxParallelism certifies that restoring a snapshot with another maxParallelism than it was taken with is an error that names both values.
func TestRestoreRejectsDifferentMaxParallelism(t *testing.T) {
	defer suite.Recover(t)
	const maxP = 128
	cfg := Config{WindowSize: 100, WatermarkDelay: 1000}
	pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: 4, MaxParallelism: maxP})
	for i, k := range keyNames("user-", 30) {
		pp.Process(windowtest.Ev(fmt.Sprintf("e%d", i), k, int64(i), 1))
	}
	snap := snapshotOf(t, pp)
	empty := snapshotOf(t, newParallel(t, ParallelConfig{Processor: cfg, Parallelism: 2, MaxParallelism: maxP}))
	restoreOf(t, snap, 3, maxP) // the same maxParallelism restores at any parallelism

	for _, c := range []struct {
		what       string
		snap       []byte
		p, newMaxP int
	}{
		{"a snapshot with 30 keys", snap, 4, 64},
		{"a snapshot with 30 keys", snap, 4, 127},
		{"a snapshot with 30 keys", snap, 4, 129},
		{"a snapshot with 30 keys", snap, 4, 256},
		{"a snapshot with 30 keys", snap, 1, 1},
		{"an empty processor's snapshot", empty, 2, 256},
	} {
		call := fmt.Sprintf("RestoreParallelProcessor(<%s, maxParallelism %d>, %d, %d)", c.what, maxP, c.p, c.newMaxP)
		var got *ParallelProcessor
		var err error
		if panicked := suite.Catch(func() { got, err = RestoreParallelProcessor(c.snap, c.p, c.newMaxP) }); panicked != "" {
			t.Errorf("%s panicked: %s\nIt must return an error.", call, panicked)
			continue
		}
		switch {
		case err == nil:
			moved := 0
			for _, k := range keyNames("user-", 30) {
				if wantKeyGroup(k, maxP) != wantKeyGroup(k, c.newMaxP) {
					moved++
				}
			}
			t.Errorf("%s returned a processor and no error; want an error.\n"+
				"A key's key group is kit.StableHash(key) %% maxParallelism: with %d instead of %d, %d of the 30 keys belong to\n"+
				"another key group than the one their state was saved under, and each new subtask's KeyGroupRange would\n"+
				"select the wrong keys' state. maxParallelism is fixed for the life of the job's state; only the\n"+
				"parallelism may change.", call, c.newMaxP, maxP, moved)
		case got != nil:
			t.Errorf("%s returned the error %q AND a processor; on error, return nil", call, err)
		case !strings.Contains(err.Error(), strconv.Itoa(maxP)) || !strings.Contains(err.Error(), strconv.Itoa(c.newMaxP)):
			t.Errorf("%s returned the error %q;\nwant a message that names both maxParallelism values, %d (the snapshot's) and %d (asked for),\n"+
				"so that whoever restores the job knows which value to use and why the other cannot work.", call, err, maxP, c.newMaxP)
		}
	}
}

// TestRestoreRejectsInvalidParallelism certifies that restoring at a parallelism below 1 or above maxParallelism, or with a maxParallelism below 1, is an error.
func TestRestoreRejectsInvalidParallelism(t *testing.T) {
	defer suite.Recover(t)
	const maxP = 8
	pp := newParallel(t, ParallelConfig{Processor: Config{WindowSize: 10, WatermarkDelay: 100}, Parallelism: 2, MaxParallelism: maxP})
	for i, k := range keyNames("k", 12) {
		pp.Process(windowtest.Ev(fmt.Sprintf("e%d", i), k, int64(i), 1))
	}
	snap := snapshotOf(t, pp)
	for _, c := range []struct {
		p, maxP int
		why     string
	}{
		{9, maxP, "9 subtasks for 8 key groups: a key group is never split, so a subtask would own nothing"},
		{100, maxP, "100 subtasks for 8 key groups"},
		{0, maxP, "parallelism 0: no subtask to restore the state on"},
		{-1, maxP, "a negative parallelism"},
		{1, 0, "maxParallelism 0"},
	} {
		call := fmt.Sprintf("RestoreParallelProcessor(<snapshot taken with maxParallelism 8>, %d, %d)", c.p, c.maxP)
		var got *ParallelProcessor
		var err error
		if panicked := suite.Catch(func() { got, err = RestoreParallelProcessor(snap, c.p, c.maxP) }); panicked != "" {
			t.Errorf("%s panicked: %s\nIt must return an error: %s.", call, panicked, c.why)
			continue
		}
		if err == nil || got != nil {
			t.Errorf("%s = %v, %v; want nil and an error: %s.", call, got, err, c.why)
		}
	}
	restoreOf(t, snap, maxP, maxP) // parallelism = maxParallelism is the most there can be
}

// TestRestoreRejectsCorruptSnapshot certifies that RestoreParallelProcessor returns an error, never a panic or a processor, for nil, garbage, every truncation and every single changed byte of a snapshot (a seeded sample of them past 4 KiB), and for a snapshot whose checksum holds but which holds a key group outside 0…maxParallelism−1 or a window config NewParallelProcessor refuses.
func TestRestoreRejectsCorruptSnapshot(t *testing.T) {
	defer suite.Recover(t)
	const maxP = 16
	cfg := Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 100}
	pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: 3, MaxParallelism: maxP})
	rnd := suite.Rand(t)
	for _, o := range genOps(rnd, cfg, keyNames("k", 6), 25, 200)[:20] {
		o.Apply(pp)
	}
	snap := snapshotOf(t, pp)
	restoreOf(t, snap, 2, maxP)

	type input struct {
		what string
		b    []byte
	}
	inputs := []input{
		{"nil", nil},
		{"no bytes", []byte{}},
		{"text", []byte("not a snapshot at all")},
		{"the snapshot with one byte more", append(slices.Clone(snap), 0)},
	}
	// Every byte if the snapshot is small; a seeded sample (with both ends)
	// if it holds a 70 000-byte key.
	positions := windowtest.SamplePositions(rnd, len(snap))
	for _, n := range positions {
		inputs = append(inputs, input{fmt.Sprintf("the first %d of its %d bytes", n, len(snap)), snap[:n:n]})
	}
	for _, i := range positions {
		b := slices.Clone(snap)
		b[i] ^= 0x5a
		inputs = append(inputs, input{fmt.Sprintf("the snapshot with byte %d changed from %#02x to %#02x", i, snap[i], b[i]), b})
	}
	errs := &suite.ErrorCap{T: t, Max: 3}
	defer errs.Done()
	for _, in := range inputs {
		call := fmt.Sprintf("RestoreParallelProcessor(%s, 2, %d)", in.what, maxP)
		var got *ParallelProcessor
		var err error
		if panicked := suite.Catch(func() { got, err = RestoreParallelProcessor(in.b, 2, maxP) }); panicked != "" {
			errs.Errorf("%s panicked: %s\nIt must return an error: a savepoint comes from a file that may be truncated or damaged, and a job\n"+
				"that crashes while restoring never recovers. Check every length against the bytes left before slicing.", call, panicked)
			continue
		}
		if err == nil || got != nil {
			errs.Errorf("%s = %v, %v; want nil and an error.\nA parallel snapshot is checked like a stage-04 one: any missing, extra or changed byte\n"+
				"is detected (a length and a checksum over the whole of it), so that a damaged savepoint is never\n"+
				"restored as different state.", call, got, err)
		}
	}
	checkForgedSnapshotsRefused(t)
}

// checkForgedSnapshotsRefused fails t unless RestoreParallelProcessor
// refuses, without panicking, a snapshot whose checksum holds but which
// holds what no processor writes: a key group at or above maxParallelism,
// or a window config NewParallelProcessor refuses, in a snapshot with no
// key group yet, where no key group's state can give it away.
//
// The suite cannot know your layout: it moves one value in your bytes and
// seals them again when it can read your format's values and checksum
// (windowtest.CheckForged), and where it cannot, it says so and tries
// nothing.
func checkForgedSnapshotsRefused(t *testing.T) {
	t.Helper()
	const maxP = 32768
	// The first key whose key group takes 5 digits, 3 bytes as a varint:
	// a value found nowhere else in the snapshot. Moved up by maxP, it keeps
	// its length in every usual encoding.
	key := ""
	for i := 0; key == ""; i++ {
		if k := fmt.Sprintf("k%d", i); wantKeyGroup(k, maxP) >= 16384 {
			key = k
		}
	}
	kg := wantKeyGroup(key, maxP)
	pp := newParallel(t, ParallelConfig{Processor: Config{WindowSize: 100}, Parallelism: 2, MaxParallelism: maxP})
	pp.Process(windowtest.Ev("e1", key, 50, 1))
	const size = 123456789
	empty := newParallel(t, ParallelConfig{Processor: Config{WindowSize: size}, Parallelism: 2, MaxParallelism: maxP})
	windowtest.CheckForged(t, "RestoreParallelProcessor(%s, 2, 32768)", []windowtest.Forgery{
		{What: fmt.Sprintf("with the state of key group %d (key %q) moved to key group %d, past the last, %d", kg, key, kg+maxP, maxP-1),
			Snap: snapshotOf(t, pp), Moves: [][2]int64{{int64(kg), int64(kg + maxP)}},
			Why: "key groups are 0…maxParallelism−1: no processor writes another. Check every key group's number before you\n" +
				"look up its subtask."},
		{What: fmt.Sprintf("of a new processor, with WindowSize %d instead of %d", -size, size),
			Snap: snapshotOf(t, empty), Moves: [][2]int64{{size, -size}},
			Why: "NewParallelProcessor refuses a WindowSize below 1, so no processor has one: check the config itself, not\n" +
				"only through the key groups' state (a snapshot may have none)."},
	}, func(b []byte) (*ParallelProcessor, error) { return RestoreParallelProcessor(b, 2, maxP) })
}
