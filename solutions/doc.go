// Package solutions is the reference implementation of all eight stages of
// FLK-BYO, one package with the same API the learner builds in lab/.
//
// Every stage suite runs against it with `go test -tags solution ./...`;
// learners read it after they pass a stage (`de solution`).
//
// It comes in two builds with the same behaviour, and CI runs every suite
// against both:
//
//   - the plain build (the default) is the clearest correct code, commented
//     where the reasoning is subtle: maps, sorted slices, and the garbage
//     collector. It is what `de solution` shows and what the mistakes in
//     mutants/ are made of.
//   - the tuned build (`-tags fast`, the *_fast.go files) replaces a few
//     files of the plain one with versions that recycle state and keep it
//     out of the garbage collector's way: the set of seen IDs, how window
//     and session state is held, and RunParallel's batches. It is what
//     `de bench` measures; docs/PERFORMANCE.md explains each change with its
//     numbers. Each tuned file has a plain twin of the same name without
//     _fast, defining the same names.
package solutions
