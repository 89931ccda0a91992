package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/kit"
	"github.com/flk-byo/course/solutions"
)

// demos are the demos by stage number. Only this file and the stages'
// stageNN.go files use the reference: a student template without
// solutions/ (de classroom template) gets, in this one's place, one with
// no demos, and leaves the others out.
var demos = map[int]demo{
	1: {"out-of-order and duplicated events in tumbling windows", demo01},
	2: {"a keyed reduction on parallel workers", demo02},
	3: {"a late correction within the allowed lateness", demo03},
	4: {"a snapshot and a restore", demo04},
	5: {"a crash between pre-commit and commit", demo05},
	6: {"a rescale from 2 to 3 subtasks", demo06},
	7: {"a quiet partition, without and with idleness", demo07},
	8: {"a late event that bridges two sessions", demo08},
	9: {"one event in several sliding windows, each judging it on its own", demo09},
	10: {"seen IDs forgotten behind the watermark, one short of the line and on it", demo10(func(size, lateness int64) solutions.Config {
		return solutions.Config{WindowSize: size, AllowedLateness: lateness}
	}, solutions.NewSeenTTLProcessor, solutions.NewProcessor)},
	11: {"a rule that arrives after its window fired, and a late one", demo11},
	12: {"state on disk in Pebble: a checkpoint, a crash, a restore", demo12},
}

// stream returns stage n's demo stream (internal/demostream), which
// de flink runs through the learner's lab/ and Flink too.
func stream(n int) demostream.Stream {
	s, ok := demostream.Of(n)
	if !ok {
		panic(fmt.Sprintf("demostream has no stream for stage %02d", n)) // the demos below name only stages that have one
	}
	return s
}

func demo01(n *narrator) error {
	s := stream(1)
	cfg := solutions.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay}
	p, err := solutions.NewProcessor(cfg)
	if err != nil {
		return err
	}
	e := s.Events
	n.say("Tumbling windows of 10 ms, watermark = largest timestamp seen − 5.")
	t := newTape(n, p, cfg.WindowSize, 0, 0)

	n.step("events in order fill their windows; nothing fires yet")
	t.process(e[0], "")
	t.process(e[1], "")
	t.process(e[2], "window [10,20) opens; the watermark is 7, below 10, so [0,10) stays open")
	t.picture()

	n.step("an out-of-order event that is still on time")
	t.process(e[3], "it arrives after e3@12 but the watermark (7) has not passed its window's end (10): counted")

	n.step("a duplicate: at-least-once input delivers e2 again")
	t.process(e[4], "")
	t.picture()

	n.step("the watermark passes 10: window [0,10) fires")
	t.process(e[5], "watermark 16 − 5 = 11 ≥ 10: every key's [0,10) result goes out, in (End, Start, Key) order")

	n.step("an event for a window that has fired: late")
	t.process(e[6], "with no allowed lateness, [0,10) expired when it fired")
	t.picture()

	n.step("end of input")
	t.flush()
	t.picture()
	n.say("\nEach event counted once, e4 despite its disorder, e2 despite its redelivery; e6 is in Late, never lost.")
	return nil
}

func demo02(n *narrator) error {
	s := stream(2)
	events, workers := s.Events, s.Parallelism
	n.say("Sum the values per key on %d workers: FromSlice → KeyBy(Key) → Reduce(sum, %d) → RunParallel.", workers, workers)

	n.step("every key has one worker: PartitionOf(key, 3) = StableHash(key) mod 3")
	keys := []string{"alice", "bob", "carol", "dave"}
	for _, k := range keys {
		n.say("%-6s → worker %d", k, solutions.PartitionOf(k, workers))
	}
	assign := solutions.WorkerAssignment(keys, workers)
	for w := range workers {
		var on []string
		for _, k := range keys {
			if assign[k] == w {
				on = append(on, k)
			}
		}
		n.say("worker %d holds %s", w, orNone(on))
	}

	n.step("run it: each worker folds its keys, in stream order")
	src := solutions.FromSlice(events)
	sum := func(acc, v kit.Event) kit.Event { acc.Value += v.Value; return acc }
	got := solutions.RunParallel(solutions.KeyBy(src, func(e kit.Event) string { return e.Key }).Reduce(sum, workers))
	want := map[string]int64{}
	for _, e := range events {
		want[e.Key] += e.Value
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		n.say("%-6s sum %2d (sequential fold: %d)", k, got[k].Value, want[k])
	}
	n.say("\nThe same answer as one sequential pass, for any number of workers: a key's elements all meet on one worker.")
	return nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "no key"
	}
	return strings.Join(xs, ", ")
}

