// Package windowtest holds the event-time helpers that the stage suites
// built on stage 01's Processor share: driving a processor while recording
// what went in and what came out, the oracle of an in-order run, seeded
// call sequences and the catalogue of states a snapshot or a rescale is
// taken in (stages 04 and 06), and the comparisons and renderings that make
// a failure teach (expected, got, why, and a kit.Timeline of the run). Every
// rendering of a key or an ID goes through kit.ShowString (or a kit type's
// String), so a 70 000-byte key still fits on a screen.
//
// Goals: one copy of these helpers for every suite (a test package cannot
// import another's test files); no build tags and no import of lab or
// solutions, so that the same code serves `-tags lab` and `-tags solution`
// alike: the suites hand in their bound processor, which satisfies
// Processor; failure messages at least as good as the copies they replace.
//
// Non-goals: checking any stage's contract (what a result must be, and why,
// is the suite's to say: this package records, compares and draws); holding
// what only one stage needs (update histories, snapshot formats, sinks stay
// in their stage's suite); being a general test framework. It is internal to
// the course: learners read it but never call it.
package windowtest

import (
	"math"
	"reflect"
	"testing"

	"github.com/flk-byo/course/kit"
)

// Processor is the stage 01 method set of a window processor. Both
// *lab.Processor and *solutions.Processor have it, so a suite hands its
// bound processor over without this package knowing which one it is.
type Processor interface {
	Process(e kit.Event) []kit.Result
	AdvanceWatermark(wm int64) []kit.Result
	Watermark() int64
	Flush() []kit.Result
	Late() []kit.Event
}

// MustNew returns newProcessor(cfg), for a stage's bound NewProcessor and a
// config the test knows is valid. It stops the test if that returns an error
// or a nil processor.
//
//	p := windowtest.MustNew(t, NewProcessor, Config{WindowSize: 10})
func MustNew[C any, P Processor](t testing.TB, newProcessor func(C) (P, error), cfg C) P {
	t.Helper()
	p, err := newProcessor(cfg)
	if err != nil || isNil(p) {
		t.Fatalf("NewProcessor(%+v) = %v, %v; want a processor and no error: the config is valid", cfg, p, err)
	}
	return p
}

// isNil reports whether p is nil or a nil pointer.
func isNil(p any) bool {
	v := reflect.ValueOf(p)
	return !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil())
}

// Ev returns the event id key@ts=value.
func Ev(id, key string, ts, value int64) kit.Event {
	return kit.Event{ID: id, Key: key, TS: ts, Value: value}
}

// Res returns the first (non-update) result of key in window [start, end).
func Res(key string, start, end, count, sum int64) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum}
}

// Upd returns a correction (IsUpdate) of key's result in window [start, end).
func Upd(key string, start, end, count, sum int64) kit.Result {
	return kit.Result{Key: key, Start: start, End: end, Count: count, Sum: sum, IsUpdate: true}
}

// WindowStart returns the start of the tumbling window of size size that
// holds ts (negative timestamps too), computed independently of the code
// under test.
func WindowStart(ts, size int64) int64 {
	return ts - ((ts%size)+size)%size
}

// InOrderResults is the oracle of a whole bounded input with no late event:
// one first result per (key, window), counting each event ID once, sorted
// by (End, Start, Key). With allowed lateness it is also the final result
// of each (key, window) that a processor converges to.
func InOrderResults(events []kit.Event, size int64) []kit.Result {
	type keyWindow struct {
		key   string
		start int64
	}
	seen := map[string]bool{}
	acc := map[keyWindow]*kit.Result{}
	var order []keyWindow
	for _, e := range events {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		k := keyWindow{e.Key, WindowStart(e.TS, size)}
		r := acc[k]
		if r == nil {
			r = &kit.Result{Key: e.Key, Start: k.start, End: k.start + size}
			acc[k] = r
			order = append(order, k)
		}
		r.Count++
		r.Sum += e.Value
	}
	out := make([]kit.Result, 0, len(order))
	for _, k := range order {
		out = append(out, *acc[k])
	}
	return kit.SortResults(out)
}

// watermarkOrNone returns p.Watermark(), or math.MinInt64 if it panics (a
// skeleton's TODO): drawing a timeline must not hide the failure it explains.
func watermarkOrNone(p Processor) (wm int64) {
	defer func() {
		if recover() != nil {
			wm = math.MinInt64
		}
	}()
	return p.Watermark()
}

// lateOrNone returns p.Late(), or nothing if it panics (a skeleton's TODO).
func lateOrNone(p Processor) (late []kit.Event) {
	defer func() {
		if recover() != nil {
			late = nil
		}
	}()
	return p.Late()
}
