//go:build lab || solution

package broadcast

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestRestoreContinuesAtAnyParallelism certifies that a processor restored from a snapshot, at the same or another parallelism, gives the alerts the uninterrupted run gives, with the broadcast state on every new subtask, the pending results and both watermarks kept, and empty side outputs.
func TestRestoreContinuesAtAnyParallelism(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for trial := range 5 {
		cfg := cfgOf(3, 4, 5)
		events, rules := eventStream(rnd, 50, 100, 4), ruleStream(rnd, 16, 110)
		ops := append(interleave(rnd, events, rules), flush())
		whole := newRun(t, cfg)
		whole.do(ops...)
		// before walks the run call by call; after every call it is
		// snapshotted, restored at another parallelism in turn, and the
		// restored processor makes the rest of the calls.
		before := newRun(t, cfg)
		for cut := range len(ops) + 1 {
			if cut > 0 {
				before.do(ops[cut-1])
			}
			p := []int{1, 2, 3, 5}[cut%4]
			rulesBefore := before.b.RulesOn(0)
			wmBefore := before.b.Watermark()
			after := before.restore(p)
			where := fmt.Sprintf("trial %d: snapshot after call %d of %d at parallelism 3, restored at %d", trial, cut, len(ops), p)
			if got := after.b.Watermark(); got != wmBefore {
				t.Fatalf("%s", before.report(fmt.Sprintf("%s: Watermark() = %d; want %d, the snapshotted processor's\n", where, got, wmBefore)))
			}
			for i := range p {
				if got := after.b.RulesOn(i); !slices.Equal(got, rulesBefore) {
					t.Fatalf("%s", before.report(fmt.Sprintf("%s: RulesOn(%d) = %v\nwant %v, the broadcast state before the snapshot: every subtask of a\n"+
						"restored job gets a copy of it, new subtasks too (Flink hands each new task a copy).\n",
						where, i, got, rulesBefore)))
				}
			}
			if lr, le := after.b.LateRules(), after.b.Late(); len(lr) != 0 || len(le) != 0 {
				t.Fatalf("%s", after.report(fmt.Sprintf("%s: LateRules() = %v, Late() = %v; want both empty: side outputs are output, not state\n", where, lr, le)))
			}
			after.do(ops[cut:]...)
			got := append(slices.Clone(before.alerts), after.alerts...)
			if !slices.Equal(got, whole.alerts) {
				missing, extra := alertDiff(got, whole.alerts)
				t.Fatalf("%s", after.report(fmt.Sprintf("%s: the alerts differ from the uninterrupted run's.\nmissing:\n%sextra:\n%s"+
					"A snapshot holds the keyed windows, the broadcast state, the rules' watermark and the results\n"+
					"still waiting for it: a restored processor goes on exactly as the snapshotted one would.\n",
					where, fmtAlerts(missing), fmtAlerts(extra))))
			}
		}
	}
}

// TestSnapshotKeepsPendingResults certifies that a window result that fired but waits for the rules' watermark survives a snapshot and a rescale, and alerts after it.
func TestSnapshotKeepsPendingResults(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(2, 0, 0))
	r.do(rule(rl("", 5, 2)), event(ev("e1", "a", 3, 5)), event(ev("e2", "b", 4, 6)), eventWM(10))
	for _, p := range []int{1, 2, 4} {
		after := r.restore(p)
		want := []Alert{{Result: res("a", 0, 10, 1, 5), Rule: rl("", 5, 2)}, {Result: res("b", 0, 10, 1, 6), Rule: rl("", 5, 2)}}
		after.expect(after.do(ruleWM(10)), want,
			"a [0,10) and b [0,10) had fired and were waiting for the rules' watermark when the snapshot was taken: they\n"+
				"are state (Flink keeps them in keyed state, with a timer), and the snapshot must keep them.")
	}
}

