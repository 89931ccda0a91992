//go:build lab

package seenttl

import impl "github.com/flk-byo/course/lab"

// The stage 10 API, and the stage 01 and 04 API its suite compares it
// with, bound to impl: package lab under -tags lab, package solutions under
// -tags solution. RememberedIDs is a method of Processor.
type (
	Config    = impl.Config
	Processor = impl.Processor
)

var (
	NewSeenTTLProcessor = impl.NewSeenTTLProcessor
	NewProcessor        = impl.NewProcessor
	RestoreProcessor    = impl.RestoreProcessor
)
