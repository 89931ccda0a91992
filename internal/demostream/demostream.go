// Package demostream holds the scripted streams of the stages' demos as
// data: the events `de demo` narrates, in the order it delivers them, and
// the settings it runs them with. `de demo` (internal/demo) and `de flink`
// (internal/flinkcmp, and the lab's drivers in internal/labjob) read them
// here, so that the stream the learner watches the reference handle is the
// one their lab/ and Apache Flink are compared on.
//
// The package depends on kit alone: a driver compiled with the learner's
// lab/ imports it, and must not link the reference.
package demostream

import (
	"fmt"
	"math"

	"github.com/flk-byo/course/kit"
)

// Stream is one stage's demo input and settings. A field a stage does not
// use is zero.
type Stream struct {
	// Events are delivered in this order, redeliveries included.
	Events []kit.Event

	// WindowSize is the tumbling windows' size, or the sliding windows'
	// (stage 09), in ms of event time.
	WindowSize int64
	// Slide is stage 09's slide.
	Slide int64
	// Gap is stage 08's session gap.
	Gap int64
	// WatermarkDelay: the watermark is the largest timestamp seen minus
	// this, raised after every event.
	WatermarkDelay int64
	// AllowedLateness is how long a fired window takes corrections.
	AllowedLateness int64
	// SeenTTL is stage 10's: how long, in event time, an ID is remembered.
	SeenTTL int64

	// Parallelism is the number of workers (stage 02) or subtasks (stage
	// 06); MaxParallelism the number of key groups.
	Parallelism, MaxParallelism int

	// RestoreAfter, when positive, is where the demo stops the job: the
	// processor has seen Events[:RestoreAfter]; a snapshot (04, 06) or a
	// checkpoint (12) is taken there, a new processor is restored from it,
	// and Events[RestoreAfter:] (the source replayed from the snapshot's
	// offset on) go to the restored one.
	RestoreAfter int
	// RestoreParallelism is the parallelism the snapshot is restored at
	// (stage 06's rescale).
	RestoreParallelism int

	// Rules are stage 11's rules stream, in the order they arrive: after
	// Events[:RulesAfter], before the rest. The rules' watermark is the
	// largest rule timestamp seen minus RuleDelay, raised after every rule.
	Rules      []Rule
	RulesAfter int
	RuleDelay  int64

	// CheckpointEvery is stage 05's: the job takes a checkpoint after
	// every CheckpointEvery source events.
	CheckpointEvery int
	// CrashAfterPreCommit is stage 05's: the first run crashes after
	// pre-committing this checkpoint, before storing it; a second run
	// recovers.
	CrashAfterPreCommit int64
}

// Rule is one element of stage 11's rules stream: from event time TS on, a
// window result of a key that starts with Prefix alerts when its Sum
// reaches Threshold.
type Rule struct {
	Prefix    string
	Threshold int64
	TS        int64
}

// String renders r as de demo and de flink show it: {"eu-" ≥ 5 from 8}.
func (r Rule) String() string {
	ts := fmt.Sprint(r.TS)
	if r.TS == math.MinInt64 {
		ts = "MinInt64"
	}
	return fmt.Sprintf("{%q ≥ %d from %s}", r.Prefix, r.Threshold, ts)
}

// ev is a demo event.
func ev(id, key string, ts, value int64) kit.Event {
	return kit.Event{ID: id, Key: key, TS: ts, Value: value}
}