// TestSnapshotBytes certifies that equal state gives equal bytes (after the same calls, and after the same rules in another order), that a processor restored at the same parallelism snapshots to the bytes it came from, that the bytes never change after Snapshot returns, and that a restored processor shares no memory with them.
func TestSnapshotBytes(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	ops := interleave(rnd, eventStream(rnd, 40, 80, 4), ruleStream(rnd, 12, 90))
	x, y := newRun(t, cfgOf(3, 4, 5)), newRun(t, cfgOf(3, 4, 5))
	x.do(ops...)
	y.do(ops...)
	snap := snapshotOf(t, x.b)
	if other := snapshotOf(t, y.b); !bytes.Equal(snap, other) {
		t.Fatalf("two processors after the same calls snapshot to different bytes:\n%s\nEqual state gives equal bytes: write maps in a fixed order.",
			suite.ByteDiff(snap, other))
	}
	// Equal state from different histories: the same on-time rules, ties
	// included, in two orders give one broadcast state, so one snapshot.
	rules := []op{rule(rl("a", 5, 1)), rule(rl("a", 3, 1)), rule(rl("b", 7, 2)), rule(rl("", 1, 0)), rule(rl("ab", 2, 3)), rule(rl("a", 9, 4))}
	shuffled := slices.Clone(rules)
	rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	slices.Reverse(rules) // so the two orders differ whatever the shuffle did
	u, v := newRun(t, cfgOf(3, 4, 5)), newRun(t, cfgOf(3, 4, 5))
	u.do(rules...)
	v.do(shuffled...)
	if a, b := snapshotOf(t, u.b), snapshotOf(t, v.b); !bytes.Equal(a, b) {
		t.Fatalf("%s", u.report(fmt.Sprintf("the same on-time rules, arrived in two orders, snapshot to different bytes:\n%s\n"+
			"They are the same broadcast state (RulesOn is the same), so the snapshot must be the same bytes: write the rules\n"+
			"in (Prefix, TS) order, never in the order they arrived.\n", suite.ByteDiff(a, b))))
	}
	if again := snapshotOf(t, restoreAt(t, snap, 3)); !bytes.Equal(snap, again) {
		t.Fatalf("restored at the same parallelism, the processor snapshots to other bytes:\n%s", suite.ByteDiff(snap, again))
	}
	kept := bytes.Clone(snap)
	buf := bytes.Clone(snap)
	restored := restoreAt(t, buf, 2)
	x.do(flush())
	if !bytes.Equal(snap, kept) {
		t.Fatalf("a snapshot's bytes changed when the processor went on:\n%s\nThe bytes are the caller's once Snapshot returns.",
			suite.ByteDiff(kept, snap))
	}
	clear(buf)
	want := sortedAlerts(restoreAt(t, kept, 2).Flush())
	if got := sortedAlerts(restored.Flush()); !slices.Equal(got, want) {
		t.Fatalf("a processor restored from a buffer that the caller then zeroed alerts\n%swant\n%s"+
			"A restored processor shares no memory with the snapshot: copy every key, prefix and ID you keep.",
			fmtAlerts(got), fmtAlerts(want))
	}
}