func demo03(n *narrator) error {
	s := stream(3)
	cfg := solutions.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness}
	p, err := solutions.NewProcessor(cfg)
	if err != nil {
		return err
	}
	e := s.Events
	n.say("Tumbling windows of 10 ms, watermark = largest timestamp seen, allowed lateness 10:")
	n.say("a window fires when the watermark reaches its end and keeps its state 10 ms longer.")
	t := newTape(n, p, cfg.WindowSize, 0, cfg.AllowedLateness)

	n.step("window [0,10) fires")
	t.process(e[0], "")
	t.process(e[1], "")
	t.process(e[2], "")
	t.picture()

	n.step("a late correction: an event for [0,10) after it fired, within the lateness")
	t.process(e[3], "the watermark (11) is below 10 + 10: the window still has its state, so it re-emits, as an update")
	t.picture()

	n.step("the watermark passes 20: [0,10) expires")
	t.process(e[4], "[10,20) fires; [0,10) is dropped, its lateness over")
	t.process(e[5], "[0,10) no longer exists: too late even for a correction")
	t.picture()

	n.step("end of input")
	t.flush()
	n.say("\nDownstream, keeping the last result per window: %s", held(lastPerWindow(t.emitted)))
	return nil
}

// lastPerWindow keeps, per key and window, the last result: what a
// consumer of updates holds.
func lastPerWindow(rs []kit.Result) []kit.Result {
	type w struct {
		key        string
		start, end int64
	}
	last := map[w]kit.Result{}
	for _, r := range rs {
		r.IsUpdate = false
		last[w{r.Key, r.Start, r.End}] = r
	}
	return slices.Collect(maps.Values(last))
}

func demo04(n *narrator) error {
	s := stream(4)
	cfg := solutions.Config{WindowSize: s.WindowSize, WatermarkDelay: s.WatermarkDelay, AllowedLateness: s.AllowedLateness}
	p, err := solutions.NewProcessor(cfg)
	if err != nil {
		return err
	}
	// before the snapshot; the restored processor's first event replays
	// the last of them, then rest come.
	before, replay, rest := s.Events[:s.RestoreAfter], s.Events[s.RestoreAfter], s.Events[s.RestoreAfter+1:]
	n.say("Tumbling windows of 10 ms, watermark = largest timestamp seen. A snapshot is all of the")
	n.say("processor's state as bytes; a restored processor continues exactly where the first one was.")
	t := newTape(n, p, cfg.WindowSize, 0, 0)

	n.step("process, then take a snapshot")
	for _, e := range before {
		t.process(e, "")
	}
	snap, err := p.Snapshot()
	if err != nil {
		return err
	}
	n.say("snapshot: %d bytes, magic %q, format version %d: watermark, seen IDs, open windows, with a CRC-32C",
		len(snap), snap[:4], snap[4])
	t.picture()

	n.step("the job goes on, then crashes")
	for _, e := range rest {
		t.process(e, "")
	}
	n.say("the process dies here: everything after the snapshot is lost")

	n.step("restore from the snapshot and replay the source from there")
	q, err := solutions.RestoreProcessor(snap)
	if err != nil {
		return err
	}
	n.say("restored: watermark %s, as at the snapshot", kit.FormatWatermark(q.Watermark()))
	r := newTape(n, q, cfg.WindowSize, 0, 0)
	r.resumeFrom(t, len(before))
	r.process(replay, "e3 is among the seen IDs in the snapshot: a replayed duplicate changes nothing")
	for _, e := range rest {
		r.process(e, "")
	}
	r.flush()
	t.emitted = append(t.emitted, p.Flush()...) // the uncrashed run, for comparison
	r.picture()
	if sameResults(r.emitted, t.emitted) {
		n.say("\nThe restored run emits exactly what the uncrashed one did: %s", held(r.emitted))
	} else {
		return errors.New("demo 04: the restored run differs from the original")
	}
	return nil
}

// crash is the panic value demo05 crashes the job with.
type crash struct{}

