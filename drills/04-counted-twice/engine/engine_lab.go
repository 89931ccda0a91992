//go:build lab && !drillref

package engine

import impl "github.com/flk-byo/course/lab"

// The API drill 04's job and tests use, bound to the learner's package lab: stage 01's
// processor, stage 04's snapshot and restore, stage 05's sink, reader and
// protocol steps.
type (
	Config             = impl.Config
	Processor          = impl.Processor
	TwoPhaseCommitSink = impl.TwoPhaseCommitSink
	Step               = impl.Step
)

const (
	StepWrite           = impl.StepWrite
	StepBeforePreCommit = impl.StepBeforePreCommit
	StepAfterPreCommit  = impl.StepAfterPreCommit
	StepStored          = impl.StepStored
	StepAfterCommit     = impl.StepAfterCommit
)

var (
	NewProcessor              = impl.NewProcessor
	RestoreProcessor          = impl.RestoreProcessor
	NewTwoPhaseCommitSink     = impl.NewTwoPhaseCommitSink
	RecoverTwoPhaseCommitSink = impl.RecoverTwoPhaseCommitSink
	ReadCommitted             = impl.ReadCommitted
)
