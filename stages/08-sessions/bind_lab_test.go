//go:build lab

package sessions

import impl "github.com/flk-byo/course/lab"

// The stage 08 API, and the earlier stages' API its suite uses (stage 04's
// RestoreProcessor, stage 05's steps and ReadCommitted, stage 07's
// WatermarkConfig), bound to impl: package lab under -tags lab, package
// solutions under -tags solution.
type (
	SessionConfig    = impl.SessionConfig
	SessionProcessor = impl.SessionProcessor
	Arrival          = impl.Arrival
	SessionJobConfig = impl.SessionJobConfig
	WatermarkConfig  = impl.WatermarkConfig
	Config           = impl.Config
	Processor        = impl.Processor
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
	NewSessionProcessor     = impl.NewSessionProcessor
	RestoreSessionProcessor = impl.RestoreSessionProcessor
	RunSessionJob           = impl.RunSessionJob
	NewProcessor            = impl.NewProcessor
	RestoreProcessor        = impl.RestoreProcessor
	ReadCommitted           = impl.ReadCommitted
)