func demo05(n *narrator) error {
	dir, err := os.MkdirTemp("", "de-demo-05-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s := stream(5)
	source := s.Events
	cfg := solutions.JobConfig{Processor: solutions.Config{WindowSize: s.WindowSize}, Dir: dir, CheckpointEvery: s.CheckpointEvery}
	n.say("RunJob: source → windows of 10 ms → two-phase-commit sink, a checkpoint after every 2 events.")
	n.say("The source is %s.", eventsList(source))

	n.step("run the job; it crashes after pre-committing checkpoint 2, before storing it")
	var steps []string
	crashAt := s.CrashAfterPreCommit
	cfg.OnStep = func(s solutions.Step, id int64) {
		if s == solutions.StepWrite {
			return
		}
		steps = append(steps, fmt.Sprintf("%s %d", s, id))
		if s == solutions.StepAfterPreCommit && id == crashAt {
			panic(crash{})
		}
	}
	crashed, err := runCrashing(cfg, source)
	if err != nil {
		return err
	}
	n.say("protocol steps: %s", strings.Join(steps, " → "))
	if crashed {
		n.say("💥 crash at after-pre-commit 2")
	}
	files, err := listFiles(dir)
	if err != nil {
		return err
	}
	n.say("files left behind: %s", strings.Join(files, ", "))
	committed, err := solutions.ReadCommitted(dir)
	if err != nil {
		return err
	}
	n.say("a reader sees only committed results: %s", resultsOrNone(committed))
	n.say("staged/2.jsonl holds checkpoint 2's results, durable but invisible: its checkpoint was never stored.")

	n.step("restart: recover from checkpoint 1, abort transaction 2, replay from offset 2")
	steps = nil
	cfg.OnStep = func(s solutions.Step, id int64) {
		if s != solutions.StepWrite {
			steps = append(steps, fmt.Sprintf("%s %d", s, id))
		}
	}
	if err := solutions.RunJob(cfg, source); err != nil {
		return err
	}
	n.say("protocol steps: %s", strings.Join(steps, " → "))
	committed, err = solutions.ReadCommitted(dir)
	if err != nil {
		return err
	}
	n.say("committed now: %s", resultsOrNone(committed))

	n.step("exactly once")
	p, _ := solutions.NewProcessor(cfg.Processor)
	var want []kit.Result
	for _, e := range source {
		want = append(want, p.Process(e)...)
	}
	want = append(want, p.Flush()...)
	if !sameResults(committed, want) {
		return errors.New("demo 05: the recovered job did not commit each result exactly once")
	}
	n.say("The committed results are exactly those of one uncrashed run: none lost, none twice.")
	n.picture(kit.Timeline{WindowSize: 10, Events: source, Watermark: p.Watermark(), Results: committed})
	return nil
}

// runCrashing runs the job and reports whether it crashed (panicked with
// crash{}); any other panic goes on.
func runCrashing(cfg solutions.JobConfig, source []kit.Event) (crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return false, solutions.RunJob(cfg, source)
}

// listFiles lists the files under dir, relative and sorted.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	slices.Sort(out)
	return out, err
}

func eventsList(es []kit.Event) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func resultsOrNone(rs []kit.Result) string {
	if len(rs) == 0 {
		return "(nothing)"
	}
	return strings.TrimPrefix(describe(rs), "emits ")
}

func demo06(n *narrator) error {
	s := stream(6)
	maxP := s.MaxParallelism
	cfg := solutions.ParallelConfig{Processor: solutions.Config{WindowSize: s.WindowSize}, Parallelism: s.Parallelism, MaxParallelism: maxP}
	pp, err := solutions.NewParallelProcessor(cfg)
	if err != nil {
		return err
	}
	var keys []string
	for _, e := range s.Events[:s.RestoreAfter] {
		keys = append(keys, e.Key)
	}
	n.say("Windows of 10 ms on 2 subtasks, max parallelism %d: each key belongs to a key group,", maxP)
	n.say("and each subtask owns a contiguous range of key groups.")

	n.step("run on 2 subtasks")
	for i := range 2 {
		first, last := solutions.KeyGroupRange(i, maxP, 2)
		n.say("subtask %d owns key groups %d–%d", i, first, last)
	}
	for _, k := range keys {
		kg := solutions.KeyGroup(k, maxP)
		n.say("key %s → key group %d → subtask %d", k, kg, solutions.TaskForKeyGroup(kg, maxP, 2))
	}
	t := newTape(n, pp, 10, 0, 0)
	for _, e := range s.Events[:s.RestoreAfter] {
		t.process(e, "")
	}
	for i := range 2 {
		n.say("state on subtask %d: keys %s", i, orNone(pp.KeysOn(i)))
	}

	n.step("snapshot, then restore on 3 subtasks")
	snap, err := pp.Snapshot()
	if err != nil {
		return err
	}
	qq, err := solutions.RestoreParallelProcessor(snap, s.RestoreParallelism, maxP)
	if err != nil {
		return err
	}
	for i := range 3 {
		first, last := solutions.KeyGroupRange(i, maxP, 3)
		n.say("subtask %d owns key groups %d–%d: keys %s", i, first, last, orNone(qq.KeysOn(i)))
	}
	n.say("Whole key groups moved; no key was split, none re-hashed: the key group of a key never changes.")

	n.step("carry on at the new parallelism")
	t.moveTo(qq)
	t.process(s.Events[s.RestoreAfter], "the watermark passes 10: every key's [0,10) fires, on whichever subtask now holds it")
	t.process(s.Events[s.RestoreAfter+1], "a replay of e2 after the rescale: its key group's seen IDs moved with it")
	t.flush()
	t.picture()

	one, _ := solutions.NewProcessor(cfg.Processor)
	var want []kit.Result
	for _, e := range t.events {
		want = append(want, one.Process(e)...)
	}
	want = append(want, one.Flush()...)
	if !sameResults(t.emitted, want) {
		return errors.New("demo 06: the rescaled run differs from one processor")
	}
	n.say("\nThe same results as one processor over the same events, before and after the rescale.")
	return nil
}

