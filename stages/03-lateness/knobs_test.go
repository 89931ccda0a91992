//go:build lab || solution

package lateness

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// TestDelayAndLatenessAreDifferentKnobs certifies that on the same out-of-order stream WatermarkDelay holds the first result back until it is complete, while AllowedLateness emits it early and then corrects it with an update.
func TestDelayAndLatenessAreDifferentKnobs(t *testing.T) {
	defer suite.Recover(t)
	// e3 (ts 8) arrives after e2 (ts 11): 3 ms of disorder, into [0,10).
	stream := []kit.Event{
		ev("e1", "a", 2, 1),
		ev("e2", "a", 11, 2),
		ev("e3", "a", 8, 4),
		ev("e4", "a", 16, 8),
	}
	const story = "Same stream, three settings: e3 (ts 8) arrives after e2 (ts 11), 3 ms out of order.\n" +
		"  • WatermarkDelay 5 holds the watermark back (11 − 5 = 6 < 10): [0,10) waits for e3 and fires ONCE,\n" +
		"    complete, when e4 raises the watermark to 11. Latency bought for completeness.\n" +
		"  • AllowedLateness 5 fires [0,10) at watermark 11 without e3, keeps its state until watermark 15, and\n" +
		"    when e3 arrives re-emits a's result corrected, as an update. An early answer, then a correction.\n" +
		"  • Neither: [0,10) fires early and e3, arriving after it expired, goes to the side output.\n" +
		"The first two end with the same final value for (a, [0,10)), count 2 sum 5; the consumer sees it\n" +
		"at different moments and in different shapes."
	cases := []struct {
		name  string
		cfg   Config
		calls [][]kit.Result // what each Process returned, then Flush
		late  []kit.Event
	}{
		{
			name: "delay 5, lateness 0",
			cfg:  Config{WindowSize: 10, WatermarkDelay: 5},
			calls: [][]kit.Result{
				nil, nil, nil,
				{res("a", 0, 10, 2, 5)},
				{res("a", 10, 20, 2, 10)},
			},
		},
		{
			name: "delay 0, lateness 5",
			cfg:  Config{WindowSize: 10, AllowedLateness: 5},
			calls: [][]kit.Result{
				nil,
				{res("a", 0, 10, 1, 1)},
				{upd("a", 0, 10, 2, 5)},
				nil,
				{res("a", 10, 20, 2, 10)},
			},
		},
		{
			name: "delay 0, lateness 0",
			cfg:  Config{WindowSize: 10},
			calls: [][]kit.Result{
				nil,
				{res("a", 0, 10, 1, 1)},
				nil, nil,
				{res("a", 10, 20, 2, 10)},
			},
			late: stream[2:3],
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer suite.Recover(t)
			r := newRun(t, c.cfg)
			var got [][]kit.Result
			for _, e := range stream {
				got = append(got, r.Process(e))
			}
			got = append(got, r.Flush())
			lateGot := r.Late()
			if slices.EqualFunc(got, c.calls, slices.Equal) && slices.Equal(lateGot, c.late) {
				return
			}
			r.Errorf("with %s (WindowSize 10) the calls returned\n%s\nwant\n%s\nLate() = %s, want %s\n\n%s",
				c.name, fmtCalls(stream, got), fmtCalls(stream, c.calls), windowtest.FmtEvents(lateGot), windowtest.FmtEvents(c.late), story)
		})
	}
}

// fmtCalls renders what each Process of stream, then Flush, returned.
func fmtCalls(stream []kit.Event, calls [][]kit.Result) string {
	var b strings.Builder
	for i, rs := range calls {
		call := "Flush()"
		if i < len(stream) {
			call = fmt.Sprintf("Process(%v)", stream[i])
		}
		out := make([]string, len(rs))
		for j, r := range rs {
			out[j] = r.String()
		}
		if len(out) == 0 {
			out = []string{"(nothing)"}
		}
		fmt.Fprintf(&b, "  %-22s → %s\n", call, strings.Join(out, " │ "))
	}
	return strings.TrimRight(b.String(), "\n")
}
