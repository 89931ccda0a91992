package windowtest

import (
	"fmt"
	"slices"

	"github.com/flk-byo/course/kit"
)

// WholeCheckpoints returns k when got, what a reader of a two-phase-commit
// sink's committed output sees, is exactly the results of checkpoints 1..k
// of an uninterrupted run, perCheckpoint[i] being those of checkpoint i+1
// (the largest such k: checkpoints without results make several fit). If
// got is anything else, the error says what: "N results: the results of
// checkpoints 1..k, then …", a part of the next checkpoint's transaction,
// or results no checkpoint has, for the caller to prefix with where got
// came from. Stages 05 and 08 check a reader's view mid-commit and after a
// power loss with it (internal/crashfs).
func WholeCheckpoints(got []kit.Result, perCheckpoint [][]kit.Result) (int, error) {
	k, n := 0, 0 // the longest run of whole checkpoints got starts with
	for k < len(perCheckpoint) {
		next := perCheckpoint[k]
		if n+len(next) > len(got) || !slices.Equal(got[n:n+len(next)], next) {
			break
		}
		k, n = k+1, n+len(next)
	}
	if n == len(got) {
		return k, nil
	}
	rest := got[n:]
	what := fmt.Sprintf("%d results: the results of checkpoints 1..%d (%d results), then %d more", len(got), k, n, len(rest))
	if k == len(perCheckpoint) {
		return 0, fmt.Errorf("%s, though that is all an uninterrupted run commits:\n%s", what, FmtResultsUpTo(rest, 8))
	}
	next := perCheckpoint[k]
	if len(rest) < len(next) && slices.Equal(rest, next[:len(rest)]) {
		return 0, fmt.Errorf("%s: the first %d of the %d results of checkpoint %d, a part of its transaction", what, len(rest), len(next), k+1)
	}
	return 0, fmt.Errorf("%s, which are not checkpoint %d's %d results:\n%s%s", what, k+1, len(next), DiffResults(rest, next), SideBySide(rest, next))
}
