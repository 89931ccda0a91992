package course

import "embed"

// Reference holds the reference solution's files (solutions/*.go, and
// solutions/pebblestate/*.go, stage 12's disk backend) and the drills'
// reference fixes (solutions/drills/*/*.go) as this binary's course version
// has them: de grade runs a drill's job on the reference, and measures how
// close a lab is to it and a drill's fix to the reference fix
// (internal/similarity), from its own copy, so that neither a student's
// edited solutions/ nor a student template without one changes either.
//
//go:embed solutions/*.go solutions/pebblestate/*.go solutions/drills/*/*.go
var Reference embed.FS

// Independent holds the lab written apart from the reference, from the
// cards alone (solutions/independent/*.go.txt): the course's second
// complete solution, against which de grade also measures a lab, since it
// ships with the course as the reference does.
//
//go:embed solutions/independent/*.go.txt
var Independent embed.FS
