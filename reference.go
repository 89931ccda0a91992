package course

import "embed"

// Reference holds the reference solution's files (solutions/*.go, and
// solutions/pebblestate/*.go, stage 12's disk backend) as this
// binary's course version has them: `de grade` measures how close each lab
// file is to them (internal/similarity), from its own copy, so that neither
// a student's edited solutions/ nor a student template without one changes
// the measure.
//
//go:embed solutions/*.go solutions/pebblestate/*.go
var Reference embed.FS
