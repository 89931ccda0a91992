//go:build lab || solution

package lateness

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// The event-time helpers of this suite are internal/windowtest's, shared
// with the other stages' suites; ev, res and upd are short for its
// constructors. What this stage adds is below: the per-(key, window)
// history of what was emitted.
var ev, res, upd = windowtest.Ev, windowtest.Res, windowtest.Upd

// newRun returns a recorded run on a new Processor for cfg; it stops the
// test if NewProcessor rejects this valid config.
func newRun(t *testing.T, cfg Config) *windowtest.Run {
	t.Helper()
	return windowtest.NewRun(t, windowtest.MustNew(t, NewProcessor, cfg), cfg.WindowSize, cfg.AllowedLateness)
}

// windowKey names one (key, window) pair: the unit a result describes and
// an update replaces.
type windowKey struct {
	key        string
	start, end int64
}

func (w windowKey) String() string { return fmt.Sprintf("%s [%d,%d)", w.key, w.start, w.end) }

// keyOf returns the (key, window) that r describes.
func keyOf(r kit.Result) windowKey { return windowKey{r.Key, r.Start, r.End} }

// histories groups emitted results by (key, window), each group in
// emission order, and returns the groups' keys in first-emission order.
func histories(emitted []kit.Result) (map[windowKey][]kit.Result, []windowKey) {
	h := map[windowKey][]kit.Result{}
	var order []windowKey
	for _, r := range emitted {
		k := keyOf(r)
		if _, ok := h[k]; !ok {
			order = append(order, k)
		}
		h[k] = append(h[k], r)
	}
	return h, order
}

// finalResults returns the last result emitted for each (key, window), as
// a consumer that upserts by (key, window) ends up holding it, with
// IsUpdate cleared, sorted by (End, Start, Key).
func finalResults(emitted []kit.Result) []kit.Result {
	h, order := histories(emitted)
	out := make([]kit.Result, 0, len(order))
	for _, k := range order {
		last := h[k][len(h[k])-1]
		last.IsUpdate = false
		out = append(out, last)
	}
	return kit.SortResults(out)
}
