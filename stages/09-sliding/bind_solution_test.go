//go:build solution

package sliding

import impl "github.com/flk-byo/course/solutions"

// The stage 09 API, and the stage 01 API its suite compares it with, bound
// to impl: package lab under -tags lab, package solutions under -tags
// solution.
type (
	SlidingConfig    = impl.SlidingConfig
	SlidingProcessor = impl.SlidingProcessor
	Config           = impl.Config
	Processor        = impl.Processor
)

var (
	AssignSlidingWindows    = impl.AssignSlidingWindows
	NewSlidingProcessor     = impl.NewSlidingProcessor
	RestoreSlidingProcessor = impl.RestoreSlidingProcessor
	NewProcessor            = impl.NewProcessor
)
