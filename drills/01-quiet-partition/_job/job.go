// Package quietpartition is the checkout-sessions job: it groups the scans
// of each till (terminal) into sessions of activity and commits each
// session, exactly once, to the rollups table through the two-phase-commit
// sink.
//
//	checkouts topic (12 partitions) → watermarks → sessions (15 min gap) → 2PC sink
//
// On-call: see the drill's card (de drill start quiet-partition prints it).
package quietpartition

import (
	"time"

	"github.com/flk-byo/course/drills/01-quiet-partition/engine"
	"github.com/flk-byo/course/kit"
)

const (
	// TopicPartitions is the number of partitions of the checkouts topic.
	TopicPartitions = 12
	// SessionGap ends a till's session: no scan for this long.
	SessionGap = 15 * time.Minute
	// OutOfOrderness is how far the scans of one partition may arrive out
	// of timestamp order.
	OutOfOrderness = 20 * time.Second
	// EmitInterval is how often the job emits the watermark and takes a
	// checkpoint, which commits what fired.
	EmitInterval = 10 * time.Second
)

// CommittedLatency is the maximum end-to-end latency this job commits to:
// from a session's end (its last scan + SessionGap) to the moment a reader of
// the rollups table sees it.
//
// TODO(on-call): state the number you defend.
const CommittedLatency time.Duration = 0

// Config returns the job's configuration, with its checkpoints and output
// in dir.
func Config(dir string) engine.SessionJobConfig {
	return engine.SessionJobConfig{
		Watermarks: engine.WatermarkConfig{
			Partitions:     TopicPartitions,
			OutOfOrderness: OutOfOrderness.Milliseconds(),
			// The checkout source sends a heartbeat on every partition every
			// 30 s, so no partition ever falls silent and the platform default
			// is right for us.
			IdleTimeout: engine.DefaultIdleTimeout,
		},
		Sessions:     engine.SessionConfig{Gap: SessionGap.Milliseconds()},
		Dir:          dir,
		EmitInterval: EmitInterval,
	}
}

// Run runs the job with cfg over the records the topic delivers, in the
// order it delivers them, reading and advancing processing time on clock.
// It returns when every session is committed.
func Run(cfg engine.SessionJobConfig, records []engine.Arrival, clock *kit.ManualClock) error {
	return engine.RunSessionJob(cfg, records, clock)
}
