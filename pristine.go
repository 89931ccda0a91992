// Package course is the root of the FLK-BYO course module. It holds what
// `de` embeds when it is built, once: Files, the course's own copy of its
// content and of every file a graded suite depends on, and Reference, the
// reference solution.
package course

import (
	"embed"
	"io/fs"
)

// Files holds, as the course version this binary was built from has them:
//
//   - go.mod (its requirements and replace directives decide which code the
//     suites link);
//   - the stages: the catalogue (stages/catalog.json, in course order) and
//     for each stage NN-slug its card (README.md), its skeleton files
//     (_skeleton/, copied into lab/ by `de start`) and its Go files (suites,
//     bind files, doc: read for the line each test certifies);
//   - the drills: their catalogue (drills/catalog.json) and for each drill
//     NN-slug its card, its worked explanation (EXPLAIN.md), its broken job
//     (_job/, copied into lab/drills/ by `de drill start`) and its Go files,
//     and its engine binding (engine/), which its job compiles against;
//   - the Go files of kit and of the suite helpers internal/suite,
//     internal/windowtest, internal/crashfs, internal/onbackend (which
//     runs stages 01 and 03 on stage 12's backends), internal/verdict
//     (the channel on which a suite reports its verdicts to de) and
//     internal/picture (the pages a failing event-time test draws, with
//     the page's template).
//
// Nothing else in the module is compiled into a stage's test binary, apart
// from the student's own lab/. `de grade` compares a student's tree with
// the Go files and go.mod among them (tamper evidence, internal/grade), so
// an instructor who builds `de` from the course's tagged version sees every
// suite, bind, kit or helper file a student changed, removed or added.
//
//go:embed drills/catalog.json drills/*/README.md drills/*/EXPLAIN.md all:drills/*/_job drills/*/*.go drills/*/engine/*.go
//go:embed go.mod stages/catalog.json stages/*/README.md all:stages/*/_skeleton stages/*/*.go kit/*.go internal/suite/*.go internal/windowtest/*.go internal/crashfs/*.go internal/onbackend/*.go internal/verdict/*.go internal/picture/*.go internal/picture/page.html.tmpl
var Files embed.FS

// Drills returns the drills' content, rooted at the drills folder: what
// internal/catalog's LoadDrills reads.
func Drills() fs.FS {
	sub, err := fs.Sub(Files, "drills")
	if err != nil {
		panic(err) // a constant, valid path: unreachable
	}
	return sub
}

// Stages returns the course content, rooted at the stages folder: what
// internal/catalog reads.
func Stages() fs.FS {
	sub, err := fs.Sub(Files, "stages")
	if err != nil {
		panic(err) // a constant, valid path: unreachable
	}
	return sub
}
