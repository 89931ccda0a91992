package kit

import "time"

// Clock reads processing time, the wall-clock time of the machine running
// the job, as opposed to the event time carried by records. Code that
// measures processing time (an idleness timeout, say) takes a Clock so that
// tests can drive it with a ManualClock instead of sleeping.
type Clock interface {
	Now() time.Time
}

// ManualClock is a Clock that moves only when told to. The zero value reads
// as the zero time. It is not safe for concurrent use by itself; a test that
// shares one across goroutines must synchronise its calls.
type ManualClock struct {
	now time.Time
}

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time { return c.now }

// Advance moves the clock forward by d; a negative d panics, because
// processing time never runs backwards.
func (c *ManualClock) Advance(d time.Duration) {
	if d < 0 {
		panic("kit.ManualClock.Advance: negative duration " + d.String())
	}
	c.now = c.now.Add(d)
}
