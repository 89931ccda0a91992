//go:build lab || solution

package hotkey

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestReproduceOneWorkerFallsBehind certifies that at the sale's forecast peak (30,000 payments/s, a third of them megamart's flash deal) no worker aggregates more than 4,800 payments/s: the symptom on-call reported, one worker's queue growing while the others idle.
func TestReproduceOneWorkerFallsBehind(t *testing.T) {
	defer suite.Recover(t)
	b := peakBatch("the peak, megamart's flash deal", -1).build(suite.Rand(t))
	_, loads := runBatch(t, Config(), b)
	checkPeak(t, b, loads, peakLimit, "the headroom line",
		"Every payment of a merchant goes to the one worker that owns its key: megamart's 10,000 payments/s all land on\n"+
			"one worker, which cannot take them, while the others have room to spare. It is not GC (the other workers run\n"+
			"the same code, with the same garbage per payment, and keep up), and more workers do not help: one key is one\n"+
			"worker at any parallelism. What would let megamart's payments be aggregated on several workers at once?")
}
