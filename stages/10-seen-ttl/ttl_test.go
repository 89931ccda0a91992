//go:build lab || solution

package seenttl

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestNewSeenTTLProcessorValidates certifies that NewSeenTTLProcessor
// rejects a negative TTL and every config NewProcessor rejects, with an
// error and a nil processor, and that a valid one starts empty: watermark
// math.MinInt64, no ID remembered.
func TestNewSeenTTLProcessorValidates(t *testing.T) {
	defer suite.Recover(t)
	good := Config{WindowSize: 10, WatermarkDelay: 2, AllowedLateness: 5}
	for _, c := range []struct {
		what string
		cfg  Config
		ttl  int64
	}{
		{"a TTL of -1", good, -1},
		{"a TTL of math.MinInt64", good, math.MinInt64},
		{"WindowSize 0", Config{WindowSize: 0}, 10},
		{"a negative WatermarkDelay", Config{WindowSize: 10, WatermarkDelay: -1}, 10},
		{"a negative AllowedLateness", Config{WindowSize: 10, AllowedLateness: -1}, 10},
	} {
		p, err := NewSeenTTLProcessor(c.cfg, c.ttl)
		if err == nil || p != nil {
			t.Errorf("NewSeenTTLProcessor(%+v, %d), %s, = %v, %v; want nil and an error: a TTL is a length of event time,\n"+
				"and the config's rules are NewProcessor's", c.cfg, c.ttl, c.what, p, err)
		}
	}
	for _, ttl := range []int64{0, 1, 15, math.MaxInt64} {
		p := newTTL(t, good, ttl)
		if wm, n := p.Watermark(), p.RememberedIDs(); wm != math.MinInt64 || n != 0 {
			t.Errorf("a new NewSeenTTLProcessor(%+v, %d) has Watermark() = %s and RememberedIDs() = %d; want math.MinInt64 and 0",
				good, ttl, kit.FormatWatermark(wm), n)
		}
	}
}

// TestRememberedIDsCountsEverySeenID certifies that without a TTL
// RememberedIDs counts every distinct ID seen, counted or late, never a
// redelivery twice, and that nothing is ever forgotten, not even by Flush.
func TestRememberedIDsCountsEverySeenID(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		ops := randomOps(rnd, cfg, 60)
		for _, p := range []struct {
			what string
			p    *Processor
		}{{"NewProcessor", newPlain(t, cfg)}, {"NewSeenTTLProcessor with TTL 0", newTTL(t, cfg, 0)}} {
			distinct := map[string]bool{}
			r := windowtest.NewRun(t, p.p, cfg.WindowSize, cfg.AllowedLateness)
			for i, o := range ops {
				r.Apply(o)
				if o.Kind == "process" {
					distinct[o.Event.ID] = true
				}
				if got := p.p.RememberedIDs(); got != len(distinct) {
					msg := fmt.Sprintf("%s(%+v): after call %d of %d, %v, RememberedIDs() = %d; want %d, the distinct IDs seen so far.\n"+
						"Without a TTL, every ID is remembered forever, counted or late, and a redelivery is the same ID:\n"+
						"it is what stage 1's dedup needs, and what grows without bound.", p.what, cfg, i+1, len(ops), o, got, len(distinct))
					t.Fatalf("%s%s", msg, r.Picture(msg, nil, nil))
				}
			}
		}
	}
}

// TestZeroTTLIsNewProcessor certifies that NewSeenTTLProcessor(cfg, 0) is
// NewProcessor(cfg): every call returns the same, and their snapshots are
// equal bytes, before and after Flush.
func TestZeroTTLIsNewProcessor(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, cfg := range ruleConfigs {
		ops := randomOps(rnd, cfg, 60)
		want := replayCounting(newPlain(t, cfg), ops)
		p := newTTL(t, cfg, 0)
		if d, drawn := firstDiff(ops, 0, replayCounting(p, ops), want); d != "" {
			msg := fmt.Sprintf("NewSeenTTLProcessor(%+v, 0) and NewProcessor differ over the same seeded calls:\n%s\n"+
				"TTL 0 means \"remember forever\": the earlier stages' behaviour, unchanged.", cfg, d)
			t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, want.Trace))
		}
		for _, cut := range []int{len(ops) / 2, len(ops)} {
			plain, zero := newPlain(t, cfg), newTTL(t, cfg, 0)
			windowtest.Replay(plain, ops[:cut])
			windowtest.Replay(zero, ops[:cut])
			if a, b := snapshotOf(t, plain), snapshotOf(t, zero); !bytes.Equal(a, b) {
				t.Fatalf("after %d of %d calls, NewProcessor's and NewSeenTTLProcessor(cfg, 0)'s snapshots differ:\n%s\n"+
					"They are in the same state, and equal state gives equal bytes (stage 4).", cut, len(ops), suite.ByteDiff(a, b))
			}
		}
	}
}

