//go:build lab && statebackend_heap

package windows

import impl "github.com/flk-byo/course/lab"

// The stage 01 API, bound to stage 12's BackendProcessor on the heap backend
// (-tags 'lab statebackend_heap'), in package lab: stage 12's card promises
// that it behaves exactly as the Processor, so this stage's tests run on
// it unchanged (internal/onbackend).
type (
	Config    = impl.Config
	Processor = impl.BackendProcessor
)

var AssignWindow = impl.AssignWindow

// NewProcessor is NewBackendProcessor for cfg on a new heap backend.
func NewProcessor(cfg Config) (*Processor, error) {
	return impl.NewBackendProcessor(cfg, impl.NewHeapBackend())
}
