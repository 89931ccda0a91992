package latedata

import (
	"time"

	"github.com/flk-byo/course/drills/05-late-data/engine"
)

const (
	// Hour is the ledger's window: revenue is booked per line and hour.
	Hour = time.Hour

	// WatermarkDelay is how far the watermark trails the newest tap the
	// job has read: disorder tolerated before an hour's first totals. The
	// gates deliver every tap within a second, so 5 s covers them; the
	// dashboard wants each hour's first totals by 30 s past it, so this
	// must not grow to cover the buses (that is AllowedLateness's job).
	WatermarkDelay = 5 * time.Second

	// AllowedLateness is how long an hour's state is kept after its first
	// totals, to correct them. The job reads the fare devices' topic, not
	// the clearing house's sorted export (the comment that said so
	// described the job before it moved), and a bus tap can reach it 8
	// minutes after it was made. Such a tap, made just before the hour's
	// end, meets a watermark at most 8 min − WatermarkDelay past that end,
	// so the lateness must be at least 8 min − 5 s = 7 min 55 s; the
	// ledger closes an hour 10 minutes after its end, so
	// WatermarkDelay + AllowedLateness must not exceed 10 min. 8 minutes
	// keeps 5 s of margin below and 1 min 55 s above. The inspectors'
	// handhelds sync 40 minutes to days late: they are not waited for, but
	// go to reconciliation.
	AllowedLateness = 8 * time.Minute
)

// FinalAfter is the job's commitment to the ledger: how far past an hour's
// end the job's clock (the newest tap stamp it has read) can be when the
// job sends its last word on that hour. From then on the hour is final: a
// tap for it goes to reconciliation.
//
// An hour ending at E expires when the watermark reaches E +
// AllowedLateness; the watermark is the clock minus WatermarkDelay, so
// that is when the clock reaches E + WatermarkDelay + AllowedLateness. A
// tap read one millisecond before is still counted, and corrects the hour:
//
//	WatermarkDelay 5 s + AllowedLateness 8 min = 8 min 5 s ≤ the ledger's 10 min
const FinalAfter = WatermarkDelay + AllowedLateness

// Config returns the processor's configuration: hourly windows, the
// watermark delay and the allowed lateness, in milliseconds.
func Config() engine.Config {
	return engine.Config{
		WindowSize:      Hour.Milliseconds(),
		WatermarkDelay:  WatermarkDelay.Milliseconds(),
		AllowedLateness: AllowedLateness.Milliseconds(),
	}
}
