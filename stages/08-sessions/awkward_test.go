//go:build lab || solution

package sessions

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The tests in this file put state that breaks naive encodings into a
// session snapshot (kit.AwkwardStrings, kit.EdgeValues) and check that it
// restores at every cut point (checkEveryCut). Each runs formatCfg (Gap 50,
// AllowedLateness 100) through the same story per key, lifeOf.

// lifeOf returns the calls that give key every kind of session state, with
// the IDs id(1) … id(4) and the values v1, v2: a session that fires at
// watermark 100 ([10,60)), a later one still open ([200,250)), a late event
// that extends the fired one at once ([10,90): what downstream holds is
// retracted and replaced), a redelivery, an event that is late (side
// output), and Flush. off shifts the timestamps, so that several keys'
// sessions do not end at the same time.
func lifeOf(key string, id func(int) string, v1, v2 int64, off int64) (before, after []op) {
	before = []op{
		windowtest.ProcessOp(ev(id(1), key, 10+off, v1)),
		windowtest.ProcessOp(ev(id(2), key, 200+off, v2)),
	}
	after = []op{
		windowtest.ProcessOp(ev(id(3), key, 40+off, v2)), // [40,90) bridges into the fired [10,60): fires at once
		windowtest.ProcessOp(ev(id(1), key, 30+off, 7)),  // a redelivery, whatever its fields say
		windowtest.ProcessOp(ev(id(4), key, -500, v1)),   // expired on arrival: side output
		windowtest.ProcessOp(ev(id(4), key, -500, v1)),   // and its redelivery: a no-op
	}
	return before, after
}

// story returns the calls of the lives of several keys, interleaved: every
// key's first events, AdvanceWatermark(100), every key's late and
// redelivered events, then Flush and a redelivery after it.
func story(lives ...[2][]op) []op {
	var ops []op
	for _, l := range lives {
		ops = append(ops, l[0]...)
	}
	ops = append(ops, windowtest.AdvanceOp(100))
	for _, l := range lives {
		ops = append(ops, l[1]...)
	}
	ops = append(ops, windowtest.FlushOp())
	return append(ops, lives[0][0][0])
}

// life is lifeOf as one value for story.
func life(key string, id func(int) string, v1, v2, off int64) [2][]op {
	before, after := lifeOf(key, id, v1, v2, off)
	return [2][]op{before, after}
}

// idsOf returns the IDs "<prefix>-1", "<prefix>-2", … .
func idsOf(prefix string) func(int) string {
	return func(i int) string { return fmt.Sprintf("%s-%d", prefix, i) }
}

// TestSessionSnapshotKeepsAwkwardKeys certifies that a snapshot restores, at every cut point, the sessions of keys that break naive encodings (empty, one byte, NUL, invalid UTF-8, 255, 256 and 70 000 bytes, a prefix of another key, bytes above 0x7f), with what downstream holds of them, each key alone and all of them in one processor.
//
// The mistakes this catches: a length in one or two bytes (255 fits, 256
// does not; 70 000 does not fit 16 bits), NUL-terminated strings, a text
// format that replaces invalid UTF-8 (encoding/json does), keys sorted by
// something other than their bytes.
func TestSessionSnapshotKeepsAwkwardKeys(t *testing.T) {
	defer suite.Recover(t)
	keys := kit.AwkwardStrings()
	var all [][2][]op
	for i, key := range keys {
		all = append(all, life(key, idsOf(fmt.Sprintf("k%d", i)), int64(i+1), int64(10*(i+1)), int64(i)))
	}
	for i, key := range keys {
		t.Run("key "+kit.ShowString(key), func(t *testing.T) {
			defer suite.Recover(t)
			checkEveryCut(t, formatCfg, story(all[i], life("plain", idsOf("p"), 5, 6, 3)))
		})
	}
	t.Run("every key in one processor", func(t *testing.T) {
		defer suite.Recover(t)
		checkEveryCut(t, formatCfg, story(all...))
	})
}

