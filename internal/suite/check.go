package suite

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// MustPanic fails t unless f panics with a message of the code's own: not
// returning normally, and not a runtime error (a division by zero, an index
// out of range), which names a symptom instead of the wrong argument. call
// names the call for the message and why says what was wrong with it. A
// skeleton's "TODO" panic is passed on, so that Recover reports the test as
// not implemented yet.
func MustPanic(t testing.TB, call, why string, f func()) {
	t.Helper()
	var r any
	func() {
		defer func() { r = recover() }()
		f()
	}()
	switch {
	case r == nil:
		t.Errorf("%s returned normally; want a panic with a clear message: %s", call, why)
	case strings.HasPrefix(fmt.Sprint(r), "TODO"):
		panic(r)
	default:
		if _, ok := r.(runtime.Error); ok {
			t.Errorf("%s panicked with the runtime error %q; want a panic with a message of your own (%s):\n"+
				"check the argument first, so the caller reads what was wrong, not a symptom of it", call, fmt.Sprint(r), why)
		}
	}
}

// ErrorCap reports the first Max failures of a check and then only counts
// them, so that one systematic mistake does not bury its explanation under
// a thousand identical lines. Call Done at the end.
type ErrorCap struct {
	T   testing.TB
	Max int
	n   int
}

// Errorf reports a failure, or only counts it once Max were reported.
func (c *ErrorCap) Errorf(format string, args ...any) {
	c.T.Helper()
	c.n++
	if c.n <= c.Max {
		c.T.Errorf(format, args...)
	}
}

// Full reports whether further failures are only counted.
func (c *ErrorCap) Full() bool { return c.n >= c.Max }

// Done reports how many failures were counted but not shown.
func (c *ErrorCap) Done() {
	c.T.Helper()
	if c.n > c.Max {
		c.T.Errorf("… and %d more failures like these", c.n-c.Max)
	}
}
