// Package solutions is the reference implementation of every stage of
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
//
// The package is cumulative: it holds every stage's code at once, and some
// stages add to an earlier stage's file. `de solution NN` shows each file as
// it stands at stage NN (internal/refview), so that a learner who has just
// passed stage 01 reads stage 01's code and not stage 07's. A later stage's
// code goes in its own file where it can (stage 06's keys is in
// rescaling.go, next to KeysOn, although it is a Processor method); what it
// adds inside an earlier stage's file is marked as a region, between two
// directive lines:
//
//	//course:stage 07 following upstream watermarks only
//	if p.upstreamOnly {
//		return nil
//	}
//	//course:end
//
// The stage is two digits and the label says in a few words what the code
// is for: `de solution` names the stages and labels it left out after each
// file; the stage that adds a region lists the file in stages/catalog.json
// too, and its `de solution` shows the declarations it adds to, its lines
// marked +. Each directive is a line of its own, regions do not nest, and a
// region's stage comes after the first stage that lists the file. At the
// top level, keep a blank line between a directive and a declaration's doc
// comment (gofmt would move the directive to the end of the comment). The
// view at every stage type-checks and is gofmt-formatted, which
// internal/refview's tests prove; the directives are comments, so the go
// tool and the similarity measure of `de grade` ignore them.
package solutions