// TestRestoreRejectsBadInput certifies that RestoreBroadcastProcessor returns a nil processor and an error, never a panic, for a bad parallelism, another maxParallelism, bytes that are no snapshot, a snapshot truncated, extended or with a byte changed, and one whose checksum holds but which no processor writes (two rules of one (Prefix, TS), a pending result both watermarks have passed).
func TestRestoreRejectsBadInput(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, cfgOf(2, 0, 0))
	r.do(rule(rl("", 5, 2)), event(ev("e1", "a", 3, 5)), eventWM(10), rule(rl("b", 1, 7)))
	snap := snapshotOf(t, r.b)
	cases := []struct {
		name    string
		snap    []byte
		p, maxp int
	}{
		{"parallelism 0", snap, 0, maxP},
		{"parallelism above maxParallelism", snap, maxP + 1, maxP},
		{"another maxParallelism", snap, 2, maxP * 2},
		{"nil", nil, 2, maxP},
		{"not a snapshot", []byte("not a snapshot at all, not even close"), 2, maxP},
	}
	for i, d := range windowtest.DamagedSnapshots(snap) {
		cases = append(cases, struct {
			name    string
			snap    []byte
			p, maxp int
		}{fmt.Sprintf("damaged %d (%d bytes of %d)", i, len(d), len(snap)), d, 2, maxP})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			var b *BroadcastProcessor
			var err error
			if msg := suite.Catch(func() { b, err = RestoreBroadcastProcessor(c.snap, c.p, c.maxp) }); msg != "" {
				t.Fatalf("RestoreBroadcastProcessor(%s, %d, %d) panicked: %s; want an error", suite.HexHead(c.snap), c.p, c.maxp, msg)
			}
			if err == nil || b != nil {
				t.Errorf("RestoreBroadcastProcessor(%s, %d, %d) = %v, %v; want nil and an error: stage 4's rules hold\n"+
					"(a changed, missing or extra byte is an error), and maxParallelism is fixed for the life of the state",
					suite.HexHead(c.snap), c.p, c.maxp, b, err)
			}
		})
	}

	// Snapshots whose checksum holds but which no processor writes: a
	// restore must refuse them too. The suite cannot know your layout, so
	// it moves a value it finds in your bytes (one unlike anything else in
	// the state) and seals the snapshot again, when it can read your
	// format's integers and checksum; a forgery it cannot make, it says so
	// and does not try.
	twoRules := newRun(t, cfgOf(2, 0, 0))
	twoRules.do(rule(rl("eu", 5000, 123456780000)), rule(rl("eu", 7000, 123456785000)))
	pending := newRun(t, cfgOf(2, 0, 0))
	pending.do(event(ev("e1", "a", 123456789995, 5)), eventWM(123456790000), ruleWM(123456789500)) // [123456789990,123456790000) waits
	windowtest.CheckForged(t, "RestoreBroadcastProcessor(%s, 2, 16)", []windowtest.Forgery{
		{What: "with two rules of eu at 123456780000 (the second moved from 123456785000)", Snap: snapshotOf(t, twoRules.b),
			Moves: [][2]int64{{123456785000, 123456780000}},
			Why:   "the broadcast state holds one rule per (Prefix, TS): no processor holds two of one."},
		{What: "with the rules' watermark moved from 123456789500 to 123456790500, past the end of a pending result",
			Snap: snapshotOf(t, pending.b), Moves: [][2]int64{{123456789500, 123456790500}},
			Why: "a result is decided once the combined watermark reaches its End, and leaves the pending results then:\n" +
				"no processor holds one still pending at such watermarks."},
	}, func(b []byte) (*BroadcastProcessor, error) { return RestoreBroadcastProcessor(b, 2, maxP) })
}

// TestSnapshotKeepsAwkwardStrings certifies that prefixes, keys and IDs of any bytes (empty, NUL, invalid UTF-8, 70 000 bytes, a prefix of another) survive a snapshot exactly, in the broadcast state and in the pending results.
func TestSnapshotKeepsAwkwardStrings(t *testing.T) {
	defer suite.Recover(t)
	var ops []op
	for i, s := range kit.AwkwardStrings() {
		ops = append(ops, rule(rl(s, int64(i), int64(i))), event(ev(s, s, 3, int64(i)+1)))
	}
	ops = append(ops, eventWM(10)) // every window fires, and waits for the rules' watermark
	whole := newRun(t, cfgOf(3, 0, 0))
	whole.do(ops...)
	wantRules := whole.b.RulesOn(0)
	var restored []*run // from a snapshot of whole before its Flush
	for _, p := range []int{1, 3, 4} {
		restored = append(restored, whole.restore(p))
	}
	want := whole.do(flush())
	if len(want) == 0 {
		t.Fatalf("%s", whole.report("Flush gave no alerts; want at least one per key (each key starts with its own prefix)\n"))
	}
	for _, r := range restored {
		p := r.cfg.Parallelism
		for i := range p {
			if got := r.b.RulesOn(i); !slices.Equal(got, wantRules) {
				t.Fatalf("%s", r.report(fmt.Sprintf("restored at parallelism %d, RulesOn(%d) differs from the rules snapshotted (%d rules, got %d):\n"+
					"every prefix is kept byte for byte, whatever its bytes: write a length before each string,\n"+
					"never a terminator.\n", p, i, len(wantRules), len(got))))
			}
		}
		if got := r.do(flush()); !slices.Equal(got, want) {
			missing, extra := alertDiff(got, want)
			msg := fmt.Sprintf("restored at parallelism %d, Flush alerts differently from the processor snapshotted.\nmissing:\n%sextra:\n%s"+
				"The pending results' keys, like the rules' prefixes, are kept byte for byte.", p, fmtAlerts(missing), fmtAlerts(extra))
			t.Fatalf("%s\n%s%s", msg, r.calls(), r.picture(msg, want))
		}
	}
}
