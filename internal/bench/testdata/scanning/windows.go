// Package lab is a fixture for the end-to-end test of de bench's scaling
// ratios: a stage-01/03 processor as a learner might write it, correct in
// its results but with the classic cost mistakes, chosen by two constants
// that the test rewrites.
//
//   - scanToFire: the open windows are a map, and every event visits all
//     of them to find the due ones; otherwise their ends are kept in order
//     and the due ones are a prefix.
//   - scanToExpire: fired windows wait out their lateness in a map, and
//     every event visits all of them to find the expired ones; otherwise
//     they wait in firing order and the expired ones are a prefix.
package lab

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/flk-byo/course/kit"
)

const (
	scanToFire   = true
	scanToExpire = true
)

// Config is the cards' Config.
type Config struct{ WindowSize, WatermarkDelay, AllowedLateness int64 }

type tally struct{ count, sum int64 }

type window struct {
	start, end int64
	keys       map[string]*tally
}

// Processor is a tumbling-window processor with allowed lateness.
type Processor struct {
	cfg   Config
	wm    int64
	seen  map[string]bool
	open  map[int64]*window // by end, not fired yet
	ends  []int64           // the ends of open, ascending (when !scanToFire)
	fired map[int64]*window // by end, fired and waiting out the lateness
	order []int64           // the ends of fired, in firing order (when !scanToExpire)
	late  []kit.Event
}

// NewProcessor returns an empty processor, or an error for a bad config.
func NewProcessor(cfg Config) (*Processor, error) {
	if cfg.WindowSize <= 0 || cfg.WatermarkDelay < 0 || cfg.AllowedLateness < 0 {
		return nil, fmt.Errorf("bad config %+v", cfg)
	}
	return &Processor{cfg: cfg, wm: math.MinInt64, seen: map[string]bool{}, open: map[int64]*window{}, fired: map[int64]*window{}}, nil
}

// AssignWindow floors ts to its window.
func AssignWindow(ts, size int64) (start, end int64) {
	r := ts % size
	if r < 0 {
		r += size
	}
	return ts - r, ts - r + size
}

// Process counts e and returns what fires.
func (p *Processor) Process(e kit.Event) []kit.Result {
	if p.seen[e.ID] {
		return nil
	}
	p.seen[e.ID] = true
	start, end := AssignWindow(e.TS, p.cfg.WindowSize)
	if p.wm >= end+p.cfg.AllowedLateness {
		p.late = append(p.late, e)
		return nil
	}
	var out []kit.Result
	if w := p.fired[end]; w != nil {
		t, existed := w.tally(e.Key)
		t.count, t.sum = t.count+1, t.sum+e.Value
		out = append(out, kit.Result{Key: e.Key, Start: start, End: end, Count: t.count, Sum: t.sum, IsUpdate: existed})
	} else {
		w := p.open[end]
		if w == nil {
			w = &window{start: start, end: end, keys: map[string]*tally{}}
			p.open[end] = w
			if !scanToFire {
				i, _ := slices.BinarySearch(p.ends, end)
				p.ends = slices.Insert(p.ends, i, end)
			}
		}
		t, _ := w.tally(e.Key)
		t.count, t.sum = t.count+1, t.sum+e.Value
	}
	if wm := e.TS - p.cfg.WatermarkDelay; wm > p.wm {
		p.wm = wm
	}
	return kit.SortResults(append(out, p.advance()...))
}

// Flush fires every open window.
func (p *Processor) Flush() []kit.Result {
	p.wm = math.MaxInt64
	return kit.SortResults(p.advance())
}

// tally returns key's tally in w, adding it if new.
func (w *window) tally(key string) (t *tally, existed bool) {
	if t = w.keys[key]; t != nil {
		return t, true
	}
	t = &tally{}
	w.keys[key] = t
	return t, false
}

// advance fires the windows due at p.wm and drops the expired ones.
func (p *Processor) advance() []kit.Result {
	var due []*window
	if scanToFire {
		for end, w := range p.open {
			if end <= p.wm {
				due = append(due, w)
			}
		}
		slices.SortFunc(due, func(a, b *window) int { return cmp.Compare(a.end, b.end) })
	} else {
		n := 0
		for n < len(p.ends) && p.ends[n] <= p.wm {
			due = append(due, p.open[p.ends[n]])
			n++
		}
		p.ends = p.ends[n:]
	}
	var out []kit.Result
	for _, w := range due {
		delete(p.open, w.end)
		for key, t := range w.keys {
			out = append(out, kit.Result{Key: key, Start: w.start, End: w.end, Count: t.count, Sum: t.sum})
		}
		p.fired[w.end] = w
		p.order = append(p.order, w.end)
	}
	if scanToExpire {
		for end := range p.fired {
			if p.expired(end) {
				delete(p.fired, end)
			}
		}
		p.order = p.order[:0]
	} else {
		n := 0
		for n < len(p.order) && p.expired(p.order[n]) {
			delete(p.fired, p.order[n])
			n++
		}
		p.order = p.order[n:]
	}
	return out
}

// expired reports whether the window ending at end has expired.
func (p *Processor) expired(end int64) bool {
	cleanup := int64(math.MaxInt64)
	if end <= math.MaxInt64-p.cfg.AllowedLateness {
		cleanup = end + p.cfg.AllowedLateness
	}
	return cleanup <= p.wm
}
