//go:build flink

package parity

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/solutions"
)

// TestSeenTTLMatchesFlink checks stage 10 against event-time dedup as a
// Flink user writes it: keyBy(id) into a KeyedProcessFunction (Flink's
// KeyedProcessOperator) that remembers an ID in a ValueState and clears it
// with an event-time timer at TS + TTL (in the course's watermark terms),
// followed by Flink's WindowOperator of stages 01 and 03. Every delivery
// reaches Flink, redeliveries too, and every call is compared: results,
// side output, watermark, whether the call was dropped as a redelivery,
// and how many IDs are remembered after it (the reference's RememberedIDs
// against the number of keys in the function's state).
//
// What Flink decides, and what the comparison is worth something for:
// when a timer fires (the first watermark at or past it, before the dedup
// operator passes that watermark on to the windows, so that an ID is
// forgotten by the time the windows see the watermark that forgets it),
// and everything the window operator does with a redelivery it lets
// through (counted again, a late firing, or the side output). What the function
// decides, written to the card's rule: that a remembered ID drops its
// redeliveries without moving its expiry, the expiry TS + TTL, saturating,
// and that an ID whose expiry the watermark has reached is not remembered.
//
// TTLs are on the line (WindowSize + AllowedLateness), one short of it,
// below and above it, 0 (forever) and near math.MaxInt64 (saturating);
// about a tenth of the events are delivered twice, some long after, when
// their IDs may have been forgotten. Flink's own state TTL
// (StateTtlConfig) is not what is compared: it is processing time only
// (docs/PARITY.md).
func TestSeenTTLMatchesFlink(t *testing.T) {
	checkWindows(t, "stage 10, seen IDs with a TTL", seenTTLCase)
}

func seenTTLCase(r *seeded) windowCase {
	size := r.size()
	delay := r.Int64N(3*size + 1)
	var allowed int64
	if r.IntN(2) == 0 {
		allowed = r.Int64N(4*size + 1)
	}
	line := size + allowed
	var ttl int64
	switch r.IntN(9) {
	case 0:
		ttl = 0 // remember forever: NewProcessor
	case 1, 2:
		ttl = line
	case 3, 4:
		ttl = max(line-1, 1) // one short: a redelivery can count twice
	case 5, 6:
		ttl = 1 + r.Int64N(line) // below the line
	case 7:
		ttl = line + 1 + r.Int64N(2*size+delay+1) // above it
	case 8:
		ttl = math.MaxInt64 - r.Int64N(2) // TS + TTL saturates
	}
	cfg := solutions.Config{WindowSize: size, WatermarkDelay: delay, AllowedLateness: allowed}
	return windowCase{
		config:      fmt.Sprintf("NewSeenTTLProcessor(Config%+v, %d) (the line: %d)", cfg, ttl, line),
		spec:        flinkrun.WindowSpec{Assigner: "tumbling", Size: size, EventWatermarks: true, Delay: delay, Lateness: allowed},
		newP:        func() windowtest.Processor { return must(solutions.NewSeenTTLProcessor(cfg, ttl)) },
		ops:         r.redeliverLater(r.calls(size, delay, allowed)),
		flinkDedups: true,
		ttl:         ttl,
	}
}

// redeliverLater returns ops with more redeliveries: copies of up to a
// third of the calls' events, each at a later place, a few calls after the
// first or anywhere after it, often long after, when the ID may have been
// forgotten (and its window be open still, or not).
func (r *seeded) redeliverLater(ops []windowtest.Op) []windowtest.Op {
	for range r.IntN(len(ops)/3 + 1) {
		i := r.IntN(len(ops))
		if ops[i].Kind != "process" {
			continue
		}
		after := len(ops) - i
		if r.IntN(2) == 0 {
			after = min(after, 8)
		}
		ops = slices.Insert(ops, i+1+r.IntN(after), ops[i])
	}
	return ops
}
