//go:build lab || solution

package seenttl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// steadyStream returns the calls of a long stream at perMS events per
// millisecond of event time: event i has timestamp i/perMS plus a seeded
// jitter of up to jitter, so that disorder stays within the jitter; one
// event in eight is redelivered a few events later, and one in fifty long
// after its window has gone. It is the unbounded stream of a job that runs
// for ever, cut at n events.
func steadyStream(rnd *rand.Rand, n int, perMS, jitter int64) []windowtest.Op {
	var ops []windowtest.Op
	var soon, later []kit.Event
	for i := range n {
		e := ev(fmt.Sprintf("e%d", i), oracleKeys[rnd.IntN(len(oracleKeys))], int64(i)/perMS+rnd.Int64N(jitter+1), 1+rnd.Int64N(9))
		ops = append(ops, windowtest.ProcessOp(e))
		switch rnd.IntN(50) {
		case 0:
			later = append(later, e)
		case 1, 2, 3, 4, 5, 6:
			soon = append(soon, e)
		}
		if len(soon) > 3 {
			ops = append(ops, windowtest.ProcessOp(soon[0]))
			soon = soon[1:]
		}
		if len(later) > 0 && rnd.IntN(400) == 0 {
			ops = append(ops, windowtest.ProcessOp(later[0]))
			later = later[1:]
		}
	}
	return ops
}

// TestRememberedIDsStayBoundedOnAnUnboundedStream certifies that on a long
// steady stream with redeliveries, a processor with a seen TTL remembers
// exactly the IDs the rule says after every call, never more than the
// events of TTL + 2·delay + 2 ms of event time, however long the stream,
// while one without a TTL remembers every ID; and that Flush forgets all.
func TestRememberedIDsStayBoundedOnAnUnboundedStream(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	const perMS, n = 4, 30_000
	cfg := Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 10}
	ttl := line(cfg)
	ops := steadyStream(rnd, n, perMS, cfg.WatermarkDelay)
	// Remembered IDs have TS > watermark − TTL, and TS ≤ max TS seen =
	// watermark + delay; the jitter adds a delay's worth of earlier events.
	bound := int(perMS * (ttl + 2*cfg.WatermarkDelay + 2))

	want := byTheRule(t, cfg, ttl, ops)
	p := newTTL(t, cfg, ttl)
	most := 0
	for i, o := range ops {
		o.Apply(p)
		got := p.RememberedIDs()
		most = max(most, got)
		if got != want.Remembered[i] || got > bound {
			msg := fmt.Sprintf("after call %d of %d, %v (watermark %s), RememberedIDs() = %d; want %d, and never more than %d.\n"+
				"With TTL %d, an ID is forgotten once the watermark reaches its TS + %d, so only the IDs of the last\n"+
				"TTL + delay of event time are remembered (about %d events here, %d with the stream's disorder),\n"+
				"however long the stream runs. Forget in every call that raises the watermark, not later and not in batches.",
				i+1, len(ops), o, kit.FormatWatermark(p.Watermark()), got, want.Remembered[i], bound, ttl, ttl,
				int(perMS*(ttl+cfg.WatermarkDelay)), bound)
			// The run again, recorded: a processor is deterministic, and
			// recording every call of a passing run would cost for nothing.
			drawn := windowtest.Replay(newTTL(t, cfg, ttl), ops[:i+1])
			t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, drawn, want.Trace))
		}
	}
	plain := newPlain(t, cfg)
	plainRun := windowtest.Replay(plain, ops)
	if got := plain.RememberedIDs(); got != n {
		msg := fmt.Sprintf("without a TTL, RememberedIDs() after the stream = %d; want %d, every distinct ID: unbounded dedup state grows with the input", got, n)
		t.Fatalf("%s%s", msg, windowtest.TracePicture(t, msg, pictureWindows(cfg), ops, plainRun, windowtest.Trace{}))
	}
	t.Logf("%d events: at most %d IDs remembered with TTL %d, %d without", n, most, ttl, n)
	p.Flush()
	if got := p.RememberedIDs(); got != 0 {
		t.Fatalf("after Flush, RememberedIDs() = %d; want 0: the watermark is math.MaxInt64, which every TS + TTL has reached\n"+
			"(TS + TTL saturates at math.MaxInt64), and every later event is late anyway", got)
	}
}

// TestExpirySaturatesAtTheEdges certifies that TS + TTL saturates at
// math.MaxInt64 instead of wrapping, so that an ID near the top of the
// range is remembered until the watermark reaches math.MaxInt64 (Flush),
// and that near the bottom of the range an ID is forgotten exactly at
// TS + TTL.
func TestExpirySaturatesAtTheEdges(t *testing.T) {
	defer suite.Recover(t)
	for _, c := range []struct {
		what     string
		cfg      Config
		ttl      int64
		ts       int64
		forgetAt int64 // math.MaxInt64: only Flush forgets it
	}{
		{"TS + TTL overflows near math.MaxInt64", Config{WindowSize: 10}, 100, math.MaxInt64 - 17, math.MaxInt64},
		{"TS + TTL is exactly math.MaxInt64", Config{WindowSize: 10}, 17, math.MaxInt64 - 17, math.MaxInt64},
		{"TTL math.MaxInt64 at TS 0", Config{WindowSize: 10, AllowedLateness: 5}, math.MaxInt64, 0, math.MaxInt64},
		{"TTL math.MaxInt64 at the bottom of the range", Config{WindowSize: 8}, math.MaxInt64, math.MinInt64 + 5, 4},
		{"a small TTL at the bottom of the range", Config{WindowSize: 8, WatermarkDelay: 3}, 9, math.MinInt64 + 2, math.MinInt64 + 11},
	} {
		t.Run(c.what, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, c.cfg, c.ttl)
			a1 := ev("a1", "a", c.ts, 1)
			r.Process(a1)
			if c.forgetAt == math.MaxInt64 {
				r.Advance(math.MaxInt64 - 1)
				r.ExpectRemembered(1, fmt.Sprintf("%s: a1 is forgotten only at watermark math.MaxInt64, where TS + TTL saturates.\n"+
					"A wrapped sum is negative, and forgets a1 at once.", windowtest.NearEdge(c.ts)))
				r.Expect("a redelivery of a1: Process(a1)", r.Process(a1), nil, "a1's ID is still remembered: its redelivery is a no-op, not late.")
				r.ExpectLate(nil, "A remembered ID's redelivery never reaches the side output.")
				r.Flush()
				r.ExpectRemembered(0, "Flush raises the watermark to math.MaxInt64, which forgets every ID.")
				return
			}
			r.Advance(c.forgetAt - 1)
			r.ExpectRemembered(1, fmt.Sprintf("a1 at %s with TTL %d is remembered below watermark %d.", windowtest.NearEdge(c.ts), c.ttl, c.forgetAt))
			r.Advance(c.forgetAt)
			r.ExpectRemembered(0, fmt.Sprintf("a1 at %s with TTL %d is forgotten at watermark TS + TTL = %d: no saturation is needed here.",
				windowtest.NearEdge(c.ts), c.ttl, c.forgetAt))
		})
	}
}
