//go:build !fast

package solutions

import (
	"slices"
	"strings"
)

// This file holds how a tumbling window's state is kept in memory, in the
// plain build: a map of tallies per window, allocated when needed and left
// to the garbage collector when the window expires. The tuned build
// (-tags fast, windowstate_fast.go) has the same names with state that is
// recycled instead; docs/PERFORMANCE.md measures the difference.

// window is the state of one tumbling window: a running count and sum per
// key that has events in it.
type window struct {
	start, end int64
	tallies    map[string]*keyTally
}

// keyTally is the running aggregate of one key in one window.
type keyTally struct {
	key        string
	count, sum int64
}

// windowReuse is the state a Processor keeps for reuse: none here.
type windowReuse struct{}

// newWindow returns an empty window [start, end).
func (p *Processor) newWindow(start, end int64) *window {
	return &window{start: start, end: end, tallies: make(map[string]*keyTally)}
}

// dropWindows drops the first n windows, which have expired, by slicing
// them off the front: moving the windows still open down, as slices.Delete
// would, costs a move per open window each time one expires. The backing
// array's freed front is reclaimed when append next grows it.
func (p *Processor) dropWindows(n int) {
	clear(p.windows[:n]) // let the garbage collector take them
	p.windows = p.windows[n:]
}

// tally returns the tally of key in w, adding an empty one if key is new
// to w.
func (w *window) tally(key string) *keyTally {
	t, ok := w.tallies[key]
	if !ok {
		t = &keyTally{key: key}
		w.tallies[key] = t
	}
	return t
}

//course:stage 04 restoring a window from a snapshot

// restoreTally adds the tally of a key new to w, as a snapshot holds it.
func (w *window) restoreTally(key string, count, sum int64) {
	w.tallies[key] = &keyTally{key: key, count: count, sum: sum}
}

//course:end

// sortedTallies returns the tallies of w in ascending key order, the order
// of a window's results: a map iterates in random order.
func (p *Processor) sortedTallies(w *window) []keyTally {
	sorted := make([]keyTally, 0, len(w.tallies))
	for _, t := range w.tallies {
		sorted = append(sorted, *t)
	}
	slices.SortFunc(sorted, func(a, b keyTally) int { return strings.Compare(a.key, b.key) })
	return sorted
}
