//go:build lab && !statebackend_heap && !statebackend_pebble

package lateness

import impl "github.com/flk-byo/course/lab"

// The stage 01 API, whose Config.AllowedLateness stage 03 gives meaning,
// bound to impl: package lab under -tags lab, package solutions under
// -tags solution.
type (
	Config    = impl.Config
	Processor = impl.Processor
)

var (
	AssignWindow = impl.AssignWindow
	NewProcessor = impl.NewProcessor
)
