//go:build fast

package solutions

import (
	"slices"
	"strings"
)

// This file holds how a tumbling window's state is kept in memory, in the
// tuned build (-tags fast). windowstate.go has the plain version, with the
// same names: this one recycles expired windows instead of leaving them to
// the garbage collector, keeps a window's tallies in a slice of values with
// an index instead of a map of pointers, and sorts into reused scratch
// space, so that a processor in steady state allocates nothing but its
// results. docs/PERFORMANCE.md has the measurements.

// window is the state of one tumbling window: a running count and sum per
// key that has events in it.
type window struct {
	start, end int64
	// tallies holds one tally per key, in the order the keys first came;
	// index finds a key's tally once the window has more than scanKeys
	// keys (nil until then, and after a restore until an event comes). A
	// slice of values, rather than a map of pointers, costs no allocation
	// per key and is reused whole when the window's state is recycled.
	tallies []keyTally
	index   map[string]int
}

// scanKeys is how many keys a window holds before tally indexes them:
// below it, a scan of the tallies finds a key about as fast as a map, and
// a map costs an open window with one key more than the rest of its state
// together (docs/PERFORMANCE.md, heap per open window). Many windows with
// few keys each is the shape of a job with many open windows.
const scanKeys = 8

// keyTally is the running aggregate of one key in one window.
type keyTally struct {
	key        string
	count, sum int64
}

// windowReuse is what a Processor keeps for reuse: expired windows, emptied,
// and scratch space for a window's tallies in key order.
type windowReuse struct {
	free   pool[*window]
	sorted []keyTally
}

// pool keeps emptied state (windows, sessions, slices) for new state to
// reuse, so that a processor in steady state allocates none: as much
// state expires as opens.
type pool[T any] []T

// maxFree is how much a pool keeps at least. Beyond that it keeps no more
// than the state it came from held: one watermark may expire many windows
// at once and as many open after it, but reuse must not more than double
// the memory of the largest state.
const maxFree = 64

// get returns a kept item, if there is one.
func (p *pool[T]) get() (x T, ok bool) {
	n := len(*p)
	if n == 0 {
		return x, false
	}
	x, *p = (*p)[n-1], (*p)[:n-1]
	return x, true
}

// put keeps x, unless the pool already holds max(maxFree, live) items,
// where live is the size of the state x was part of.
func (p *pool[T]) put(x T, live int) {
	if len(*p) < max(maxFree, live) {
		*p = append(*p, x)
	}
}

// newWindow returns an empty window [start, end), a recycled one if there
// is one.
func (p *Processor) newWindow(start, end int64) *window {
	w, ok := p.reuse.free.get()
	if !ok {
		w = &window{}
	}
	w.start, w.end = start, end
	return w
}

// dropWindows drops the first n windows, which have expired, keeping their
// memory for new windows.
func (p *Processor) dropWindows(n int) {
	for _, w := range p.windows[:n] {
		w.reset()
		p.reuse.free.put(w, len(p.windows))
	}
	clear(p.windows[:n])
	p.windows = p.windows[n:] // slicing off the front moves no open window
}

// reset empties w for reuse, keeping the memory of its slice and map but
// not the keys: a recycled window must not keep old keys' strings alive.
func (w *window) reset() {
	clear(w.tallies)
	w.tallies = w.tallies[:0]
	clear(w.index)
}

// tally returns the tally of key in w, adding an empty one if key is new
// to w.
func (w *window) tally(key string) *keyTally {
	if w.index == nil && len(w.tallies) <= scanKeys {
		for i := range w.tallies {
			if w.tallies[i].key == key {
				return &w.tallies[i]
			}
		}
		if len(w.tallies) < scanKeys {
			w.tallies = append(w.tallies, keyTally{key: key})
			return &w.tallies[len(w.tallies)-1]
		}
	}
	if w.index == nil {
		w.index = make(map[string]int, max(2*scanKeys, len(w.tallies)))
		for i, t := range w.tallies {
			w.index[t.key] = i
		}
	}
	i, ok := w.index[key]
	if !ok {
		i = len(w.tallies)
		w.tallies = append(w.tallies, keyTally{key: key})
		w.index[key] = i
	}
	return &w.tallies[i]
}

// restoreTally adds the tally of a key new to w, as a snapshot holds it.
// The window's index is left for tally to build if an event ever comes for
// the window: most restored windows only fire and expire.
func (w *window) restoreTally(key string, count, sum int64) {
	if w.index != nil {
		w.index[key] = len(w.tallies)
	}
	w.tallies = append(w.tallies, keyTally{key: key, count: count, sum: sum})
}

// sortedTallies returns the tallies of w in ascending key order, in the
// processor's scratch space: valid until the next call. The window's own
// tallies stay in arrival order: with allowed lateness a fired window
// still takes events, and its index must stay valid.
func (p *Processor) sortedTallies(w *window) []keyTally {
	p.reuse.sorted = append(p.reuse.sorted[:0], w.tallies...)
	slices.SortFunc(p.reuse.sorted, func(a, b keyTally) int { return strings.Compare(a.key, b.key) })
	return p.reuse.sorted
}
