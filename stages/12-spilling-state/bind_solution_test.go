//go:build solution

package spillingstate

import (
	impl "github.com/flk-byo/course/solutions"
	"github.com/flk-byo/course/solutions/pebblestate"
)

// The stage 12 API, and the stage 01 and 06 API its suite compares it
// with, bound to impl: package lab under -tags lab, package solutions under
// -tags solution. The reference's Pebble backend is its own package,
// pebblestate, so that only this stage's test binary links Pebble; the
// card's names are bound to it here.
type (
	StateBackend     = impl.StateBackend
	BackendProcessor = impl.BackendProcessor
	HeapBackend      = impl.HeapBackend
	PebbleBackend    = pebblestate.PebbleBackend
	Config           = impl.Config
	Processor        = impl.Processor
)

const (
	BackendMaxParallelism = impl.BackendMaxParallelism
	MinPebbleBudget       = pebblestate.MinPebbleBudget
)

var (
	NewBackendProcessor  = impl.NewBackendProcessor
	NewHeapBackend       = impl.NewHeapBackend
	RestoreHeapBackend   = impl.RestoreHeapBackend
	OpenPebbleBackend    = pebblestate.OpenPebbleBackend
	RestorePebbleBackend = pebblestate.RestorePebbleBackend
	NewProcessor         = impl.NewProcessor
	KeyGroup             = impl.KeyGroup
)
