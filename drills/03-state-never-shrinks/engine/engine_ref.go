//go:build !lab || drillref

package engine

import impl "github.com/flk-byo/course/solutions"

// The stage 01 and 03 Processor and its Config (RememberedIDs is a method of
// Processor), and stage 10's constructor, bound to the reference, package
// solutions.
type (
	Config    = impl.Config
	Processor = impl.Processor
)

// NewSeenTTLProcessor is stage 10's: a Processor whose seen IDs are
// forgotten behind the watermark.
var NewSeenTTLProcessor = impl.NewSeenTTLProcessor
