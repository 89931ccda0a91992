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

	// MaxParallelism is the number of key groups: a merchant's state lives
	// in key group KeyGroup(merchant, MaxParallelism), and a savepoint holds
	// it under that number. It is fixed for the life of the job's state, not
	// a cap to raise at will: the savepoint of Friday 14:00 was taken with
	// the platform default at parallelism 4, 128, and can be restored only
	// with 128, at any parallelism from 1 to 128.
	MaxParallelism = 128

	// peakOrdersPerSecond is the forecast evening peak, spread evenly over
	// the key groups (tens of thousands of merchants, none above 0.1% of
	// the traffic). It is a fact about the traffic, not a setting: it
	// enters BusiestSubtaskPeak, not the config.
	peakOrdersPerSecond = 25600
)

// Config returns the job's configuration at the given parallelism.
func Config(parallelism int) engine.ParallelConfig {
	return engine.ParallelConfig{
		Processor: engine.Config{
			WindowSize:     Day.Milliseconds(),
			WatermarkDelay: Disorder.Milliseconds(),
		},
		Parallelism: parallelism,
		// The same at every parallelism: the platform default grows with
		// the parallelism (256 from 86 on), and a savepoint is restored only
		// with the maxParallelism it was taken with.
		MaxParallelism: MaxParallelism,
	}
}

// The hand-in: the numbers on-call commits to for the savepoint of
// Friday 27 November, 14:00, and the evening peak.
const (
	// MaxRestoreParallelism is the largest parallelism the 14:00 savepoint
	// can ever be restored to: one subtask owns at least one key group, and
	// the savepoint has MaxParallelism of them, for good. Beyond it the
	// options are a new job with more key groups, or the savepoint's state
	// rewritten offline into more (see the card).
	MaxRestoreParallelism = MaxParallelism

	// BusiestSubtaskPeak is how many orders per second the busiest subtask
	// takes at the forecast peak, at Parallelism: 128 key groups over 12
	// subtasks are 8 subtasks of 11 and 4 of 10, not 10⅔ each, and the
	// traffic is even over key groups, not over subtasks:
	//
	//	⌈128 / 12⌉ = 11 key groups × 25,600 / 128 orders/s each = 2,200 orders/s ≤ 2,500
	//
	// (25,600 / 12 = 2,133 is what an even split would give: the busiest
	// subtask takes 3% more.)
	BusiestSubtaskPeak = (MaxParallelism + Parallelism - 1) / Parallelism * peakOrdersPerSecond / MaxParallelism
)