func demo07(n *narrator) error {
	n.say("Two source partitions, each with watermark = its largest timestamp; the combined watermark")
	n.say("is the minimum over the partitions that are not idle. Partition 1 speaks once, then goes quiet.")
	n.say("Windows of 10 ms downstream follow the combined watermark.")
	for _, timeout := range []time.Duration{0, 5 * time.Second} {
		if err := quietPartition(n, timeout); err != nil {
			return err
		}
	}
	n.say("\nWithout idleness one quiet partition holds every window back; with it, the watermark moves on,")
	n.say("at the price of treating that partition's late return as late data.")
	return nil
}

// quietPartition runs demo07's script with the given idle timeout.
func quietPartition(n *narrator, timeout time.Duration) error {
	clock := kit.NewManualClock(time.Unix(0, 0))
	w, err := solutions.NewWatermarks(solutions.WatermarkConfig{Partitions: 2, IdleTimeout: timeout}, clock)
	if err != nil {
		return err
	}
	p, err := solutions.NewUpstreamProcessor(solutions.Config{WindowSize: 10})
	if err != nil {
		return err
	}
	if timeout == 0 {
		n.step("no idle timeout")
	} else {
		n.step(fmt.Sprintf("idle timeout %v", timeout))
	}
	t := newTape(n, p, 10, 0, 0)
	script := []struct {
		at   time.Duration
		part int
		e    kit.Event
	}{
		{0, 0, ev("e1", "a", 1, 1)}, {0, 1, ev("e2", "b", 2, 2)},
		{time.Second, 0, ev("e3", "a", 8, 3)}, {2 * time.Second, 0, ev("e4", "a", 14, 4)},
		{3 * time.Second, 0, ev("e5", "a", 23, 5)}, {8 * time.Second, 0, ev("e6", "a", 31, 6)},
		{9 * time.Second, 1, ev("e7", "b", 5, 7)},
	}
	for _, s := range script {
		clock.Advance(s.at - clock.Now().Sub(time.Unix(0, 0)))
		w.Observe(s.part, s.e.TS)
		n.say("t=%v partition %d:", s.at, s.part)
		t.process(s.e, "")
		t.steps[len(t.steps)-1].Label = fmt.Sprintf("p%d %v", s.part, s.e) // the figure names the partition
		wm := w.Current()
		idle := ""
		if w.Idle(1) {
			idle = " (partition 1 is idle)"
		}
		out := t.advanceQuiet(wm)
		n.say("  combined watermark %s%s: %s", kit.FormatWatermark(wm), idle, describe(out))
	}
	t.picture()
	return nil
}

func demo08(n *narrator) error {
	s := stream(8)
	e := s.Events
	cfg := solutions.SessionConfig{Gap: s.Gap, AllowedLateness: s.AllowedLateness}
	p, err := solutions.NewSessionProcessor(cfg)
	if err != nil {
		return err
	}
	n.say("Session windows with a gap of 10 ms and allowed lateness 30; the watermark comes from upstream.")
	n.say("Each event opens [ts, ts+10); sessions of a key that touch merge. The output is a changelog:")
	n.say("a session that replaces earlier results retracts them first (negative count and sum).")
	t := newTape(n, p, 0, cfg.Gap, cfg.AllowedLateness)

	n.step("two sessions of a, one of b")
	t.process(e[0], "")
	t.process(e[1], "18 is more than 10 after 0: a second session")
	t.process(e[2], "")
	t.advance(30)
	n.say("downstream holds %s", held(t.emitted))
	t.picture()

	n.step("a late bridge: a@9 joins both sessions of a")
	t.process(e[3], "[9,19) touches [0,10) and [18,28): they merge into [0,28), which the watermark has passed, so it fires at once")
	n.say("downstream holds %s", held(t.emitted))
	t.picture()

	n.step("too late: the watermark passes 28 + 30")
	t.advance(60)
	t.process(e[4], "[5,15) would need a session that has expired")
	t.flush()
	n.say("downstream holds %s", held(t.emitted))
	t.picture()
	return nil
}
