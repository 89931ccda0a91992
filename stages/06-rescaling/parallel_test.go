//go:build lab || solution

package rescaling

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestNewParallelProcessorRejectsInvalidConfig certifies that NewParallelProcessor returns an error for a parallelism outside 1..MaxParallelism, a MaxParallelism below 1, or an invalid window config.
func TestNewParallelProcessorRejectsInvalidConfig(t *testing.T) {
	defer suite.Recover(t)
	win := Config{WindowSize: 10}
	for _, c := range []struct {
		cfg ParallelConfig
		why string
	}{
		{ParallelConfig{Processor: win, Parallelism: 0, MaxParallelism: 8}, "parallelism 0: no subtask to run"},
		{ParallelConfig{Processor: win, Parallelism: -3, MaxParallelism: 8}, "a negative parallelism"},
		{ParallelConfig{Processor: win, Parallelism: 1, MaxParallelism: 0}, "maxParallelism 0: no key group for any key"},
		{ParallelConfig{Processor: win, Parallelism: 9, MaxParallelism: 8}, "9 subtasks but 8 key groups: a subtask would own nothing"},
		{ParallelConfig{Processor: Config{WindowSize: 0}, Parallelism: 2, MaxParallelism: 8}, "WindowSize 0 is invalid for NewProcessor"},
		{ParallelConfig{Processor: Config{WindowSize: 10, WatermarkDelay: -1}, Parallelism: 2, MaxParallelism: 8}, "a negative WatermarkDelay is invalid for NewProcessor"},
	} {
		pp, err := NewParallelProcessor(c.cfg)
		if err == nil || pp != nil {
			t.Errorf("NewParallelProcessor(%+v) = %v, %v; want nil and an error: %s", c.cfg, pp, err, c.why)
		}
	}
	for _, cfg := range []ParallelConfig{
		{Processor: win, Parallelism: 1, MaxParallelism: 1},
		{Processor: win, Parallelism: 8, MaxParallelism: 8},
		{Processor: win, Parallelism: 3, MaxParallelism: 32768},
	} {
		newParallel(t, cfg)
	}
}

// TestNewParallelProcessorStartsEmpty certifies that a new ParallelProcessor has the watermark math.MinInt64, no key on any subtask and an empty side output, at every parallelism.
func TestNewParallelProcessorStartsEmpty(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct{ p, maxP int }{{1, 1}, {3, 128}, {8, 8}} {
		pp := newParallel(t, ParallelConfig{Processor: Config{WindowSize: 10}, Parallelism: c.p, MaxParallelism: c.maxP})
		if wm := pp.Watermark(); wm != math.MinInt64 {
			t.Errorf("NewParallelProcessor(parallelism %d, maxParallelism %d).Watermark() = %s, want math.MinInt64: nothing has happened yet",
				c.p, c.maxP, kit.FormatWatermark(wm))
		}
		for i := range c.p {
			if keys := pp.KeysOn(i); len(keys) > 0 {
				t.Errorf("a new ParallelProcessor at parallelism %d: KeysOn(%d) = %s, want none", c.p, i, showKeys(keys))
			}
		}
		if late := pp.Late(); len(late) > 0 {
			t.Errorf("a new ParallelProcessor at parallelism %d: Late() = %s, want nothing", c.p, windowtest.FmtEvents(late))
		}
	}
}

