//go:build lab || solution

package windows

import (
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
