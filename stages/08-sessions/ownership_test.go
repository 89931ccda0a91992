//go:build lab || solution

package sessions

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// scribbled is what the ownership tests overwrite a returned result with:
// a caller is free to reuse the memory it was given.
var scribbled = kit.Result{Key: "scribbled", Start: -1, End: -1, Count: 99, Sum: 99, IsUpdate: true}

// TestResultsAreTheCallers certifies that the results Process, AdvanceWatermark and Flush return belong to the caller: later calls never change results kept from an earlier one, and a caller that overwrites them changes nothing the processor emits afterwards.
func TestResultsAreTheCallers(t *testing.T) {
	defer suite.Recover(t)
	t.Run("kept results stay as returned", func(t *testing.T) {
		defer suite.Recover(t)
		s := newSessions(t, SessionConfig{Gap: 10, AllowedLateness: 100})
		s.Process(ev("e1", "a", 0, 1))
		s.Process(ev("e2", "b", 2, 2))
		type kept struct {
			call     string
			got, was []kit.Result
		}
		var calls []kept
		keep := func(call string, rs []kit.Result) { calls = append(calls, kept{call, rs, slices.Clone(rs)}) }
		keep("AdvanceWatermark(20)", s.AdvanceWatermark(20)) // a [0,10), b [2,12)
		s.Process(ev("e3", "c", 20, 4))
		s.Process(ev("e4", "d", 22, 8))
		keep("AdvanceWatermark(40)", s.AdvanceWatermark(40))        // c [20,30), d [22,32)
		keep("Process(e5 a@5=16)", s.Process(ev("e5", "a", 5, 16))) // extends the fired [0,10) at once
		s.Process(ev("e6", "e", 50, 32))
		keep("Flush()", s.Flush()) // e [50,60)
		for _, c := range calls {
			if len(c.was) == 0 {
				t.Fatalf("suite bug: %s returned nothing", c.call)
			}
			if !slices.Equal(c.got, c.was) {
				t.Errorf("the results %s returned were\n%s\nand after the calls that followed they read\n%s\n"+
					"The results of a call are the caller's: it may keep them (a sink batching its writes does). Return a new\n"+
					"slice from every call, not a buffer of the processor's that the next call fills again.",
					c.call, windowtest.FmtResults(c.was), windowtest.FmtResults(c.got))
			}
		}
	})
	t.Run("results the caller overwrites change nothing", func(t *testing.T) {
		defer suite.Recover(t)
		ops := genOps(suite.Rand(t), 80, 3000, 300, 30, 0)
		full := runOps(newSessions(t, formatCfg), ops)
		s := newSessions(t, formatCfg)
		var drawn trace // what each call returned before this test overwrote it, for the picture
		for i, o := range ops {
			got := o.Apply(s)
			if picture.Enabled() {
				drawn.Outs, drawn.WMs = append(drawn.Outs, slices.Clone(got)), append(drawn.WMs, s.Watermark())
			}
			if !slices.Equal(got, full.Outs[i]) {
				msg := fmt.Sprintf("call %d %v returned\n%s\nwant, as a processor whose results nobody touched returned,\n%s\n"+
					"After each call this test overwrote every result it returned (a caller may reuse that memory). If a later\n"+
					"call changes, the processor kept a reference into a slice it handed out: what downstream holds of a session,\n"+
					"say, read back from the results it emitted. Keep your own copy of whatever you must remember.",
					i+1, o, windowtest.FmtResults(got), windowtest.FmtResults(full.Outs[i]))
				drawn.Late = s.Late()
				t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(formatCfg), ops, drawn, full))
			}
			for j := range got {
				got[j] = scribbled
			}
		}
	})
}

// TestLateIsTheCallers certifies that Late returns a slice the caller owns: overwriting or appending to it changes nothing the processor holds, and later late events never change a slice returned before.
func TestLateIsTheCallers(t *testing.T) {
	defer suite.Recover(t)
	r := newRun(t, SessionConfig{Gap: 10})
	r.advance(100)
	first, second, third := ev("e1", "a", 5, 1), ev("e2", "b", 6, 2), ev("e3", "c", 7, 4)
	r.processAll(first, second)
	kept := r.r.Late()
	was := slices.Clone(kept)
	mine := r.r.Late()
	if len(mine) > 0 {
		mine[0] = ev("mine", "x", 0, 0)
	}
	mine = append(mine, ev("appended", "x", 0, 0)) // into spare capacity, if the slice has any
	r.process(third)
	r.expectLate([]kit.Event{first, second, third},
		"Late() is the side output so far, in arrival order, whatever a caller did to a slice Late() returned before:\n"+
			"this test overwrote the first event of one and appended to it. Return a copy, not the processor's own slice.")
	if !slices.Equal(kept, was) {
		t.Errorf("a slice Late() returned read %s, and after a later late event it reads %s: a slice handed out is the\n"+
			"caller's, and later calls never write into it. Return a copy.", windowtest.FmtEvents(was), windowtest.FmtEvents(kept))
	}
	if got := mine[len(mine)-1]; got.ID != "appended" {
		t.Errorf("the caller appended %v to a slice Late() returned, and a later late event overwrote it with %v: the\n"+
			"processor appended to its side output in memory it had handed out. Return a copy.", ev("appended", "x", 0, 0), got)
	}
}

// TestSessionSnapshotIsACopy certifies that snapshot bytes are the caller's: later processing and later snapshots never change them, a restored processor shares no memory with them (overwriting the bytes after a restore changes nothing), it restores the state it was taken from however far the live processor went on, and two restores of one snapshot share nothing.
func TestSessionSnapshotIsACopy(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		name string
		ops  []op
	}{
		{"a busy processor", genOps(suite.Rand(t), 60, 3000, 300, 30, awkwardRate)},
		{"awkward keys", story(life("a", idsOf("a"), 1, 2, 0), life("\xff"+string(make([]byte, 300)), idsOf("\x00"), 3, 4, 1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			windowtest.CheckSnapshotIsACopy(t, windowtest.SnapshotCopy[*SessionProcessor]{
				Ops: c.ops, Want: runOps(newSessions(t, formatCfg), c.ops),
				Cuts: []int{len(c.ops) / 4, len(c.ops) / 2, len(c.ops) - 3},
				Prefix: func(t *testing.T, cut int) *SessionProcessor {
					s := newSessions(t, formatCfg)
					runOps(s, c.ops[:cut])
					return s
				},
				Snapshot: func(t *testing.T, s *SessionProcessor) []byte { return snapshotOf(t, s) },
				Restore:  func(t *testing.T, snap []byte, _ int) *SessionProcessor { return restoreOf(t, snap) },
				Other:    ev("other", "a", 0, 100),
				Restorer: "RestoreSessionProcessor",
				Windows:  pictureWindows(formatCfg),
			})
		})
	}
}