// streams are the stages' demo streams, by stage number. Stage 07 has
// none: its demo is a script of arrival times on a clock, in two
// partitions, more than a stream of events.
var streams = map[int]Stream{
	1: {
		Events: []kit.Event{
			ev("e1", "a", 1, 1), ev("e2", "b", 3, 2), ev("e3", "a", 12, 3), ev("e4", "a", 4, 4),
			ev("e2", "b", 3, 2), ev("e5", "b", 16, 5), ev("e6", "a", 8, 6),
		},
		WindowSize: 10, WatermarkDelay: 5,
	},
	2: {
		Events: []kit.Event{
			ev("e1", "alice", 0, 3), ev("e2", "bob", 0, 1), ev("e3", "carol", 0, 4), ev("e4", "alice", 0, 1),
			ev("e5", "dave", 0, 5), ev("e6", "bob", 0, 9), ev("e7", "carol", 0, 2), ev("e8", "alice", 0, 6),
		},
		Parallelism: 3,
	},
	3: {
		Events: []kit.Event{
			ev("e1", "a", 2, 1), ev("e2", "a", 5, 2), ev("e3", "a", 11, 3),
			ev("e4", "a", 7, 4), ev("e5", "a", 21, 5), ev("e6", "a", 3, 6),
		},
		WindowSize: 10, AllowedLateness: 10,
	},
	4: {
		// A snapshot after e3; the restored processor gets e3 again (the
		// source replays from the snapshot's offset), then e4 and e5.
		Events: []kit.Event{
			ev("e1", "a", 1, 1), ev("e2", "b", 4, 2), ev("e3", "a", 12, 3),
			ev("e3", "a", 12, 3), ev("e4", "b", 15, 4), ev("e5", "a", 23, 5),
		},
		WindowSize: 10, RestoreAfter: 3,
	},
	5: {
		Events: []kit.Event{
			ev("e1", "a", 1, 1), ev("e2", "a", 12, 2), ev("e3", "b", 14, 3),
			ev("e4", "a", 25, 4), ev("e5", "b", 27, 5), ev("e6", "a", 31, 6),
		},
		WindowSize: 10, CheckpointEvery: 2, CrashAfterPreCommit: 2,
	},
	6: {
		// Five keys on 2 subtasks; a snapshot restored on 3; then e6, and
		// a replay of e2.
		Events: []kit.Event{
			ev("e1", "a", 1, 1), ev("e2", "b", 2, 2), ev("e3", "c", 3, 3), ev("e4", "d", 4, 4), ev("e5", "e", 5, 5),
			ev("e6", "a", 12, 6), ev("e2", "b", 2, 2),
		},
		WindowSize: 10, Parallelism: 2, MaxParallelism: 8, RestoreAfter: 5, RestoreParallelism: 3,
	},
	8: {
		Events: []kit.Event{
			ev("e1", "a", 0, 1), ev("e2", "a", 18, 2), ev("e3", "b", 5, 3), ev("e4", "a", 9, 4), ev("e5", "a", 5, 5),
		},
		Gap: 10, AllowedLateness: 30,
	},
	9: {
		Events: []kit.Event{
			ev("e1", "a", -1, 1), ev("e2", "b", 1, 2), ev("e3", "a", 5, 3), ev("e4", "b", 14, 4),
			ev("e5", "a", 9, 5), ev("e6", "b", 3, 6), ev("e2", "b", 12, 2),
		},
		WindowSize: 10, Slide: 4, AllowedLateness: 2,
	},
	10: {
		// The demo's run with the TTL on the line; its run one short of
		// it delivers the first three events.
		Events: []kit.Event{
			ev("a1", "a", 0, 1), ev("b1", "b", 14, 1), ev("a1", "a", 0, 1), ev("c1", "c", 15, 1), ev("a1", "a", 0, 1),
		},
		WindowSize: 10, AllowedLateness: 5, SeenTTL: 15,
	},
	11: {
		// The events' watermark fires [0,10) before the rules arrive; the
		// rules then pass 10, and a rule behind their watermark is late.
		// A snapshot after the rules is restored on 3 subtasks, then e4.
		Events: []kit.Event{
			ev("e1", "eu-1", 2, 7), ev("e2", "us-1", 4, 3), ev("e3", "eu-1", 13, 1), ev("e4", "us-1", 15, 2),
		},
		Rules:      []Rule{{Prefix: "eu-", Threshold: 5, TS: 8}, {Prefix: "us-", Threshold: 1, TS: 10}, {Prefix: "eu-", Threshold: 100, TS: 9}},
		RulesAfter: 3,
		WindowSize: 10, Parallelism: 2, MaxParallelism: 8, RestoreAfter: 3, RestoreParallelism: 3,
	},
	12: {
		// A checkpoint after e3; the restored processor gets e3 again,
		// then e4 and e5.
		Events: []kit.Event{
			ev("e1", "a", 1, 1), ev("e2", "b", 4, 2), ev("e3", "a", 8, 4),
			ev("e3", "a", 8, 4), ev("e4", "b", 16, 8), ev("e5", "a", 23, 16),
		},
		WindowSize: 10, WatermarkDelay: 5, RestoreAfter: 3,
	},
}

// Of returns stage n's demo stream (n 1-based), a copy the caller may
// change; false for a stage whose demo is not a stream of events.
func Of(n int) (Stream, bool) {
	s, ok := streams[n]
	s.Events = append([]kit.Event(nil), s.Events...)
	s.Rules = append([]Rule(nil), s.Rules...)
	return s, ok
}
