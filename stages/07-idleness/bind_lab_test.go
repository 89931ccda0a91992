//go:build lab

package idleness

import impl "github.com/flk-byo/course/lab"

// The stage 07 API (and the stage 01 and 04 API it builds on), bound to
// impl: package lab under -tags lab, package solutions under -tags solution.
type (
	Config          = impl.Config
	Processor       = impl.Processor
	WatermarkConfig = impl.WatermarkConfig
	Watermarks      = impl.Watermarks
)

var (
	NewUpstreamProcessor = impl.NewUpstreamProcessor
	RestoreProcessor     = impl.RestoreProcessor
	NewWatermarks        = impl.NewWatermarks
)