// TestIDForgottenWhenWatermarkReachesExpiry certifies that an ID is
// remembered while the watermark is below its event's TS + TTL, and
// forgotten by the call that raises the watermark to it, whichever call
// that is: AdvanceWatermark, an event's watermark, or Flush.
func TestIDForgottenWhenWatermarkReachesExpiry(t *testing.T) {
	defer suite.Recover(t)
	// Allowed lateness keeps window [0,10) open for corrections until
	// watermark 40, so a redelivery of a forgotten ID is counted again, and
	// shows.
	cfg := Config{WindowSize: 10, WatermarkDelay: 2, AllowedLateness: 30}
	const ttl = 5 // a1 at 3: remembered below watermark 8, forgotten at 8
	a1 := ev("a1", "a", 3, 1)
	for _, c := range []struct {
		what    string
		justOff func(r *run) // raises the watermark to 7
		reach   func(r *run) // raises it to 8, or past
		others  [2]int       // IDs the calls themselves add, remembered after justOff and after reach
	}{
		{"AdvanceWatermark", func(r *run) { r.Advance(7) }, func(r *run) { r.Advance(8) }, [2]int{0, 0}},
		// b1 at 9 raises the watermark to 7 and b2 at 10 to 8; both are
		// remembered (until 14 and 15).
		{"an event's watermark", func(r *run) { r.Process(ev("b1", "b", 9, 1)) }, func(r *run) { r.Process(ev("b2", "b", 10, 1)) }, [2]int{1, 2}},
		{"Flush", func(r *run) { r.Advance(7) }, func(r *run) { r.Flush() }, [2]int{0, 0}},
	} {
		t.Run(c.what, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, cfg, ttl)
			r.Process(a1)
			r.ExpectRemembered(1, "a1 is new: its ID is remembered until the watermark reaches 3 + 5 = 8.")
			c.justOff(r)
			r.ExpectRemembered(1+c.others[0], "At watermark 7 < 8, a1's ID is still remembered.")
			r.Expect("a redelivery of a1 at watermark 7: Process(a1)", r.Process(a1), nil,
				"a1's ID is remembered until the watermark reaches 8: a redelivery now is a no-op.")
			c.reach(r)
			r.ExpectRemembered(c.others[1], "The call that raised the watermark to 8 (or past) forgets a1's ID: an ID is remembered\n"+
				"while watermark < TS + TTL, the same ≥ as a window's expiry, and forgetting happens whichever call moves the watermark.")
		})
	}
	t.Run("counted again once forgotten", func(t *testing.T) {
		defer suite.Recover(t)
		r := newRun(t, cfg, ttl)
		r.Process(a1)
		r.Advance(8)
		r.Expect("a redelivery of a1 at watermark 8: Process(a1)", r.Process(a1), nil,
			"a1's ID was forgotten at watermark 8, so this delivery is a new event: window [0,10) has not fired\n"+
				"yet (8 < 10), so it is counted there, again, and nothing is emitted yet.")
		r.ExpectRemembered(0, "The redelivery was taken as new, but its TS + TTL = 8 has been reached already: an ID whose\n"+
			"time has come when it arrives is not remembered at all.")
		r.Expect("Flush()", r.Flush(), []kit.Result{res("a", 0, 10, 2, 2)},
			"a1 was counted twice: a TTL of 5 is far below the line WindowSize + AllowedLateness = 40, so its ID was\n"+
				"forgotten while its window was still open. That is what a short TTL costs.")
	})
}
