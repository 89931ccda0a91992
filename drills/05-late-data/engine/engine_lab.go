//go:build lab && !drillref

package engine

import impl "github.com/flk-byo/course/lab"

// The stage 01 API whose AllowedLateness stage 03 gives its meaning (the
// Processor, its Config and the window assignment), bound to the learner's package lab.
type (
	Config    = impl.Config
	Processor = impl.Processor
)

var (
	AssignWindow = impl.AssignWindow
	NewProcessor = impl.NewProcessor
)
