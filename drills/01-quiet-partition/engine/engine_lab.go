//go:build lab && !drillref

package engine

import impl "github.com/flk-byo/course/lab"

// The stage 07 and 08 API a drill's job and tests use, and stage 05's steps
// and reader, bound to the learner's package lab.
type (
	WatermarkConfig  = impl.WatermarkConfig
	SessionConfig    = impl.SessionConfig
	SessionJobConfig = impl.SessionJobConfig
	Arrival          = impl.Arrival
	Step             = impl.Step
)

const (
	StepWrite           = impl.StepWrite
	StepBeforePreCommit = impl.StepBeforePreCommit
	StepAfterPreCommit  = impl.StepAfterPreCommit
	StepStored          = impl.StepStored
	StepAfterCommit     = impl.StepAfterCommit
)

var (
	RunSessionJob = impl.RunSessionJob
	ReadCommitted = impl.ReadCommitted
)
