//go:build lab

package rescaling

import impl "github.com/flk-byo/course/lab"

// The stage 06 API (and the stage 01 API it builds on), bound to impl:
// package lab under -tags lab, package solutions under -tags solution.
type (
	Config            = impl.Config
	Processor         = impl.Processor
	ParallelConfig    = impl.ParallelConfig
	ParallelProcessor = impl.ParallelProcessor
)

var (
	NewProcessor             = impl.NewProcessor
	KeyGroup                 = impl.KeyGroup
	TaskForKeyGroup          = impl.TaskForKeyGroup
	KeyGroupRange            = impl.KeyGroupRange
	NewParallelProcessor     = impl.NewParallelProcessor
	RestoreParallelProcessor = impl.RestoreParallelProcessor
)
