//go:build lab || solution

package latedata

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestFixLosesNoTap certifies that every tap is in exactly one place, each counted once however often it is delivered: in its own line's hour in the ledger (whose row is the count and sum of exactly those taps) or in reconciliation.
//
// The replay runs from 06:00 to 12:00 with a backlog of handheld taps from
// earlier days, retried bus batches and retried depot syncs. A job that
// reads the side output but books its taps into the hour they arrived in
// gets the day right and the hours wrong; one that drops it loses them.
func TestFixLosesNoTap(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rp := plan{from: tuesday + 6*hour, until: tuesday + 12*hour, backlog: true}.build(suite.Rand(t))
	r := runJob(t, rp)
	checkConservation(t, r, "A tap that reached the job after its hour was final belongs in reconciliation, as it came: not dropped, and not\n"+
		"booked into another hour (finance reconciles each tap into the hour it was made in). One that came before is in\n"+
		"its hour's total, once, however many times a retried batch delivered it.")
}

// TestFixCountsEveryBusTap certifies that every gate and bus tap is in the ledger, in its own line's hour, none in reconciliation, even a bus tap made 1 ms before the hour's end that reaches the job when its clock reads 8 minutes later, the most the source allows.
//
// The replay runs from 07:00 to 11:00. At each hour's end E it plants bus
// taps stamped just before E and delivered right after a gate tap stamped
// 6 min, 7 min 55 s, 7 min 59 s and exactly 8 min after them: the
// watermark they meet is then the clock minus WatermarkDelay, and the
// hour must still be open for them.
func TestFixCountsEveryBusTap(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rnd := suite.Rand(t)
	rp := plan{from: tuesday + 7*hour, until: tuesday + 11*hour}.build(rnd)
	for n, e := range rp.hours() {
		for k, late := range []int64{6 * minute, 7*minute + 55*second, 7*minute + 59*second, busLate} {
			ts := e - 1 - int64(3-k)*7
			rp.plantAtClock(ts+late, rp.plantedTap(bus, busLines[(n+k)%len(busLines)], ts, 240))
		}
	}
	r := runJob(t, rp)
	if !checkConservation(t, r, "Every gate and bus tap must be in its hour's total.") {
		return
	}
	rec := r.reconciled()
	var lost []int
	for _, i := range rp.distinct() {
		if a := rp.arrivals[i]; a.device != handheld && rec[a.tap.ID] > 0 {
			lost = append(lost, i)
		}
	}
	if len(lost) == 0 {
		return
	}
	i, ok := latestOf(r, lost, bus)
	if !ok {
		i = lost[0]
	}
	msg := fmt.Sprintf("%d gate and bus taps went to reconciliation; the business needs every one of them in the ledger. The latest:\n%s\n\n"+
		"A bus tap reaches the job up to 8 minutes after it was made, by the job's clock, and one made just before an hour's\n"+
		"end then meets a watermark of that clock minus WatermarkDelay: 8 minutes minus the delay past the hour's end. The\n"+
		"hour must still take it. Lateness picked from the average delay (1.5 min) or the 99th percentile (6 min) loses the\n"+
		"tail, and the tail is real revenue: the source's bound is the maximum, not a typical value.", len(lost), r.tapTimeline(i))
	t.Errorf("%s%s", msg, r.picture(t, i, msg))
}

