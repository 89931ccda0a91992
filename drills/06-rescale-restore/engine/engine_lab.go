//go:build lab && !drillref

package engine

import impl "github.com/flk-byo/course/lab"

// The stage 06 API a drill's job and tests use (and the stage 01 window
// config it builds on), bound to the learner's package lab.
type (
	Config            = impl.Config
	ParallelConfig    = impl.ParallelConfig
	ParallelProcessor = impl.ParallelProcessor
)

var (
	NewParallelProcessor     = impl.NewParallelProcessor
	RestoreParallelProcessor = impl.RestoreParallelProcessor
	KeyGroup                 = impl.KeyGroup
	TaskForKeyGroup          = impl.TaskForKeyGroup
	KeyGroupRange            = impl.KeyGroupRange
)
