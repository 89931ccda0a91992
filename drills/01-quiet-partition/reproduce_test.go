//go:build lab || solution

package quietpartition

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestReproduceSessionsStuckBeforeTheQuietPeriod certifies that sessions that ended half an hour before APAC's maintenance window are committed within the 240 s SLA: the symptom on-call reported, sessions from 13:00 on not in the rollups table for hours.
//
// The replay runs from 13:00 to 13:45, before APAC's maintenance. Every
// session that ends by 13:30 is checked: nothing about APAC can excuse
// those.
func TestReproduceSessionsStuckBeforeTheQuietPeriod(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	sc := plan{from: 13 * hour, until: 13*hour + 45*minute, regions: todaysRegions}.build(suite.Rand(t))
	r := runJob(t, sc)
	ls := r.latencies(func(s kit.Result) bool { return s.End <= 13*hour+30*minute })
	if len(ls) < 100 {
		t.Fatalf("suite bug: only %d sessions end by 13:30", len(ls))
	}
	checkSLA(t, r, ls, "that ended by 13:30, half an hour before APAC's maintenance",
		"The job has data on 4 of its 12 partitions. A partition that has never delivered has no watermark: it holds the\n"+
			"combined watermark (the min over the partitions that are not idle) at −∞ from the first record on, so no\n"+
			"session can close until the end of the input. Nothing sends heartbeats on the 8 empty partitions, whatever\n"+
			"a comment says: read the card's constraints. Which setting lets a silent partition leave the min?")
}