// TestFixCorrectsTheHour certifies that a tap the job counts after its hour's totals have gone out goes out at once, in the same Process call, as its line's corrected total for that hour: the full count and sum so far (the ledger replaces the row), IsUpdate if the line had a total there before; and that no other total for an hour already out is sent again.
//
// The replay runs from 07:00 to 10:00: bus taps up to 8 minutes late, and
// handheld taps from the depot syncs.
func TestFixCorrectsTheHour(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rp := plan{from: tuesday + 7*hour, until: tuesday + 10*hour}.build(suite.Rand(t))
	r := runJob(t, rp)
	first := rp.firsts()
	rec := r.reconciled()
	out := map[window]bool{} // hours whose totals have gone out
	sent := map[row]bool{}   // rows the job has sent a total for
	so := map[row]kit.Result{}
	var problems []string
	firstAt := -1 // the arrival of the first problem
	problem := func(i int, p string) {
		if problems = append(problems, p); firstAt < 0 {
			firstAt = i
		}
	}
	corrections := 0
	for i, a := range rp.arrivals {
		o := r.outs[i]
		k := row{a.tap.Key, hourOf(a.tap.TS)}
		counted := first[a.tap.ID] == i && rec[a.tap.ID] == 0
		if counted {
			res := so[k]
			res.Key, res.Start, res.End = k.line, k.w.start, k.w.end
			res.Count++
			res.Sum += a.tap.Value
			so[k] = res
		}
		for _, res := range o.Ledger {
			if out[window{res.Start, res.End}] && (rowOf(res) != k || !counted) {
				problem(i, fmt.Sprintf("after tap %s (%s) the job sent %s again, though no new tap of it was counted:\n"+
					"an hour's totals go out once, and then again only for a tap that corrects them.", a.tap.ID, fmtRow(k), fmtResult(res)))
			}
		}
		if counted && out[k.w] {
			corrections++
			want := so[k]
			want.IsUpdate = sent[k]
			got := slices.IndexFunc(o.Ledger, func(res kit.Result) bool { return rowOf(res) == k })
			if got < 0 || o.Ledger[got] != want {
				sentWhat := "nothing for that row"
				if got >= 0 {
					sentWhat = fmtResult(o.Ledger[got])
					if o.Ledger[got].IsUpdate != want.IsUpdate {
						sentWhat += fmt.Sprintf(" (IsUpdate %v)", o.Ledger[got].IsUpdate)
					}
				}
				problem(i, fmt.Sprintf("tap %s reached the job after the totals of its hour had gone out and did not go to reconciliation,\n"+
					"so its hour must take it; the job sent %s, want %s (IsUpdate %v):\nthe row's full total so far, since the ledger replaces the row.\n%s",
					a.tap.ID, sentWhat, fmtResult(want), want.IsUpdate, r.tapTimeline(i)))
			}
		}
		for _, res := range o.Ledger {
			out[window{res.Start, res.End}] = true
			sent[rowOf(res)] = true
		}
	}
	if corrections == 0 {
		// Vacuous: a job that holds every hour back until the buses' taps
		// are in corrects nothing (TestFixSendsFirstTotalsOnTime says what
		// that costs); one that sends them all to reconciliation neither
		// (TestFixCountsEveryBusTap).
		t.Logf("no tap was counted after its hour's totals had gone out: no correction to check")
	}
	if len(problems) > 0 {
		msg := fmt.Sprintf("%d of the %d taps kept out of reconciliation after their hour's totals had gone out were not sent on as the card\nsays; the first:\n%s\n\n"+
			"The ledger upserts by line and hour: the last total it got for a row is the row. A correction must therefore be the\n"+
			"row's whole corrected total, not the tap's own fare, and must go out with the tap that caused it: the ledger closes\n"+
			"the hour 10 minutes after its end, and what the job holds back until then is never booked.", len(problems), corrections, problems[0])
		t.Errorf("%s%s", msg, r.picture(t, firstAt, msg))
	}
}

// TestFixSendsLateTapsUnchanged certifies that a tap that goes to reconciliation goes there exactly as it came (ID, line, stamp and fare), once, in the Process call that read it, never as a retried copy and never only at Flush; and that a handheld tap synced days after it was made goes to reconciliation, not waited for.
//
// The replay runs from 06:00 to 10:00, with a backlog of handheld taps
// made 6 hours to 4 days before the first depot sync, and retried syncs.
func TestFixSendsLateTapsUnchanged(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rp := plan{from: tuesday + 6*hour, until: tuesday + 10*hour, backlog: true}.build(suite.Rand(t))
	r := runJob(t, rp)
	first := rp.firsts()
	var problems []string
	firstAt := -1 // the arrival of the first problem
	problem := func(i int, p string) {
		if problems = append(problems, p); firstAt < 0 {
			firstAt = i
		}
	}
	seen := map[string]bool{}
	for i, o := range append(slices.Clone(r.outs), r.flush) {
		for _, e := range o.Reconciliation {
			when := "at Flush, at the end of the replay"
			if i < len(r.outs) {
				when = fmt.Sprintf("after tap %s", rp.arrivals[i].tap.ID)
			}
			at, ok := first[e.ID] // the tap's arrival: what a picture of the problem draws
			if !ok {
				at = min(i, len(r.outs)-1)
			}
			switch {
			case seen[e.ID]:
				problem(at, fmt.Sprintf("%s the job sent %s to reconciliation again: each tap goes there once", when, fmtTap(e)))
			case i == len(r.outs) || rp.arrivals[i].tap.ID != e.ID:
				problem(at, fmt.Sprintf("%s the job sent %s to reconciliation: a tap goes there with the Process call that\n"+
					"reads it, not later (finance reconciles during the day)", when, fmtTap(e)))
			case first[e.ID] != i:
				problem(i, fmt.Sprintf("%s, a retried copy, the job sent it to reconciliation: the tap's first delivery decides\n"+
					"where it goes, and a copy changes nothing", when))
			case e != rp.arrivals[i].tap:
				problem(i, fmt.Sprintf("the job sent %s to reconciliation, and the tap it read was %s: reconciliation gets the tap\n"+
					"as it came, to match it against the clearing house's record of it", fmtTap(e), fmtTap(rp.arrivals[i].tap)))
			}
			seen[e.ID] = true
		}
	}
	backlog := 0
	for _, i := range rp.distinct() {
		if a := rp.arrivals[i]; a.device == handheld && r.clocks[i]-a.tap.TS >= 6*hour {
			backlog++
			if !seen[a.tap.ID] {
				problem(i, fmt.Sprintf("tap %s, synced %v after it was made, is not in reconciliation: no hour waits that long for its\n"+
					"last taps (the ledger closed it long ago)\n%s", a.tap.ID, ms(r.clocks[i]-a.tap.TS), r.tapTimeline(i)))
			}
		}
	}
	mustHave(t, backlog, 20, "handheld taps synced 6 hours or more after they were made")
	if len(problems) > 0 {
		msg := fmt.Sprintf("%d problems with what went to reconciliation; the first ones:\n%s", len(problems), strings.Join(capList(problems, 2), "\n"))
		t.Errorf("%s%s", msg, r.picture(t, firstAt, msg))
	}
}

