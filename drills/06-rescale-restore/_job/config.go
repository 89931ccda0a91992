package rescalerestore

import (
	"time"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
)

// What the totals are: the finance team's definition.
const (
	// Day is the window: a merchant's total covers one UTC day.
	Day = 24 * time.Hour
	// Disorder is how far the checkout service may deliver an order out of
	// timestamp order. A day's totals are appended once the watermark (the
	// latest order's timestamp minus Disorder) passes the day's end.
	Disorder = 5 * time.Minute
)

// The deployment.
const (
	// Parallelism is how many subtasks run the daily windows.
	//
	// 2026-11-27 (ops): 4 → 12 for the Black Friday evening peak.
	Parallelism = 12

	// MaxParallelism is the most subtasks the job may ever run at.
	// maxParallelism only caps the parallelism: raise it any time you need
	// more room.
	//
	// 2026-11-27 (ops): bumped to 256, to be safe for the peak.
	MaxParallelism = 256
)

// Config returns the job's configuration at the given parallelism.
func Config(parallelism int) engine.ParallelConfig {
	return engine.ParallelConfig{
		Processor: engine.Config{
			WindowSize:     Day.Milliseconds(),
			WatermarkDelay: Disorder.Milliseconds(),
		},
		Parallelism: parallelism,
		// Never below the platform default, which keeps headroom above
		// whatever parallelism we run at.
		MaxParallelism: max(MaxParallelism, engine.DefaultMaxParallelism(parallelism)),
	}
}

// The hand-in: the numbers on-call commits to for the savepoint of
// Friday 27 November, 14:00, and the evening peak.
//
// TODO(on-call): state the numbers you defend.
const (
	// MaxRestoreParallelism is the largest parallelism the 14:00 savepoint
	// can ever be restored to.
	MaxRestoreParallelism = 0

	// BusiestSubtaskPeak is how many orders per second the busiest subtask
	// takes at the forecast peak, at Parallelism.
	BusiestSubtaskPeak = 0
)
