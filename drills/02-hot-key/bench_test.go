//go:build lab || solution

package hotkey

import (
	"slices"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/02-hot-key/engine"
	"github.com/flk-byo/course/kit"
)

// BenchmarkHotKey times the job (Run with Config()) against the unsalted
// aggregation it replaced (every payment keyed by its merchant, reduced on
// as many workers), on the same second at the forecast peak, in the same
// run, and reports:
//
//   - speedup: the unsalted aggregation's time over the job's. The busiest
//     worker bounds a run only when there is a core for every worker and
//     the workers, not the single router that feeds them, are the
//     bottleneck; on fewer cores the job's pre-count and second phase are
//     pure cost (on 2 cores the reference measures about 0.5×);
//
//   - busiest-%-salted and busiest-%-unsalted: the busiest worker's share
//     of the payments, counted as the checks count it, whatever the machine.
//
//   - speedup-bound: their ratio, the speed-up of a machine with a core for
//     every worker (about 3.2× for the reference).
//
//     go test -tags lab -run '^$' -bench . ./drills/02-hot-key
func BenchmarkHotKey(b *testing.B) {
	cfg := Config()
	bt := peakBatch("the peak, megamart's flash deal", -1).build(kit.NewRand(2026))
	unsalted := func(batch []kit.Event) map[string]Total {
		rows := make([]Total, len(batch))
		for i, p := range batch {
			rows[i] = single(p)
		}
		return engine.RunParallel(engine.KeyBy(engine.FromSlice(rows), func(t Total) string { return t.Merchant }).
			Reduce(addTotals, max(cfg.Parallelism, 1)))
	}
	out := Run(cfg, slices.Clone(bt.payments))
	salted, err := loadsOf(max(cfg.Parallelism, 1), bt, out)
	if err != nil {
		b.Fatal(err)
	}
	plain, err := loadsOf(max(cfg.Parallelism, 1), bt, Output{Partials: unsalted(bt.payments)})
	if err != nil {
		b.Fatal(err)
	}
	var job, base time.Duration
	for b.Loop() {
		start := time.Now()
		Run(cfg, bt.payments)
		mid := time.Now()
		unsalted(bt.payments)
		job, base = job+mid.Sub(start), base+time.Since(mid)
	}
	share := func(loads []workerLoad) float64 {
		return 100 * float64(loads[busiest(loads)].payments) / float64(len(bt.payments))
	}
	b.ReportMetric(float64(base)/float64(job), "speedup")
	b.ReportMetric(share(plain)/share(salted), "speedup-bound")
	b.ReportMetric(share(salted), "busiest-%-salted")
	b.ReportMetric(share(plain), "busiest-%-unsalted")
}