// TestFixSendsFirstTotalsOnTime certifies that each hour's first totals go out by the time the job's clock reads 30 s past the hour's end: for every line with a tap in the hour that the job read before then, the dashboard has a total.
//
// The replay runs from 07:00 to 11:00, with a gate tap stamped exactly
// 30 s past each hour's end. A job that covers the buses' 8 minutes with
// the watermark delay instead of allowed lateness holds every hour's
// totals back 8 minutes.
func TestFixSendsFirstTotalsOnTime(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rp := plan{from: tuesday + 7*hour, until: tuesday + 11*hour}.build(suite.Rand(t))
	for _, e := range rp.hours() {
		rp.plantAtClock(e + dashboardBy)
	}
	r := runJob(t, rp)
	rec := r.reconciled()
	var problems []string
	example := -1 // a tap of the first hour that missed the dashboard
	for _, e := range rp.hours() {
		h := hourOf(e - 1)
		due := slices.IndexFunc(r.clocks, func(c int64) bool { return c >= e+dashboardBy })
		lines := map[string]bool{}
		for i := range due {
			if a := rp.arrivals[i]; hourOf(a.tap.TS) == h && rec[a.tap.ID] == 0 {
				lines[a.tap.Key] = true
			}
		}
		for i := range due + 1 {
			for _, res := range r.outs[i].Ledger {
				if (window{res.Start, res.End}) == h {
					delete(lines, res.Key)
				}
			}
		}
		if len(lines) > 0 {
			problems = append(problems, fmt.Sprintf("  hour %s: no total yet for %s when the job had read tap %s, stamped %s",
				fmtWindow(h), strings.Join(sortedKeys(lines), ", "), rp.arrivals[due].tap.ID, clockOf(rp.arrivals[due].tap.TS)))
			if example < 0 {
				example = slices.IndexFunc(rp.arrivals, func(a arrival) bool { return hourOf(a.tap.TS) == h && lines[a.tap.Key] })
			}
		}
	}
	if len(problems) > 0 {
		msg := fmt.Sprintf("the dashboard shows each hour's first totals by 30 s past the hour, on the job's clock; %d hours missed it:\n%s\n"+
			"one of their taps:\n%s\n\n"+
			"Config: WatermarkDelay %v, AllowedLateness %v. An hour's totals go out when the watermark, the clock minus\n"+
			"WatermarkDelay, reaches its end: the delay is paid by every hour, every day. Late taps that are expected are what\n"+
			"allowed lateness is for: the totals go out on time, and a correction follows each late tap.",
			len(problems), strings.Join(problems, "\n"), r.tapTimeline(example), ms(r.cfg.WatermarkDelay), ms(r.cfg.AllowedLateness))
		t.Errorf("%s%s", msg, r.picture(t, example, msg))
	}
}

// TestFixKeepsTheLedgerClose certifies that the job sends nothing for an hour once its clock reads 10 minutes past the hour's end, when the ledger closes it: a handheld tap for the hour synced then goes to reconciliation.
//
// The replay runs from 07:00 to 11:00. At each hour's end E it plants
// handheld taps for the hour synced when the clock reads exactly E + 10
// min and E + 10 min 1 s.
func TestFixKeepsTheLedgerClose(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel()
	rnd := suite.Rand(t)
	rp := plan{from: tuesday + 7*hour, until: tuesday + 11*hour}.build(rnd)
	for n, e := range rp.hours() {
		rp.plantHandhelds(rnd, e, n, 400, ledgerClose, ledgerClose+second)
	}
	r := runJob(t, rp)
	var late []string
	var first int
	for _, w := range r.writes() {
		if w.at < len(r.outs) && r.clocks[w.at] >= w.res.End+ledgerClose {
			if late = append(late, fmt.Sprintf("  %s, sent when the job's clock read %s", fmtResult(w.res), clockOf(r.clocks[w.at]))); len(late) == 1 {
				first = w.at
			}
		}
	}
	if len(late) == 0 {
		return
	}
	msg := fmt.Sprintf("%d totals were sent after the ledger had closed their hour (10 minutes after its end, on the job's clock); the ledger\n"+
		"rejects them, and their taps are in neither the ledger nor reconciliation:\n%s\nthe first one's tap:\n%s\n\n"+
		"Config: WatermarkDelay %v + AllowedLateness %v = %v: the job keeps an hour open until its clock reads that far past\n"+
		"the hour's end. The close caps the sum at 10 minutes; taps later than that are what reconciliation is for.",
		len(late), strings.Join(capList(late, 5), "\n"), r.tapTimeline(first),
		ms(r.cfg.WatermarkDelay), ms(r.cfg.AllowedLateness), ms(r.cfg.WatermarkDelay+r.cfg.AllowedLateness))
	t.Errorf("%s%s", msg, r.picture(t, first, msg))
}
