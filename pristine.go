// Package course is the root of the FLK-BYO course module. It holds what
// `de` embeds when it is built: Pristine, the course's own copy of every
// file a graded suite depends on, and Reference, the reference solution. `de grade` compares a
// student's tree against it (internal/grade), so an instructor who builds
// `de` from the course's tagged version sees every suite, bind, kit or
// helper file a student changed, removed or added.
package course

import "embed"

// Pristine holds, as the course version this binary was built from has
// them: go.mod (its requirements and replace directives decide which code
// the suites link), the stage folders' Go files (suites, bind files, doc),
// and the Go files of kit and of the suite helpers internal/suite and
// internal/windowtest. Nothing else in the module is compiled into a
// stage's test binary, apart from the student's own lab/.
//
//go:embed go.mod stages/*/*.go kit/*.go internal/suite/*.go internal/windowtest/*.go
var Pristine embed.FS
