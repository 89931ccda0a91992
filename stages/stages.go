// Package stages holds the course content, embedded so that `de` carries
// the pristine version it was built from: the catalogue (catalog.json, in
// course order), and for each stage NN-slug its card (README.md), its
// skeleton files (_skeleton/, copied into lab/ by `de start`) and its
// suite sources (read for the one line each test certifies).
//
// The suites themselves live in the stage folders as packages of their own
// (stages/01-windows, …); this package only embeds their files.
package stages

import "embed"

// FS is the embedded course content, rooted at this folder.
//
//go:embed catalog.json */README.md all:*/_skeleton */*_test.go
var FS embed.FS
