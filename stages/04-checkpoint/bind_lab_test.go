//go:build lab

package checkpoint

import impl "github.com/flk-byo/course/lab"

// The stage 04 API (and the stage 01 API it extends), bound to impl:
// package lab under -tags lab, package solutions under -tags solution.
type (
	Config    = impl.Config
	Processor = impl.Processor
)

var (
	NewProcessor     = impl.NewProcessor
	RestoreProcessor = impl.RestoreProcessor
)
