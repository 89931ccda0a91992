//go:build solution && statebackend_heap

package windows

import impl "github.com/flk-byo/course/solutions"

// The stage 01 API, bound to stage 12's BackendProcessor on the heap backend
// (-tags 'solution statebackend_heap'), in package solutions: stage 12's card promises
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
