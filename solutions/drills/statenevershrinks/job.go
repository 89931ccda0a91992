// Package statenevershrinks is the reference fix of drill 03, "The state
// that never shrinks": the merchant-totals job, fixed. It sums each
// merchant's payments in 5-minute windows of event time, counts each payment
// once however often the queue delivers it, and corrects a window's total
// when one of its payments arrives late.
//
//	payments queue (at least once) → dedup by payment ID → 5-minute totals per merchant → settlement
//
// The job as it was kept every payment ID it had ever seen (SeenTTL 0, the
// platform default), so its dedup state grew by every payment, for ever,
// until the pod was killed. The fix is one setting, SeenTTL, in event time
// behind the watermark: the window and its lateness, the shortest TTL that
// counts no redelivery twice, whenever it comes. And one number,
// MaxRememberedIDs, derived from the configuration and the payment API's
// rate limit. The drill's EXPLAIN.md works through both.
package statenevershrinks

import (
	"fmt"
	"time"

	"github.com/flk-byo/course/drills/03-state-never-shrinks/engine"
	"github.com/flk-byo/course/kit"
)

const (
	// WindowSize is the length of a settlement window.
	WindowSize = 5 * time.Minute
	// WatermarkDelay is how far the payments of the queue may arrive out of
	// timestamp order: the watermark trails the latest stamp by this much.
	WatermarkDelay = 30 * time.Second
	// AllowedLateness is how long after a window's end a late payment still
	// corrects its total; after that it goes to the reconciliation feed.
	AllowedLateness = 10 * time.Minute
)

// SeenTTL is how long the job remembers a payment's ID, so that a
// redelivery of it is ignored: in event time, behind the watermark (the
// engine forgets an ID once the watermark reaches its stamp + SeenTTL), not
// on the clock.
//
// It is the line of stage 10: a payment stamped at its window's start is
// forgotten at watermark start + SeenTTL = end + AllowedLateness, the
// moment its window expires. From then on a redelivery of it is late
// whether remembered or not (it goes to the reconciliation feed and changes
// no total), so the outbox's resends up to 90 minutes later need no longer
// memory. One millisecond less and a resend arriving just before the window
// expires is counted twice. It also fits the budget: SeenTTL may be at most
// 12 000 × 100 ms − WatermarkDelay = 19 min 30 s (see MaxRememberedIDs).
const SeenTTL = WindowSize + AllowedLateness

// minPaymentSpacing is the payment API's rate limit, a fact about the
// source, not a setting: it admits at most one payment per 100 ms on a
// partition (10 a second), so no two payments of this job's partition are
// stamped less than 100 ms apart.
const minPaymentSpacing = 100 * time.Millisecond

// MaxRememberedIDs is the most payment IDs this job remembers at once.
//
// The engine remembers an ID while the watermark is below its stamp +
// SeenTTL, and the watermark is the latest stamp seen − WatermarkDelay: so
// every remembered ID is stamped in the last SeenTTL + WatermarkDelay of
// event time up to the latest stamp, a span that holds at most one payment
// per 100 ms (a redelivery adds no ID; a resend the job has forgotten is
// not remembered again, its time having come):
//
//	(SeenTTL 15 min + WatermarkDelay 30 s) / 100 ms = 930 s × 10/s = 9 300 IDs ≤ 12 000
//
// A partition at its peak, every 100 ms, delivered in order, reaches it.
const MaxRememberedIDs = int((SeenTTL + WatermarkDelay) / minPaymentSpacing)

// Delivery is one delivery of a payment by the queue: the payment, and when
// it reached the job, as processing time since the job started.
type Delivery struct {
	At      time.Duration
	Payment kit.Event
}

// JobConfig is the job's configuration.
type JobConfig struct {
	// Windows configures the engine's windows (milliseconds of event time).
	Windows engine.Config
	// SeenTTL is how long a payment's ID is remembered (see the constant).
	SeenTTL time.Duration
	// OnDelivery, if set, is called after each delivery with the number of
	// payment IDs the job remembers then: the platform's state-size metric,
	// and what the memory alert watches.
	OnDelivery func(d Delivery, remembered int)
}

// Config returns the job's configuration.
func Config() JobConfig {
	return JobConfig{
		Windows: engine.Config{
			WindowSize:      WindowSize.Milliseconds(),
			WatermarkDelay:  WatermarkDelay.Milliseconds(),
			AllowedLateness: AllowedLateness.Milliseconds(),
		},
		SeenTTL: SeenTTL,
	}
}

// Run runs the job with cfg over the deliveries, in order, advancing clock
// to each delivery's time before processing it, and returns every total it
// emitted, in order: each window's total per merchant when the watermark
// passes its end, then a corrected total for each late payment.
func Run(cfg JobConfig, deliveries []Delivery, clock *kit.ManualClock) ([]kit.Result, error) {
	// The engine's seen IDs are the job's whole dedup state: a payment's
	// ID is forgotten behind the watermark, never on a window's firing (a
	// redelivery can come after its window fired and still correct it,
	// until the window expires) and never on the clock (a backlog read in
	// minutes would be hours of IDs).
	p, err := engine.NewSeenTTLProcessor(cfg.Windows, cfg.SeenTTL.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("merchant-totals: %w", err)
	}
	start := clock.Now()
	var out []kit.Result
	for _, d := range deliveries {
		if wait := d.At - clock.Now().Sub(start); wait > 0 {
			clock.Advance(wait)
		}
		out = append(out, p.Process(d.Payment)...)
		if cfg.OnDelivery != nil {
			cfg.OnDelivery(d, p.RememberedIDs())
		}
	}
	return append(out, p.Flush()...), nil
}
