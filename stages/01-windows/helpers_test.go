//go:build lab || solution

package windows

import (
	"fmt"
	"math"
	"testing"

	"github.com/flk-byo/course/internal/windowtest"
)

// The event-time helpers of this suite are internal/windowtest's, shared
// with the later stages' suites; ev and res are short for its constructors.
var ev, res = windowtest.Ev, windowtest.Res

// newRun returns a recorded run on a new Processor for cfg; it stops the
// test if NewProcessor rejects this valid config.
func newRun(t *testing.T, cfg Config) *windowtest.Run {
	t.Helper()
	return windowtest.NewRun(t, windowtest.MustNew(t, NewProcessor, cfg), cfg.WindowSize, cfg.AllowedLateness)
}

// nearEdge renders v relative to the end of the int64 range it is near,
// "math.MinInt64 + 99" or "math.MaxInt64", so that a failure at the edges
// reads as the case it is; any other value as it is.
func nearEdge(v int64) string {
	const near = 1 << 20
	switch {
	case v == math.MinInt64:
		return "math.MinInt64"
	case v == math.MaxInt64:
		return "math.MaxInt64"
	case v < math.MinInt64+near:
		return fmt.Sprintf("math.MinInt64 + %d", v-math.MinInt64)
	case v > math.MaxInt64-near:
		return fmt.Sprintf("math.MaxInt64 − %d", math.MaxInt64-v)
	}
	return fmt.Sprint(v)
}