// TestWatermarkIsBroadcastToEverySubtask certifies that an event on one subtask raises the watermark of all of them: windows of keys on other subtasks fire, and their events become late, in the same call.
func TestWatermarkIsBroadcastToEverySubtask(t *testing.T) {
	defer suite.Recover(t)
	const maxP, p = 128, 2
	x, y := keyOnSubtask(0, maxP, p), keyOnSubtask(1, maxP, p)
	where := whereIs(x, maxP, p) + ";\n" + whereIs(y, maxP, p)
	cfg := Config{WindowSize: 10}
	r := windowtest.NewRun(t, newParallel(t, ParallelConfig{Processor: cfg, Parallelism: p, MaxParallelism: maxP}), cfg.WindowSize, 0)
	ev := windowtest.Ev

	r.Expect(fmt.Sprintf("Process(e1 %s@3=1)", x), r.Process(ev("e1", x, 3, 1)), nil, "a window fires on the watermark, not on arrival")
	r.Expect(fmt.Sprintf("Process(e2 %s@12=2)", y), r.Process(ev("e2", y, 12, 2)),
		[]kit.Result{windowtest.Res(x, 0, 10, 1, 1)},
		fmt.Sprintf("%s.\ne2 raises the stream's watermark to 12, past the end of %s's window [0,10), which lives on the OTHER subtask.\n"+
			"There is one stream and one watermark: broadcast it to every subtask, as Flink broadcasts a watermark\n"+
			"to all downstream channels. A per-subtask watermark keeps [0,10) open until %s's own events move it.", where, x, x))
	r.Expect(fmt.Sprintf("Process(e3 %s@7=4)", x), r.Process(ev("e3", x, 7, 4)), nil,
		"e3 belongs to [0,10), which the watermark 12 has closed: it is late, even though its subtask saw nothing later from "+x)
	r.ExpectLate([]kit.Event{ev("e3", x, 7, 4)}, "e3 arrived after the stream's watermark passed its window's end")
	r.Expect("AdvanceWatermark(25)", r.Advance(25), []kit.Result{windowtest.Res(y, 10, 20, 1, 2)},
		"AdvanceWatermark reaches every subtask: "+y+"'s window [10,20) ends at 20 ≤ 25")
	r.Expect(fmt.Sprintf("Process(e4 %s@31=8)", x), r.Process(ev("e4", x, 31, 8)), nil, "nothing ends at or before 31 that has not fired")
	r.Expect(fmt.Sprintf("Process(e5 %s@45=16)", y), r.Process(ev("e5", y, 45, 16)),
		[]kit.Result{windowtest.Res(x, 30, 40, 1, 8)},
		"e5 on "+y+"'s subtask raises the watermark to 45, closing "+x+"'s [30,40) on the other subtask")
	if wm := r.Watermark(); wm != 45 {
		r.Errorf("Watermark() = %s, want 45: the stream's watermark is the largest timestamp seen on ANY subtask minus the delay",
			kit.FormatWatermark(wm))
	}
	r.Expect("Flush()", r.Flush(), []kit.Result{windowtest.Res(y, 40, 50, 1, 16)}, "Flush fires what is left, on every subtask")
}

// TestLateOutputKeepsArrivalOrderAcrossSubtasks certifies that Late() holds the late events of all subtasks in arrival order, each once, not subtask by subtask.
func TestLateOutputKeepsArrivalOrderAcrossSubtasks(t *testing.T) {
	defer suite.Recover(t)
	const maxP, p = 128, 3
	x, y, z := keyOnSubtask(0, maxP, p), keyOnSubtask(1, maxP, p), keyOnSubtask(2, maxP, p)
	cfg := Config{WindowSize: 10}
	r := windowtest.NewRun(t, newParallel(t, ParallelConfig{Processor: cfg, Parallelism: p, MaxParallelism: maxP}), cfg.WindowSize, 0)
	ev := windowtest.Ev
	r.ProcessAll(ev("e1", x, 50, 1), ev("e2", y, 51, 1), ev("e3", z, 52, 1))
	late := []kit.Event{
		ev("l1", y, 1, 1), ev("l2", x, 2, 1), ev("l3", z, 3, 1), ev("l4", y, 4, 1),
		ev("l5", x, 5, 1), ev("l6", x, 6, 1), ev("l7", z, 7, 1),
	}
	r.ProcessAll(late...)
	// Redeliveries of late events are no-ops, not late twice.
	r.ProcessAll(late[1], late[0], late[6])
	r.ExpectLate(late, fmt.Sprintf("%s, %s and %s live on subtasks 0, 1 and 2. Every l-event arrived after the watermark (52) passed\n"+
		"the end of its window [0,10): the side output holds them in ARRIVAL order, across subtasks, as one Processor's would.\n"+
		"Concatenating the subtasks' side outputs loses that order. The last three arrivals repeat IDs already seen: no-ops.", x, y, z))
}

