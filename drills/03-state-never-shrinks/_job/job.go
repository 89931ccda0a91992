// Package statenevershrinks is the merchant-totals job: it sums each
// merchant's payments in 5-minute windows of event time, counts each payment
// once however often the queue delivers it, and corrects a window's total
// when one of its payments arrives late.
//
//	payments queue (at least once) → dedup by payment ID → 5-minute totals per merchant → settlement
//
// On-call: see the drill's card (de drill start state-never-shrinks prints it).
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
// redelivery of it is ignored. 0, the platform default, remembers every ID
// for ever: the only setting that can never count a payment twice.
const SeenTTL = engine.DefaultSeenTTL

// MaxRememberedIDs is the most payment IDs this job remembers at once.
//
// TODO(on-call): state the number you defend.
const MaxRememberedIDs = 0

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
	// Payment IDs are unique per window, so the seen set could be cleared
	// each time a window fires. The engine has no call for that, which is
	// why SeenTTL is left at the default.
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
