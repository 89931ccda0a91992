//go:build lab || solution

package quietpartition

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestFixCommitsEverySessionWithinTheSLA certifies that, from 13:00 into APAC's maintenance window (quiet from 14:00), every session is committed exactly once, with the right count and sum, within 240 s of its end.
//
// The replay runs from 13:00 to 14:45. It catches a timeout that is long
// enough to look safe and too long for the SLA: the empty partitions hold
// every session back until they time out after the job starts, and APAC
// holds back the sessions that end as it falls quiet.
func TestFixCommitsEverySessionWithinTheSLA(t *testing.T) {
	defer suite.Recover(t)
	sc := plan{from: 13 * hour, until: 14*hour + 45*minute, regions: todaysRegions,
		quiet: map[string]span{apac.name: {14 * hour, 15*hour + 30*minute}}}.build(suite.Rand(t))
	r := runJob(t, sc)
	checkResults(t, r, "Every scan is in exactly one session of its till: none lost as late, none counted twice.")
	ls := r.latencies(nil)
	inQuiet := 0
	for _, l := range ls {
		if l.s.End >= 14*hour {
			inQuiet++
		}
	}
	if len(ls) < 200 || inQuiet < 50 {
		t.Fatalf("suite bug: only %d sessions end while data flows, %d of them in APAC's quiet time", len(ls), inQuiet)
	}
	checkSLA(t, r, ls, "that ended while data flowed",
		"A silent partition holds a session back until it is idle: for IdleTimeout after its last record. So the\n"+
			"timeout is part of every latency the job can promise, and the SLA caps it: with 20 s of out-of-orderness,\n"+
			"records up to 65 s late and a 10 s emit interval, 240 s leaves IdleTimeout at most 145 s.")
}

// TestFixKeepsSparseLATAMInTheWatermark certifies that LATAM, live but sparse (a record every 20 to 45 s) and slow (each 60 to 65 s after its scan), stays in the watermark between its records: a till that comes back 5 s before its session would end gets one session, not two.
//
// The replay runs from 13:00 to 14:15, with a LATAM till that comes back
// just inside the gap every 12 minutes, after a 44 s silence of LATAM's.
// An idle timeout shorter than LATAM's silences drops it out of the min
// between two records: the watermark then follows the quick regions, a
// minute ahead of LATAM's stamps, fires the till's session before its
// comeback arrives, and the comeback opens a second one.
func TestFixKeepsSparseLATAMInTheWatermark(t *testing.T) {
	defer suite.Recover(t)
	sc := plan{from: 13 * hour, until: 14*hour + 15*minute, regions: todaysRegions, returns: true}.build(suite.Rand(t))
	if len(sc.returns) < 4 {
		t.Fatalf("suite bug: only %d LATAM returns planted", len(sc.returns))
	}
	r := runJob(t, sc)
	var lines []string
	for _, p := range sc.returns {
		lines = append(lines, fmt.Sprintf("  %s: scan stamped %s delivered %s; back stamped %s (the session would end at %s), delivered %s",
			p.first.Event.Key, clockOf(p.first.Event.TS), r.fmtAt(p.first.At), clockOf(p.back.Event.TS),
			clockOf(p.first.Event.TS+sessionGap), r.fmtAt(p.back.At)))
	}
	checkResults(t, r, "LATAM's tills that came back just inside the gap, each after 44 s in which LATAM delivered nothing:\n"+
		strings.Join(lines, "\n")+"\n\n"+
		"A till's scans 14m55s apart are one session. LATAM delivers every 20 to 45 s, each record a minute after its scan:\n"+
		"its watermark rightly trails the others'. An idle timeout shorter than its silences takes it out of the min\n"+
		"between two records, the watermark jumps to the quick regions', a minute ahead of LATAM's stamps, and fires the\n"+
		"first session before the comeback arrives; the comeback then starts a second session, and the first was\n"+
		"committed as final. The timeout must be longer than the longest silence of a live partition.")
	checkSLA(t, r, r.latencies(nil), "that ended while data flowed",
		"A session split in two is never committed with its final count and sum: the first half was committed as final.")
}

// TestFixSurvivesAnOutageLongerThanTheTimeout certifies that when APAC falls silent for 90 minutes (14:00 to 15:30), far longer than any idle timeout, the sessions on the other partitions keep being committed within the SLA, and APAC's sessions after it comes back are right and on time.
//
// The replay runs from 13:50 to 15:50. APAC is idle through its
// maintenance, and rejoins with its first record: a partition that is idle
// is not dead, and its records after the outage count like any other.
func TestFixSurvivesAnOutageLongerThanTheTimeout(t *testing.T) {
	defer suite.Recover(t)
	sc := plan{from: 13*hour + 50*minute, until: 15*hour + 50*minute, regions: todaysRegions,
		quiet: map[string]span{apac.name: {14 * hour, 15*hour + 30*minute}}}.build(suite.Rand(t))
	r := runJob(t, sc)
	checkResults(t, r, "APAC is idle during its maintenance and active again with its first record after it: its scans then are\n"+
		"stamped after the watermark, which waited for them, and belong to sessions like any other.")
	isAPAC := func(s kit.Result) bool { return strings.HasPrefix(s.Key, apac.name+"-") }
	back := r.latencies(func(s kit.Result) bool { return isAPAC(s) && s.Start >= 15*hour+30*minute })
	during := r.latencies(func(s kit.Result) bool { return !isAPAC(s) && s.End > 14*hour+20*minute && s.End < 15*hour+30*minute })
	if len(back) < 20 || len(during) < 200 {
		t.Fatalf("suite bug: %d APAC sessions after its return and %d others during its outage end while data flows", len(back), len(during))
	}
	checkSLA(t, r, during, "of NA, EU and LATAM that ended during APAC's outage",
		"APAC silent for 90 minutes must leave the min once its idle timeout has passed, and stay out of it until it\n"+
			"delivers again.")
	checkSLA(t, r, back, "of APAC after its return at 15:30", "")
}

// TestFixReadsEveryPartition certifies that a region that goes live on a partition that carried no data (MEA on partition 2, from 13:30) is read and counted: every one of its sessions is committed, right and within the SLA.
//
// The replay runs from 13:00 to 14:10. The 8 empty partitions are
// provisioned for growth: a fix that stops reading them, or leaves them out
// of the watermark, breaks the day one of them carries data.
func TestFixReadsEveryPartition(t *testing.T) {
	defer suite.Recover(t)
	sc := plan{from: 13 * hour, until: 14*hour + 10*minute, regions: append(todaysRegions, mea),
		quiet: map[string]span{mea.name: {0, 13*hour + 30*minute}}}.build(suite.Rand(t))
	r := runJob(t, sc)
	checkResults(t, r, "MEA's scans arrive on partition 2, which carried nothing until 13:30. The topic has 12 partitions and the job\n"+
		"reads all of them: counting only the 4 that carry data today drops (or misplaces) a region that goes live on\n"+
		"another, and the fix for the empty partitions was never to stop reading them, but to let them go idle.")
	isMEA := func(s kit.Result) bool { return strings.HasPrefix(s.Key, mea.name+"-") }
	ls := r.latencies(isMEA)
	if len(ls) < 20 {
		t.Fatalf("suite bug: only %d MEA sessions end while data flows", len(ls))
	}
	checkSLA(t, r, ls, "of MEA", "")
}
