//go:build lab || solution

package quietpartition

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flk-byo/course/drills/01-quiet-partition/engine"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// TestFixCommitsEverySessionWithinTheSLA certifies that from 13:30 into APAC's maintenance window (quiet from 14:00), every session is committed exactly once, with the right count and sum, within 240 s of its end.
//
// The replay runs from 13:30 to 14:30. It catches a timeout that is long
// enough to look safe and too long for the SLA: the empty partitions hold
// every session back until they time out after the job starts, and APAC
// holds back the sessions that end as it falls quiet.
func TestFixCommitsEverySessionWithinTheSLA(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	sc := plan{from: 13*hour + 30*minute, until: 14*hour + 30*minute, regions: todaysRegions,
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
	if len(ls) < 150 || inQuiet < 50 {
		t.Fatalf("suite bug: only %d sessions end while data flows, %d of them in APAC's quiet time", len(ls), inQuiet)
	}
	checkSLA(t, r, ls, "that ended while data flowed",
		"A silent partition holds a session back until it is idle: for IdleTimeout after its last record. So the\n"+
			"timeout is part of every latency the job can promise, and the SLA caps it: with 20 s of out-of-orderness,\n"+
			"records up to 65 s late and a 10 s emit interval, 240 s leaves IdleTimeout at most 145 s.")
}

// TestFixKeepsSparseLATAMInTheWatermark certifies that LATAM, live but sparse (a record every 20 to 45 s) and slow (each 60 to 65 s after its scan), stays in the watermark between its records and is never given a watermark its records have not earned: a till that comes back 1 s before its session would end gets one session, not two.
//
// The replay runs from 13:00 to 14:00, with a LATAM till that comes back
// just inside the gap every 2 minutes, after (or 26 s after) a 49.999 s
// silence of LATAM's. An idle timeout shorter than LATAM's silences drops
// it out of the min between two records, and heartbeats the job makes up
// give it a watermark stamped "now": either way the watermark runs a minute
// ahead of LATAM's stamps, fires the till's session before its comeback
// arrives, and the comeback opens a second one.
func TestFixKeepsSparseLATAMInTheWatermark(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	sc := plan{from: 13 * hour, until: 14 * hour, regions: todaysRegions, returns: true}.build(suite.Rand(t))
	if len(sc.returns) < 12 {
		t.Fatalf("suite bug: only %d LATAM returns planted", len(sc.returns))
	}
	r := runJob(t, sc)
	var lines []string
	for _, p := range sc.returns {
		lines = append(lines, fmt.Sprintf("  %s: scan stamped %s delivered %s; back stamped %s (the session would end at %s), delivered %s",
			p.first.Event.Key, clockOf(p.first.Event.TS), r.fmtAt(p.first.At), clockOf(p.back.Event.TS),
			clockOf(p.first.Event.TS+sessionGap), r.fmtAt(p.back.At)))
	}
	checkResults(t, r, "LATAM's tills that came back just inside the gap, each after (or 26 s after) 49.999 s in which LATAM delivered nothing:\n"+
		strings.Join(lines, "\n")+"\n\n"+
		"A till's scans 14m59s apart are one session. LATAM scans every 20 to 45 s, each record delivered 60 to 65 s after its\n"+
		"scan, so it can deliver nothing for up to 50 s:\n"+
		"its watermark rightly trails the others'. An idle timeout shorter than its silences takes it out of the min\n"+
		"between two records, the watermark jumps to the quick regions', a minute ahead of LATAM's stamps, and fires the\n"+
		"first session before the comeback arrives; the comeback then starts a second session, and the first was\n"+
		"committed as final. The timeout must be longer than the longest silence of a live partition.")
	checkSLA(t, r, r.latencies(nil), "that ended while data flowed",
		"A session split in two is never committed with its final count and sum: the first half was committed as final.")
}

// TestFixSurvivesAnOutageLongerThanTheTimeout certifies that when APAC falls silent for 90 minutes (14:00 to 15:30), far longer than any idle timeout, the sessions on the other partitions keep being committed within the SLA, and APAC's sessions after it comes back are right and on time.
//
// The replay runs from 13:58 to 15:50. APAC is idle through its
// maintenance, and rejoins with its first record: a partition that is idle
// is not dead, and its records after the outage count like any other.
func TestFixSurvivesAnOutageLongerThanTheTimeout(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	sc := plan{from: 13*hour + 58*minute, until: 15*hour + 50*minute, regions: todaysRegions,
		quiet: map[string]span{apac.name: {14 * hour, 15*hour + 30*minute}}}.build(suite.Rand(t))
	r := runJob(t, sc)
	checkResults(t, r, "APAC is idle during its maintenance and active again with its first record after it: its scans then are\n"+
		"stamped after the watermark, which waited for them, and belong to sessions like any other.")
	isAPAC := func(s kit.Result) bool { return strings.HasPrefix(s.Key, apac.name+"-") }
	back := r.latencies(func(s kit.Result) bool { return isAPAC(s) && s.Start >= 15*hour+30*minute })
	during := r.latencies(func(s kit.Result) bool { return !isAPAC(s) && s.End > 14*hour+20*minute && s.End < 15*hour+30*minute })
	if len(back) < 8 || len(during) < 150 {
		t.Fatalf("suite bug: %d APAC sessions after its return and %d others during its outage end while data flows", len(back), len(during))
	}
	checkSLA(t, r, during, "of NA, EU and LATAM that ended during APAC's outage",
		"APAC silent for 90 minutes must leave the min once its idle timeout has passed, and stay out of it until it\n"+
			"delivers again.")
	checkSLA(t, r, back, "of APAC after its return at 15:30", "")
}

// TestFixReadsEveryPartition certifies that a region that goes live on a partition that carried no data (MEA on partition 2, from 13:25) is read and counted: every one of its sessions is committed, right and within the SLA.
//
// The replay runs from 13:00 to 13:55. The 8 empty partitions are
// provisioned for growth: a fix that stops reading them, or leaves them out
// of the watermark, breaks the day one of them carries data.
func TestFixReadsEveryPartition(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	sc := plan{from: 13 * hour, until: 13*hour + 55*minute, regions: append(slices.Clone(todaysRegions), mea),
		quiet: map[string]span{mea.name: {0, 13*hour + 25*minute}}}.build(suite.Rand(t))
	r := runJob(t, sc)
	checkResults(t, r, "MEA's scans arrive on partition 2, which carried nothing until 13:25. The topic has 12 partitions and the job\n"+
		"reads all of them: counting only the 4 that carry data today drops (or misplaces) a region that goes live on\n"+
		"another, and the fix for the empty partitions was never to stop reading them, but to let them go idle.")
	isMEA := func(s kit.Result) bool { return strings.HasPrefix(s.Key, mea.name+"-") }
	ls := r.latencies(isMEA)
	if len(ls) < 20 {
		t.Fatalf("suite bug: only %d MEA sessions end while data flows", len(ls))
	}
	checkSLA(t, r, ls, "of MEA", "")
}

// TestFixToleratesDisorderWithinAPartition certifies that a scan delivered just under 20 s out of order within its partition (a till briefly offline; the source allows 20 s) still joins its till's session, and every session is committed within the SLA: the job keeps the out-of-orderness the source needs, rather than trading it for latency.
//
// The replay runs from 13:00 to 13:50 with LATAM's gateway down (so its
// minute of delay does not hide the others' disorder). Every 4 minutes, at
// an emission time t, each of NA, EU and APAC has just delivered a scan
// stamped t − 1 ms, and a NA till's comeback, stamped 1 ms before its
// session would end, arrives 1 ms after t, 20 s after its scan (the most the
// source allows), 20 s − 2 ms out of order. With 20 s of out-of-orderness
// the watermark at t is at most t − 20 s − 1 ms, short of the session's end
// (t − 20 s + 2 ms); with 20 s − 3 ms or less it is past it, and the session
// fires before its last scan arrives.
func TestFixToleratesDisorderWithinAPartition(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // its time goes to checkpoints: let the jobs of these tests run together
	rnd := suite.Rand(t)
	cfg := Config(suite.TempDir(t))
	sc := plan{from: 13 * hour, until: 13*hour + 50*minute, regions: []region{na, eu, apac}}.build(rnd)
	var lines []string
	for k := range 6 {
		tick := sc.at(13*hour + 18*minute + int64(k)*4*minute)
		if emit := cfg.EmitInterval; emit > 0 {
			tick += (emit - tick%emit) % emit
		}
		for _, rg := range []region{na, eu, apac} {
			sc.arrivals = append(sc.arrivals, engine.Arrival{Partition: rg.partition, At: tick - time.Millisecond,
				Event: kit.Event{ID: fmt.Sprintf("%s-fresh-%d", rg.name, k), Key: fmt.Sprintf("%s-kiosk-fresh-%d", rg.name, k),
					TS: sc.from + (tick - time.Millisecond).Milliseconds(), Value: 1}})
		}
		key := fmt.Sprintf("na-till-offline-%d", k)
		backAt := tick + time.Millisecond
		back := kit.Event{ID: key + "-back", Key: key, TS: sc.from + (backAt - 20*time.Second).Milliseconds(), Value: 1 + rnd.Int64N(50)}
		first := kit.Event{ID: key + "-first", Key: key, TS: back.TS + 1 - sessionGap, Value: 1 + rnd.Int64N(50)}
		sc.arrivals = append(sc.arrivals,
			engine.Arrival{Partition: na.partition, At: sc.at(first.TS) + between(rnd, 0, 2*time.Second), Event: first},
			engine.Arrival{Partition: na.partition, At: backAt, Event: back})
		lines = append(lines, fmt.Sprintf("  %s: scan stamped %s; back stamped %s (the session would end at %s), delivered at %s,\n"+
			"      just after the emission at %s, when every quick region had a scan stamped %s",
			key, clockOf(first.TS), clockOf(back.TS), clockOf(first.TS+sessionGap), clockOf(sc.from+backAt.Milliseconds()),
			clockOf(sc.from+tick.Milliseconds()), clockOf(sc.from+(tick-time.Millisecond).Milliseconds())))
	}
	slices.SortStableFunc(sc.arrivals, func(a, b engine.Arrival) int { return cmp.Compare(a.At, b.At) })
	r := runJob(t, sc)
	checkResults(t, r, "NA's tills that came back just inside the gap, their comeback delivered 20 s after its scan and 20 s − 2 ms out\n"+
		"of order with the rest of NA:\n"+strings.Join(lines, "\n")+"\n\n"+
		"The source allows 20 s of disorder within a partition, and OutOfOrderness is what covers it: the watermark\n"+
		"trails each partition's latest stamp by that much, so that a scan up to 20 s older still finds its session\n"+
		"open. Cutting it shortens every latency and fires sessions before their last scan.")
	checkSLA(t, r, r.latencies(nil), "that ended while data flowed",
		"With LATAM's gateway down, its partition has never delivered: like the eight empty ones, it must go idle.")
}
