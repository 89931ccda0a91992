//go:build solution

package broadcast

import impl "github.com/flk-byo/course/solutions"

// The stage 11 API, and the stage 01 and 06 API its suite builds on, bound
// to impl: package lab under -tags lab, package solutions under -tags
// solution.
type (
	Rule               = impl.Rule
	Alert              = impl.Alert
	BroadcastProcessor = impl.BroadcastProcessor
	Config             = impl.Config
	ParallelConfig     = impl.ParallelConfig
)

var (
	NewBroadcastProcessor     = impl.NewBroadcastProcessor
	RestoreBroadcastProcessor = impl.RestoreBroadcastProcessor
	NewProcessor              = impl.NewProcessor
	KeyGroup                  = impl.KeyGroup
	TaskForKeyGroup           = impl.TaskForKeyGroup
)
