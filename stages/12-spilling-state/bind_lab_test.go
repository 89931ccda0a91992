//go:build lab

package spillingstate

import impl "github.com/flk-byo/course/lab"

// The stage 12 API, and the stage 01 and 06 API its suite compares it
// with, bound to impl: package lab under -tags lab, package solutions under
// -tags solution.
type (
	StateBackend     = impl.StateBackend
	BackendProcessor = impl.BackendProcessor
	HeapBackend      = impl.HeapBackend
	PebbleBackend    = impl.PebbleBackend
	Config           = impl.Config
	Processor        = impl.Processor
)

const (
	BackendMaxParallelism = impl.BackendMaxParallelism
	MinPebbleBudget       = impl.MinPebbleBudget
)

var (
	NewBackendProcessor  = impl.NewBackendProcessor
	NewHeapBackend       = impl.NewHeapBackend
	RestoreHeapBackend   = impl.RestoreHeapBackend
	OpenPebbleBackend    = impl.OpenPebbleBackend
	RestorePebbleBackend = impl.RestorePebbleBackend
	NewProcessor         = impl.NewProcessor
	KeyGroup             = impl.KeyGroup
)