// parallelConfigs are the window configurations of the randomised parallel
// tests, each with the disorder of its input. The second has disorder above
// the delay and allowed lateness: corrections and late events happen. The
// third's lateness is so large that end + AllowedLateness overflows: every
// window takes corrections until Flush, and a restore whose expiry check
// does not saturate refuses its state.
var parallelConfigs = []struct {
	name  string
	cfg   Config
	bound int64
}{
	{"in-delay", Config{WindowSize: 100, WatermarkDelay: 50}, 50},
	{"lateness", Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: 150}, 250},
	{"huge-lateness", Config{WindowSize: 100, WatermarkDelay: 30, AllowedLateness: math.MaxInt64}, 250},
}

// parallelKeys are the keys of the randomised tests: enough to spread over
// every subtask.
var parallelKeys = keyNames("k", 24)

// TestParallelResultsEqualSingleProcessor certifies that at parallelism 1, 2, 3 and 7 every call returns exactly what one Processor returns for the same seeded, shuffled, duplicated calls, with the same watermark and side output.
func TestParallelResultsEqualSingleProcessor(t *testing.T) {
	defer suite.Recover(t)
	for _, pc := range parallelConfigs {
		for _, maxP := range []int{7, 128} {
			for _, p := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("%s/maxP=%d/p=%d", pc.name, maxP, p), func(t *testing.T) {
					defer suite.Recover(t)
					ops := genOps(suite.Rand(t), pc.cfg, parallelKeys, 120, pc.bound)
					want := singleRun(t, pc.cfg, ops)
					pp := newParallel(t, ParallelConfig{Processor: pc.cfg, Parallelism: p, MaxParallelism: maxP})
					r := windowtest.NewRun(t, pp, pc.cfg.WindowSize, pc.cfg.AllowedLateness)
					for k, o := range ops {
						got := r.Apply(o)
						if !slices.Equal(got, want.Outs[k]) {
							msg := fmt.Sprintf("Config %+v, maxParallelism %d, parallelism %d: call %d of %d, %v, returned\n%s\none Processor returned\n%s",
								pc.cfg, maxP, p, k+1, len(ops), o, windowtest.FmtResults(got), windowtest.FmtResults(want.Outs[k]))
							t.Errorf("%s\n%s\n\n%s%s", msg, parallelHint(got, want.Outs[k], maxP, p),
								callTimeline(pc.cfg, ops[:k+1], r.Emitted(), pp, got, want.Outs[k]), r.Picture(msg, got, want.Outs[k]))
							return
						}
						if wm := pp.Watermark(); wm != want.WMs[k] {
							msg := fmt.Sprintf("Config %+v, maxParallelism %d, parallelism %d: after call %d, %v, Watermark() = %s; one Processor's is %s.\n"+
								"The stream has one watermark: max timestamp − delay over ALL subtasks' events, raised by AdvanceWatermark.",
								pc.cfg, maxP, p, k+1, o, kit.FormatWatermark(wm), kit.FormatWatermark(want.WMs[k]))
							t.Errorf("%s%s", msg, r.Picture(msg, nil, nil))
							return
						}
					}
					if late := pp.Late(); !slices.Equal(late, want.Late) {
						msg := fmt.Sprintf("Config %+v, maxParallelism %d, parallelism %d: Late() = %s\none Processor's: %s\n"+
							"The side output is the late events of every subtask, each once, in arrival order.",
							pc.cfg, maxP, p, windowtest.FmtEvents(late), windowtest.FmtEvents(want.Late))
						t.Errorf("%s%s", msg, r.Picture(msg, nil, nil))
					}
				})
			}
		}
	}
}

// parallelHint explains, for the keys of the results that differ, where
// they live, and names the usual causes.
func parallelHint(got, want []kit.Result, maxP, p int) string {
	missing, extra := windowtest.Unmatched(got, want)
	var lines []string
	if len(missing)+len(extra) == 0 {
		lines = append(lines, "The same results in another order: one call's results are ordered by (End, Start, Key) ACROSS subtasks;\n"+
			"merge what every subtask returned, then kit.SortResults.")
	} else {
		lines = append(lines, strings.TrimRight(windowtest.DiffResults(got, want), "\n"))
		for _, k := range keysOf(missing, extra) {
			lines = append(lines, whereIs(k, maxP, p))
		}
		lines = append(lines, "Results must not depend on the parallelism: route each event to the subtask of its key group, broadcast\n"+
			"every watermark raise to every subtask, and judge lateness against the stream's watermark.")
	}
	return strings.Join(lines, "\n")
}

