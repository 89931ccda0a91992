package latedata

import (
	"time"

	"github.com/flk-byo/course/drills/05-late-data/engine"
)

const (
	// Hour is the ledger's window: revenue is booked per line and hour.
	Hour = time.Hour

	// WatermarkDelay is how far the watermark trails the newest tap the
	// job has read. The gates deliver every tap within a second of it, so
	// 5 s covers their disorder with room to spare, and the dashboard gets
	// each hour's totals 5 s after the hour.
	WatermarkDelay = 5 * time.Second

	// AllowedLateness is how long an hour's state is kept after its totals
	// have gone out, to correct them. The fare feed is ordered (it is the
	// clearing house's sorted export), so nothing arrives after its hour
	// and the platform default is right for us.
	AllowedLateness = time.Duration(engine.DefaultAllowedLateness)
)

// FinalAfter is the job's commitment to the ledger: how far past an hour's
// end the job's clock (the newest tap stamp it has read) can be when the
// job sends its last word on that hour. From then on the hour is final.
//
// TODO(on-call): state the number you defend.
const FinalAfter time.Duration = 0

// Config returns the processor's configuration: hourly windows, the
// watermark delay and the allowed lateness, in milliseconds.
func Config() engine.Config {
	return engine.Config{
		WindowSize:      Hour.Milliseconds(),
		WatermarkDelay:  WatermarkDelay.Milliseconds(),
		AllowedLateness: AllowedLateness.Milliseconds(),
	}
}
