//go:build lab || solution

package sliding

import (
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// ownershipCfg has overlapping windows, size % slide != 0 and allowed
// lateness, so that a seeded run returns firings and corrections.
var ownershipCfg = SlidingConfig{Size: 10, Slide: 4, WatermarkDelay: 6, AllowedLateness: 8}

// ownershipBound is the disorder of the ownership runs: far enough past
// the delay, a window and the lateness that many events are late.
const ownershipBound = 6 + 10 + 8 + 30

// TestResultsAreTheCallersToKeep certifies that the results a call returns,
// firings and corrections alike, belong to the caller: later calls do not
// change them, and editing or appending to them changes nothing inside the
// processor.
func TestResultsAreTheCallersToKeep(t *testing.T) {
	defer suite.Recover(t)
	ops := randomOps(suite.Rand(t), ownershipCfg.Size, ownershipCfg.WatermarkDelay, ownershipBound)
	want := replay(t, ownershipCfg, ops)
	corrections := 0
	for _, out := range want.Outs {
		for _, r := range out {
			if r.IsUpdate {
				corrections++
			}
		}
	}
	if corrections == 0 {
		t.Fatalf("suite bug: the seeded run made no corrections, so this test would check firings only; fix randomOps or the seed")
	}
	p := newSliding(t, ownershipCfg)
	type kept struct {
		call      int
		got, want []kit.Result
	}
	var keeps []kept
	for i, o := range ops {
		got := o.Apply(p)
		if !slices.Equal(got, want.Outs[i]) {
			t.Fatalf("call %d of %d, %v, returned\n%s\nwant, as an untouched run returned,\n%s\n"+
				"The caller kept or scribbled over the results of earlier calls: that must change nothing inside the\n"+
				"processor. Build each call's results in a new slice.", i+1, len(ops), o, windowtest.FmtResults(got), windowtest.FmtResults(want.Outs[i]))
		}
		for _, k := range keeps {
			if !slices.Equal(k.got, k.want) {
				t.Fatalf("the results of call %d, which the caller kept with one of its own appended, changed after call %d, %v:\n"+
					"they are now\n%s\nwant, as the caller left them,\n%s\nOnce returned, results belong to the caller: a processor that "+
					"reuses one output buffer\n(or one per window) overwrites what it handed out.",
					k.call, i+1, o, windowtest.FmtResults(k.got), windowtest.FmtResults(k.want))
			}
		}
		if i%2 == 0 {
			mine := append(got, kit.Result{Key: "appended by the caller"})
			keeps = append(keeps, kept{i + 1, mine, slices.Clone(mine)})
			continue
		}
		got = got[:cap(got)]
		for j := range got {
			got[j] = kit.Result{Key: "scribbled by the caller", Start: -1, End: -1, Count: -1, Sum: -1, IsUpdate: true}
		}
	}
}

// TestLateReturnsTheCallersCopy certifies that the slice Late returns
// belongs to the caller: editing or appending to it changes nothing inside
// the processor, and later late events do not change it.
func TestLateReturnsTheCallersCopy(t *testing.T) {
	defer suite.Recover(t)
	ops := randomOps(suite.Rand(t), ownershipCfg.Size, ownershipCfg.WatermarkDelay, ownershipBound)
	p := newSliding(t, ownershipCfg)
	type kept struct {
		call      int
		got, want []kit.Event
	}
	var keeps []kept
	var want []kit.Event // the side output so far, from the untouched run
	ref := newSliding(t, ownershipCfg)
	for i, o := range ops {
		o.Apply(p)
		o.Apply(ref)
		want = ref.Late()
		got := p.Late()
		if !slices.Equal(got, want) {
			t.Fatalf("Late() after call %d of %d, %v = %s\nwant %s\nThe caller edited and appended to the slices Late "+
				"returned before: that must not reach the side\noutput. Late returns a copy, not the processor's own slice.",
				i+1, len(ops), o, windowtest.FmtEvents(got), windowtest.FmtEvents(want))
		}
		for _, k := range keeps {
			if !slices.Equal(k.got, k.want) {
				t.Fatalf("the slice Late() returned after call %d, which the caller kept with an event of its own appended,\n"+
					"changed after call %d: it is now\n%s\nwant, as the caller left it,\n%s\n"+
					"Once returned, the slice belongs to the caller: later late events must not change it.",
					k.call, i+1, windowtest.FmtEvents(k.got), windowtest.FmtEvents(k.want))
			}
		}
		if i%2 == 0 {
			mine := append(got, ev("appended", "by the caller", -1, -1))
			keeps = append(keeps, kept{i + 1, mine, slices.Clone(mine)})
			continue
		}
		got = got[:cap(got)]
		for j := range got {
			got[j] = ev("scribbled", "by the caller", -1, -1)
		}
	}
	if len(want) == 0 {
		t.Fatalf("the seeded run sent nothing to the side output, so this test checked nothing: the disorder of randomOps must exceed the delay")
	}
}
