// Package solutions is the reference implementation of all eight stages of
// FLK-BYO, one package with the same API the learner builds in lab/.
//
// Every stage suite runs against it with `go test -tags solution ./...`;
// learners read it after they pass a stage (`de solution`). It aims to be
// the clearest correct code, commented where the reasoning is subtle, and
// fast without being clever.
package solutions
