//go:build lab && statebackend_pebble

package lateness

import (
	"testing"

	"github.com/flk-byo/course/internal/onbackend"
	"github.com/flk-byo/course/internal/suite"
	impl "github.com/flk-byo/course/lab"
)

// The stage 01 API, whose Config.AllowedLateness stage 03 gives meaning, bound to stage 12's BackendProcessor on the Pebble backend
// (-tags 'lab statebackend_pebble'), in package lab: stage 12's card
// promises that it behaves exactly as the Processor, so this stage's tests
// run on it unchanged (internal/onbackend).
type (
	Config    = impl.Config
	Processor = impl.BackendProcessor
)

var AssignWindow = impl.AssignWindow

// pebbles opens each processor's backend, with the card's smallest budget,
// and removes them all after the tests.
var pebbles onbackend.Pebbles

// TestMain runs the suite through suite.Main (which tells de each test's
// verdict apart from what the test binary prints), then removes the
// backends.
func TestMain(m *testing.M) { suite.Main(func() int { return pebbles.Run(m) }) }

// NewProcessor is NewBackendProcessor for cfg on a new Pebble backend.
var NewProcessor = onbackend.Pebble(&pebbles, impl.NewBackendProcessor, impl.OpenPebbleBackend, impl.MinPebbleBudget)
