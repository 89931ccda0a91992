// Package quietpartition is the reference fix of drill 01, "The quiet
// partition": the checkout-sessions job, fixed. It groups the scans of each
// till (terminal) into sessions of activity and commits each session,
// exactly once, to the rollups table through the two-phase-commit sink.
//
//	checkouts topic (12 partitions) → watermarks → sessions (15 min gap) → 2PC sink
//
// The job as it was had no idleness: the 8 partitions that never carry data
// had no watermark and held the combined one at math.MinInt64 from the
// first record, so no session closed before the end of the input. The fix
// is one setting, IdleTimeout, chosen between the longest silence of a live
// partition and what the latency SLA leaves, and one number,
// CommittedLatency, derived from the configuration. The drill's EXPLAIN.md
// works through both.
package quietpartition

import (
	"time"

	"github.com/flk-byo/course/drills/01-quiet-partition/engine"
	"github.com/flk-byo/course/kit"
)

const (
	// TopicPartitions is the number of partitions of the checkouts topic.
	// All of them are read, and all of them take part in the watermark:
	// the 8 that carry no data today are provisioned for growth, and a
	// region that goes live on one of them must be neither dropped nor
	// left out of the watermark.
	TopicPartitions = 12
	// SessionGap ends a till's session: no scan for this long.
	SessionGap = 15 * time.Minute
	// OutOfOrderness is how far the scans of one partition may arrive out
	// of timestamp order: a bound on disorder within a partition, not on how
	// far a whole partition lags behind the others (that is what per-partition
	// watermarks are for).
	OutOfOrderness = 20 * time.Second
	// EmitInterval is how often the job emits the watermark and takes a
	// checkpoint, which commits what fired.
	EmitInterval = 10 * time.Second

	// IdleTimeout is how long a partition may deliver nothing before it
	// leaves the watermark until its next record. The source sends records
	// only, no heartbeats, so without it a partition that never carries data
	// pins the watermark for ever. It must be longer than the longest
	// silence of a live partition (LATAM's gateway: scans up to 45 s apart,
	// delivered 60 to 65 s after them, so up to 50 s between two arrivals),
	// or the watermark runs ahead of that partition's records between
	// two of them; and short enough that CommittedLatency stays within the
	// 240 s SLA (IdleTimeout ≤ 240 − 95 = 145 s). A minute leaves a margin
	// on both sides.
	IdleTimeout = time.Minute

	// maxDeliveryDelay is the source's contract: every record reaches the
	// job at most this long after its scan (LATAM's gateway is the slowest,
	// 60 to 65 s; the other regions' records come within 20 s). It is a
	// fact about the source, not a setting: it enters CommittedLatency, not
	// the config.
	maxDeliveryDelay = 65 * time.Second
)

// CommittedLatency is the maximum end-to-end latency this job commits to:
// from a session's end (its last scan + SessionGap) to the moment a reader
// of the rollups table sees it, while some partition is live (at the end of
// the input the final checkpoint commits the rest).
//
// A partition holds a session ending at E back only while its watermark is
// below E, that is, while every record it has delivered is older than
// E + OutOfOrderness. The last such record reaches the job before
// E + OutOfOrderness + maxDeliveryDelay; from then on the partition either
// delivers a newer record (and no longer holds E back) or stays silent and
// is idle once more than IdleTimeout has passed. The next emission, at most
// EmitInterval later, hands the watermark on, fires the session, and the
// checkpoint right after it commits it:
//
//	IdleTimeout 60 s + OutOfOrderness 20 s + delivery 65 s + EmitInterval 10 s = 155 s ≤ 240 s
//
// The bound is reached (to the millisecond) when a partition's last record
// before an outage is stamped just under E + OutOfOrderness, arrives the full
// delivery delay later, and the idle timeout then expires exactly on an
// emission, which does not yet count it idle.
const CommittedLatency = IdleTimeout + OutOfOrderness + maxDeliveryDelay + EmitInterval

// Config returns the job's configuration, with its checkpoints and output
// in dir.
func Config(dir string) engine.SessionJobConfig {
	return engine.SessionJobConfig{
		Watermarks: engine.WatermarkConfig{
			Partitions:     TopicPartitions,
			OutOfOrderness: OutOfOrderness.Milliseconds(),
			// The source sends records only, never heartbeats (the comment
			// that said otherwise described a connector the job no longer
			// uses): a silent partition must time out of the watermark.
			IdleTimeout: IdleTimeout,
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
