//go:build lab

package twophase

import impl "github.com/flk-byo/course/lab"

// The stage 05 API (and stage 01's Config and NewProcessor), bound to impl:
// package lab under -tags lab, package solutions under -tags solution.
type (
	Config             = impl.Config
	Processor          = impl.Processor
	TwoPhaseCommitSink = impl.TwoPhaseCommitSink
	JobConfig          = impl.JobConfig
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
	NewTwoPhaseCommitSink     = impl.NewTwoPhaseCommitSink
	RecoverTwoPhaseCommitSink = impl.RecoverTwoPhaseCommitSink
	ReadCommitted             = impl.ReadCommitted
	RunJob                    = impl.RunJob
)
