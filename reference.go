package course

import "embed"

// Reference holds the reference solution's files (solutions/*.go, and
// solutions/pebblestate/*.go, stage 12's disk backend) as this binary's
// course version has them: de grade runs a drill's job on it, and measures
// how close a lab is to it (internal/similarity), from its own copy, so
// that neither a student's edited solutions/ nor a student template
// without one changes either.
//
//go:embed solutions/*.go solutions/pebblestate/*.go
var Reference embed.FS

// Independent holds the lab written apart from the reference, from the
// cards alone (solutions/independent/*.go.txt): the course's second
// complete solution, against which de grade also measures a lab, since it
// ships with the course as the reference does.
//
//go:embed solutions/independent/*.go.txt
var Independent embed.FS
