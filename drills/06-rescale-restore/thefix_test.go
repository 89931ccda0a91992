//go:build lab || solution

package rescalerestore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flk-byo/course/drills/06-rescale-restore/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
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

// TestFixRefusesASavepointItCannotRestore certifies that given a savepoint of this job taken with another maxParallelism (64), the job either restores every total whole or returns an error, and never starts from zero: a job that comes up with its state lost looks healthy while it appends wrong totals; and that given the 14:00 savepoint once the topic no longer holds its offset, the job returns an error rather than read on from the topic's earliest offset.
func TestFixRefusesASavepointItCannotRestore(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rnd := suite.Rand(t)
	in := newIncident(t, rnd, 64)
	r := in.restore(Config(Parallelism), retention)
	if r.err == nil && !r.restored() {
		checkTotals(t, r, fmt.Sprintf("Run(Config(%d), a savepoint taken with maxParallelism 64, the topic from offset %d)", Parallelism, r.earliest),
			fmt.Sprintf("Config(%d) has maxParallelism %d; this savepoint has 64 key groups, so the engine cannot restore it\n"+
				"there. Run returned nil and appended totals anyway: it started without the savepoint's state. An\n"+
				"error stops the deployment, and on-call decides; a job that runs on with its state lost fails no\n"+
				"health check, and finance finds out at month end.", Parallelism, r.cfg.MaxParallelism))
	}

	// The right savepoint, restored once retention has passed its offset:
	// at 20:06 the topic holds the orders from 14:06 on, and those appended
	// from 14:00 to 14:06 are in neither the savepoint nor the topic.
	ok := newIncident(t, rnd, oldMaxParallelism)
	earliest := ok.sc.offsetAt(savepointAt + 6*minute)
	gone := earliest - int(ok.savepoint.Offset)
	sp := Savepoint{Offset: ok.savepoint.Offset, State: slices.Clone(ok.savepoint.State)}
	rows := 0
	if _, err := Run(Config(Parallelism), &sp, ok.sc.topic(earliest), int64(len(ok.sc.arrivals)), func(kit.Result) { rows++ }); err == nil {
		t.Errorf("Run(Config(%d), the 14:00 savepoint (offset %d), the topic from offset %d) returned no error and appended %d rows;\n"+
			"want an error. Retention has passed the savepoint's offset: the %d records appended from 14:00 to 14:06 (offsets %d to\n"+
			"%d) are in neither the savepoint nor the topic, and every total they belong to would be short of them. A job that\n"+
			"reads on from the topic's earliest offset looks healthy; one that stops with an error lets on-call decide (an\n"+
			"older savepoint, a replay from elsewhere) before a wrong total reaches the table.",
			Parallelism, ok.savepoint.Offset, earliest, rows, gone, ok.savepoint.Offset, earliest-1)
	}
}