// callTimeline draws the window of the first difference between got and
// want, over the events of ops: what the parallel run did there.
func callTimeline(cfg Config, ops []op, emitted []kit.Result, pp *ParallelProcessor, got, want []kit.Result) string {
	first, ok := windowtest.FirstDifference(kit.SortResults(slices.Clone(got)), kit.SortResults(slices.Clone(want)))
	if !ok {
		return ""
	}
	start, end := first.Start, first.End
	tl := kit.Timeline{WindowSize: cfg.WindowSize, Lateness: cfg.AllowedLateness, Events: eventsOf(ops),
		Watermark: watermarkOrNone(pp), Results: emitted, Late: pp.Late()}
	return fmt.Sprintf("your parallel run, only window [%d,%d), arrival order:\n%s", start, end, windowtest.OnlyWindow(tl, start, end).String())
}

// TestKeysLiveOnTheSubtaskOwningTheirKeyGroup certifies that KeysOn(i) lists exactly the keys whose key group is in KeyGroupRange(i), and nothing once every window has fired.
func TestKeysLiveOnTheSubtaskOwningTheirKeyGroup(t *testing.T) {
	defer suite.Recover(t)
	keys := keyNames("user-", 80)
	for _, c := range []struct{ maxP, p int }{{128, 1}, {128, 3}, {128, 4}, {128, 7}, {10, 3}, {10, 10}} {
		t.Run(fmt.Sprintf("maxP=%d/p=%d", c.maxP, c.p), func(t *testing.T) {
			defer suite.Recover(t)
			cfg := Config{WindowSize: 100, WatermarkDelay: 1000} // nothing fires before Flush
			pp := newParallel(t, ParallelConfig{Processor: cfg, Parallelism: c.p, MaxParallelism: c.maxP})
			rnd := suite.Rand(t)
			for i, k := range keys {
				pp.Process(windowtest.Ev(fmt.Sprintf("e%d", i), k, rnd.Int64N(300), 1))
			}
			checkKeysOn(t, pp, keys, c.maxP, c.p, fmt.Sprintf("after one event for each of %d keys", len(keys)))
			pp.Flush()
			for i := range c.p {
				if got := pp.KeysOn(i); len(got) != 0 {
					t.Errorf("after Flush, KeysOn(%d) = %v; want none: Flush fires every window and drops its state", i, got)
					break
				}
			}
		})
	}
}

// checkKeysOn fails t unless KeysOn(i) of pp, at parallelism p, is exactly
// the keys among keys whose key group subtask i owns, sorted.
func checkKeysOn(t *testing.T, pp *ParallelProcessor, keys []string, maxP, p int, when string) {
	t.Helper()
	want := make([][]string, p)
	for _, k := range keys {
		i := wantSubtaskOf(k, maxP, p)
		want[i] = append(want[i], k)
	}
	errs := &suite.ErrorCap{T: t, Max: 3}
	defer errs.Done()
	for i := range p {
		slices.Sort(want[i])
		got := pp.KeysOn(i)
		if slices.Equal(got, want[i]) {
			continue
		}
		first, last := wantRange(i, maxP, p)
		var wrong, lost []string
		for _, k := range got {
			if !slices.Contains(want[i], k) {
				wrong = append(wrong, "  "+whereIs(k, maxP, p))
			}
		}
		for _, k := range want[i] {
			if !slices.Contains(got, k) {
				lost = append(lost, k)
			}
		}
		msg := fmt.Sprintf("%s (maxParallelism %d, parallelism %d): KeysOn(%d) = %s\nwant %s: the keys whose key group is in subtask %d's range [%d,%d], sorted.",
			when, maxP, p, i, showKeys(got), showKeys(want[i]), i, first, last)
		if len(wrong) > 0 {
			msg += "\nNot this subtask's:\n" + strings.Join(wrong, "\n") +
				"\nA key's state lives on TaskForKeyGroup(KeyGroup(key, maxP), maxP, p), never on hash % p or on the subtask it used to be on."
		}
		if len(lost) > 0 {
			msg += "\nMissing here: " + showKeys(lost)
		}
		if len(wrong) == 0 && len(lost) == 0 {
			msg += "\nThe same keys in another order, or repeated: sort them, each once."
		}
		errs.Errorf("%s", msg)
	}
}
