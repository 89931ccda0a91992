package demo

import (
	"fmt"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/kit"
)

// seenTTLOp is what demo 10 needs of the reference's Processor: stage 01's
// calls, and stage 10's RememberedIDs.
type seenTTLOp interface {
	windowOp
	RememberedIDs() int
}

// demo10 returns the demo of stage 10: the same redelivery with a seen TTL
// one short of WindowSize + AllowedLateness, counted twice, and on the
// line, a no-op; then what a TTL saves on a long stream.
//
// stages.go, the one file of the package that uses the reference (a
// student template replaces it), hands in the reference's config and
// constructors: config(size, lateness) is its Config, newTTL its
// NewSeenTTLProcessor, newPlain its NewProcessor.
func demo10[C any, P seenTTLOp](config func(size, lateness int64) C, newTTL func(C, int64) (P, error), newPlain func(C) (P, error)) func(*narrator) error {
	return func(n *narrator) error { return runDemo10(n, config, newTTL, newPlain) }
}

func runDemo10[C any, P seenTTLOp](n *narrator, config func(size, lateness int64) C, newTTL func(C, int64) (P, error), newPlain func(C) (P, error)) error {
	st, ok := demostream.Of(10)
	if !ok {
		return fmt.Errorf("demostream has no stream for stage 10")
	}
	size, lateness, e := st.WindowSize, st.AllowedLateness, st.Events
	cfg := config(size, lateness)
	line := size + lateness
	n.say("Tumbling windows of 10 ms, watermark = largest timestamp seen, allowed lateness 5.")
	n.say("Window [0,10) fires at watermark 10 and expires at 15. The line is WindowSize + AllowedLateness = %d.", line)

	for _, ttl := range []int64{line - 1, line} {
		p, err := newTTL(cfg, ttl)
		if err != nil {
			return err
		}
		t := newTape(n, p, size, 0, lateness)
		forgets := "forgets a1 at watermark 0 + " + fmt.Sprint(ttl)
		if ttl < line {
			n.step(fmt.Sprintf("seen TTL %d, one short of the line", ttl))
		} else {
			n.step(fmt.Sprintf("seen TTL %d, on the line", ttl))
		}
		t.process(e[0], "the first instant of [0,10): its ID is the first to be forgotten; TTL "+fmt.Sprint(ttl)+" "+forgets)
		note := "watermark 14: [0,10) has fired, and takes corrections until 15"
		if ttl < line {
			note += "; a1's ID is forgotten now"
		}
		t.process(e[1], note)
		n.say("remembered IDs: %d", p.RememberedIDs())
		if ttl < line {
			delete(t.seen, "a1") // forgotten: the tape must not call the redelivery a no-op
			t.process(e[2], "a1's ID was forgotten at 14, a watermark before its window expired: counted a second time")
		} else {
			t.process(e[2], "remembered until 15, the watermark that expires [0,10): no redelivery can be counted twice")
			t.process(e[3], "watermark 15: [0,10) expires, and a1's ID is forgotten with it")
			delete(t.seen, "a1")
			t.process(e[4], "forgotten, but its window has expired: late, as it would be anyway; no result changes")
		}
		n.say("remembered IDs: %d", p.RememberedIDs())
		t.picture()
	}

	n.step("a long stream: 10 000 events, 4 per ms of event time, each tenth redelivered")
	plain, err := newPlain(cfg)
	if err != nil {
		return err
	}
	bounded, err := newTTL(cfg, line)
	if err != nil {
		return err
	}
	var fromPlain, fromBounded []kit.Result
	deliver := func(e kit.Event) {
		fromPlain = append(fromPlain, plain.Process(e)...)
		fromBounded = append(fromBounded, bounded.Process(e)...)
	}
	for i := range 10_000 {
		e := kit.Event{ID: fmt.Sprintf("e%d", i), Key: "k", TS: int64(i / 4), Value: 1}
		deliver(e)
		if i%10 == 9 {
			deliver(e)
		}
	}
	n.say("NewProcessor remembers %d IDs: every one it has seen, and growing.", plain.RememberedIDs())
	n.say("NewSeenTTLProcessor(cfg, %d) remembers %d: the IDs of the last %d ms of event time, however long it runs.",
		line, bounded.RememberedIDs(), line)
	fromPlain = append(fromPlain, plain.Flush()...)
	fromBounded = append(fromBounded, bounded.Flush()...)
	n.say("Their %d results, Flush included, are the same: %v.", len(fromPlain), sameResults(fromPlain, fromBounded))
	return nil
}
