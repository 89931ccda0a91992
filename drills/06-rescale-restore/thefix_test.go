//go:build lab || solution

package rescalerestore

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
	"github.com/flk-byo/course/internal/suite"
)

// TestFixRestoresAtEveryParallelismTheSavepointAllows certifies that the job's Config restores the 14:00 savepoint, every total whole, at any parallelism from 1 to 128: back to 4 after the peak, 11 or 12 for it, and 86 to 128, where a maxParallelism taken from the platform default (256 from 86 on) would no longer be the savepoint's.
func TestFixRestoresAtEveryParallelismTheSavepointAllows(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	in := fixture(t)
	for _, p := range []int{1, oldParallelism, 11, 12, 85, 86, 100, oldMaxParallelism} {
		r := in.restore(Config(p), retention)
		if !checkTotals(t, r, fmt.Sprintf("Run(Config(%d), the 14:00 savepoint, the topic from offset %d)", p, r.earliest),
			fmt.Sprintf("Config(%d) has maxParallelism %d. The savepoint's key groups are fixed: 128 of them, whatever the\n"+
				"parallelism. A maxParallelism that follows the parallelism (as the platform default does: %d at\n"+
				"parallelism %d) restores at some parallelisms and not at others; the next rescale breaks it again.",
				p, r.cfg.MaxParallelism, engine.DefaultMaxParallelism(p), p)) {
			return
		}
	}
}

// TestFixNeverReplaysWhatTheSavepointHolds certifies that when the topic still holds every order since Thursday 23:00 (a retention of seven days, as a stale comment in the job claims), the restored job still appends each total exactly once: it resumes at the savepoint's offset, so Thursday's totals, appended at 00:05 on Friday before the savepoint, are not appended again, and no order counts twice.
func TestFixNeverReplaysWhatTheSavepointHolds(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	in := fixture(t)
	r := in.restore(Config(Parallelism), 7*day)
	checkTotals(t, r, fmt.Sprintf("Run(Config(%d), the 14:00 savepoint, the topic from offset %d, all of it)", Parallelism, r.earliest),
		"The savepoint is the state after exactly its offset: the orders before it are in it, and the totals that closed\n"+
			"before it are already in the rollups table. Starting from zero and re-reading the topic from its earliest offset\n"+
			"appends every day that closed since a second time (the table sums rows) and, with six hours of retention,\n"+
			"loses the morning as well. A restore either continues where the savepoint stopped or does not start.")
}

// TestFixRefusesASavepointItCannotRestore certifies that given a savepoint of this job taken with another maxParallelism (64), the job either restores every total whole or returns an error, and never starts from zero: a job that comes up with its state lost looks healthy while it appends wrong totals.
func TestFixRefusesASavepointItCannotRestore(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	in := newIncident(t, suite.Rand(t), 64)
	r := in.restore(Config(Parallelism), retention)
	if r.err != nil || r.restored() {
		return
	}
	checkTotals(t, r, fmt.Sprintf("Run(Config(%d), a savepoint taken with maxParallelism 64, the topic from offset %d)", Parallelism, r.earliest),
		fmt.Sprintf("Config(%d) has maxParallelism %d; this savepoint has 64 key groups, so the engine cannot restore it\n"+
			"there. Run returned nil and appended totals anyway: it started without the savepoint's state. An\n"+
			"error stops the deployment, and on-call decides; a job that runs on with its state lost fails no\n"+
			"health check, and finance finds out at month end.", Parallelism, r.cfg.MaxParallelism))
}