// TestSessionSnapshotKeepsAwkwardIDs certifies that a snapshot keeps every seen ID that breaks naive encodings (the same awkward strings as keys), counted or late: after any restore, a redelivery of each is still a no-op.
func TestSessionSnapshotKeepsAwkwardIDs(t *testing.T) {
	defer suite.Recover(t)
	ids := kit.AwkwardStrings()
	for _, id := range ids {
		t.Run("ID "+kit.ShowString(id), func(t *testing.T) {
			defer suite.Recover(t)
			// The awkward ID is the event that opens the fired session (then
			// redelivered), and, for the next key, the late one.
			counted := func(n int) string {
				if n == 1 {
					return id
				}
				return fmt.Sprintf("c-%d", n)
			}
			late := func(n int) string {
				if n == 4 {
					return id + "/late" // distinct from id, just as awkward
				}
				return fmt.Sprintf("l-%d", n)
			}
			checkEveryCut(t, formatCfg, story(life("a", counted, 1, 2, 0), life("b", late, 3, 4, 1)))
		})
	}
	t.Run("every ID in one processor", func(t *testing.T) {
		defer suite.Recover(t)
		var lives [][2][]op
		for i, id := range ids {
			lives = append(lives, life(fmt.Sprintf("k%d", i), func(n int) string { return fmt.Sprintf("%d%s", n, id) }, 1, 2, int64(i)))
		}
		checkEveryCut(t, formatCfg, story(lives...))
	})
}

// TestSessionSnapshotKeepsEdgeValues certifies that a snapshot restores counts and sums exactly for values at the int64 edges and beyond 2⁵³, in open sessions, fired ones and what downstream holds of them, sums wrapping as Go's int64 arithmetic does.
//
// The mistakes this catches: a sum through a float64 (encoding/json's
// numbers, when decoded into interface{}) or through 32 bits.
func TestSessionSnapshotKeepsEdgeValues(t *testing.T) {
	defer suite.Recover(t)
	for _, v := range kit.EdgeValues {
		t.Run(fmt.Sprintf("value %d", v), func(t *testing.T) {
			defer suite.Recover(t)
			// v alone, v + v (which wraps at the edges) and v + 1 in the
			// extended session.
			ops := story(life("a", idsOf("a"), v, v, 0), life("b", idsOf("b"), v, 1, 1))
			checkSumsWrap(t, ops)
			checkEveryCut(t, formatCfg, ops)
		})
	}
	t.Run("every value in one processor", func(t *testing.T) {
		defer suite.Recover(t)
		var lives [][2][]op
		for i, v := range kit.EdgeValues {
			lives = append(lives, life(fmt.Sprintf("k%d", i), idsOf(fmt.Sprint(i)), v, kit.EdgeValues[(i+1)%len(kit.EdgeValues)], int64(i)))
		}
		checkEveryCut(t, formatCfg, story(lives...))
	})
}

// checkSumsWrap stops t unless the changelog of ops on a new processor for
// formatCfg rebuilds downstream to the batch oracle of its events (those
// before the watermark of 100: the ones at -500 are late), whose sums wrap
// as Go's int64 arithmetic does.
func checkSumsWrap(t *testing.T, ops []op) {
	t.Helper()
	var events []kit.Event
	for _, e := range windowtest.EventsOf(ops) {
		if e.TS > -500 {
			events = append(events, e)
		}
	}
	tr := runOps(newSessions(t, formatCfg), ops)
	d, problem := rebuild(windowtest.Emitted(tr.Outs))
	if want := batchSessions(events, formatCfg.Gap); problem != "" || !slices.Equal(d.sessions(), want) {
		msg := fmt.Sprintf("without any snapshot, the changelog of %v rebuilds downstream to\n%s\n%s\nwant\n%s\n"+
			"Counts and sums are int64: a sum past math.MaxInt64 wraps around, as Go's int64 addition does (and so does the\n"+
			"negation of math.MinInt64 in a retraction), the same in every correct implementation. A float64 on the way loses\n"+
			"the low digits of values beyond 2^53.",
			ops, windowtest.FmtResults(d.sessions()), problem, windowtest.FmtResults(want))
		t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(formatCfg), ops, tr, windowtest.Trace{}))
	}
}
