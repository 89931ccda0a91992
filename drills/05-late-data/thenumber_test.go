//go:build lab || solution

package latedata

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
)

// configBound returns what the job's configuration implies for FinalAfter,
// and how it is made up: an hour ending at E expires when the watermark
// reaches E + AllowedLateness, and the watermark is the job's clock minus
// WatermarkDelay.
func configBound() (bound time.Duration, sum string) {
	cfg := Config()
	bound = ms(cfg.WatermarkDelay + cfg.AllowedLateness)
	return bound, fmt.Sprintf("WatermarkDelay %v + AllowedLateness %v = %v", ms(cfg.WatermarkDelay), ms(cfg.AllowedLateness), bound)
}

// TestFinalAfterIsWithinTheBudget certifies that FinalAfter, the number the job commits to, is positive and at most the ledger's 10 minutes.
func TestFinalAfterIsWithinTheBudget(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	switch {
	case FinalAfter <= 0:
		t.Errorf("FinalAfter = %v, want how far past an hour's end the job's clock can be when it sends its last word on the hour,\n"+
			"in (0, %v]: no hour is final the moment it ends. Derive it from the job's config.", FinalAfter, ms(ledgerClose))
	case FinalAfter > ms(ledgerClose):
		t.Errorf("FinalAfter = %v, want at most %v: the ledger closes an hour 10 minutes after its end and rejects what comes\n"+
			"later, so a job that may still correct an hour after that breaks the close by design. The buses need an hour open\n"+
			"for their 8 minutes; the handhelds' days are reconciliation's.", FinalAfter, ms(ledgerClose))
	}
}

// TestFinalAfterFollowsFromTheConfig certifies that FinalAfter is no more than what the job's configuration implies, WatermarkDelay + AllowedLateness: a number that is merely large is not a commitment.
func TestFinalAfterFollowsFromTheConfig(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	bound, sum := configBound()
	if FinalAfter > bound {
		t.Errorf("FinalAfter = %v, but the job's config implies %s.\n"+
			"An hour's state is dropped when the watermark reaches its end + AllowedLateness, and the watermark is the job's\n"+
			"clock minus WatermarkDelay: from then on every tap for it goes to reconciliation. Committing %v more is padding:\n"+
			"the ledger's 10 minutes are a budget, not a number, and finance plans its close on the number you give.",
			FinalAfter, sum, FinalAfter-bound)
	}
}

// TestFinalAfterIsMet certifies that an hour takes every tap that reaches the job before its clock reads FinalAfter past the hour's end, and none from then on: FinalAfter is exactly where the job's hours become final.
//
// The replay runs from 07:00 to 11:00 and a little beyond. At each hour's
// end E it plants handheld taps for the hour synced when the clock reads
// E + FinalAfter − 1 ms (still counted: a correction) and E + FinalAfter
// (reconciliation), and checks every tap of the replay the same way.
func TestFinalAfterIsMet(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	fa := FinalAfter.Milliseconds()
	if fa <= 0 || fa > 2*hour {
		t.Fatalf("FinalAfter = %v: not a commitment a replay of a morning can hold the job to (TestFinalAfterIsWithinTheBudget says why)", FinalAfter)
	}
	rnd := suite.Rand(t)
	rp := plan{from: tuesday + 7*hour, until: tuesday + 11*hour + fa + 5*minute}.build(rnd)
	for n, e := range rp.hours() {
		if e > tuesday+11*hour {
			break
		}
		rp.plantHandhelds(rnd, e, n, 500, fa-1, fa)
	}
	r := runJob(t, rp)
	rec := r.reconciled()
	first := rp.firsts()
	var early, late []string
	var earlyAt, lateAt int
	for i, a := range rp.arrivals {
		if first[a.tap.ID] != i {
			continue
		}
		final := hourOf(a.tap.TS).end + fa
		switch {
		case r.clocks[i] < final && rec[a.tap.ID] > 0:
			if early = append(early, fmt.Sprintf("  %s for %s, read at %s", a.tap.ID, fmtRow(row{a.tap.Key, hourOf(a.tap.TS)}), clockOf(r.clocks[i]))); len(early) == 1 {
				earlyAt = i
			}
		case r.clocks[i] >= final && rec[a.tap.ID] == 0:
			if late = append(late, fmt.Sprintf("  %s for %s, read at %s", a.tap.ID, fmtRow(row{a.tap.Key, hourOf(a.tap.TS)}), clockOf(r.clocks[i]))); len(late) == 1 {
				lateAt = i
			}
		}
	}
	if len(early) == 0 && len(late) == 0 {
		return
	}
	_, sum := configBound()
	var b strings.Builder
	fmt.Fprintf(&b, "FinalAfter = %v: the job commits that an hour takes every tap read before its clock reads FinalAfter past the hour's\n"+
		"end, and none after. Your config implies %s.\n", FinalAfter, sum)
	if len(late) > 0 {
		fmt.Fprintf(&b, "\n%d taps read at or after that point were still counted (the ledger was told the hour was final):\n%s\n%s\n",
			len(late), strings.Join(capList(late, 4), "\n"), r.tapTimeline(lateAt))
	}
	if len(early) > 0 {
		fmt.Fprintf(&b, "\n%d taps read before that point went to reconciliation (the hour was final before the job said):\n%s\n%s\n",
			len(early), strings.Join(capList(early, 4), "\n"), r.tapTimeline(earlyAt))
	}
	b.WriteString("\nThe number is the config's: the hour's state is dropped when the watermark reaches its end + AllowedLateness, and the\n" +
		"watermark trails the job's clock by WatermarkDelay. Leaving the delay out promises finality WatermarkDelay too soon.")
	at := earlyAt
	if len(late) > 0 {
		at = lateAt
	}
	b.WriteString(r.picture(t, at, b.String()))
	t.Error(b.String())
}
