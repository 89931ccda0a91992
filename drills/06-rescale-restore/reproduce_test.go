//go:build lab || solution

package rescalerestore

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestReproduceFridayTotalsSurviveTheRescale certifies that after the 14:00 savepoint (parallelism 4, maxParallelism 128) is restored at the job's Parallelism, every merchant's total for Friday 27 November counts the whole day, once: the rollups table equals that of a run never rescaled. On-call's symptom was Friday's totals restarting from zero for most merchants.
//
// The topic is as ops found it at 14:06: it keeps six hours of orders, so
// everything before 08:06 is in the savepoint and nowhere else. The job is
// restored as a redeployment restores it, in a fresh process that has
// only the savepoint's bytes.
func TestReproduceFridayTotalsSurviveTheRescale(t *testing.T) {
	defer suite.Recover(t)
	if suite.ChildRole() == "restore" {
		restoreChild(t)
		return
	}
	t.Parallel()
	r := restoreInFreshProcess(t, "TestReproduceFridayTotalsSurviveTheRescale", retention)
	checkTotals(t, r, fmt.Sprintf("Run(Config(%d), the 14:00 savepoint, the topic from offset %d)", Parallelism, r.earliest),
		"A merchant's state lives in key group KeyGroup(merchant, maxParallelism): its hash modulo maxParallelism. The\n"+
			"savepoint holds every merchant's Friday so far under the key group it had with 128 key groups; with another\n"+
			"maxParallelism the same merchant belongs to another key group, so the engine refuses the savepoint (it names\n"+
			"both values). What did the job do when the restore failed, and what does the topic still hold? Whatever the\n"+
			"comments say, maxParallelism is not a cap to raise at will: read the card's constraints.")
}
