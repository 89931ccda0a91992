//go:build lab || solution

package statenevershrinks

import (
	"fmt"
	"testing"
	"time"

	"github.com/flk-byo/course/internal/suite"
)

// TestFixCountsEveryPaymentOnce certifies that every payment is counted once in its 5-minute window however often and however late the queue delivers it: lost acks redelivered 60 to 180 s later, offline uploads up to 9 minutes after their window closed (which still correct it), and outbox resends of a payment stamped at its window's first millisecond that arrive when the watermark is 1 ms short of the window's expiry.
//
// The replay runs from 13:00 to 14:10. The resends are placed from the
// job's own settings: each arrives right after a payment stamped
// end + AllowedLateness − 1 ms + WatermarkDelay, so the watermark is then
// 1 ms before the window expires. A SeenTTL below WindowSize +
// AllowedLateness has forgotten the ID by then, and the window still
// counts it; a seen set cleared when a window fires, or at each checkpoint,
// forgets the IDs of the lost acks' payments before they come again.
func TestFixCountsEveryPaymentOnce(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	rnd := suite.Rand(t)
	cfg := Config()
	size, late, delay := cfg.Windows.WindowSize, cfg.Windows.AllowedLateness, cfg.Windows.WatermarkDelay
	if size <= 0 {
		t.Fatalf("Config().Windows.WindowSize = %d, want the card's 5-minute windows", size)
	}
	tr := ordinary(13*hour, 14*hour+10*minute)
	var starts []int64
	for s := tr.from + 5*minute; s+size+late+delay < tr.until-5*minute; s += size {
		starts = append(starts, s)
		tr.forced = append(tr.forced, s, s+size+late-1+delay)
	}
	sc := tr.build(rnd)
	byStamp := map[int64]Delivery{}
	for _, d := range sc.deliveries {
		if _, ok := byStamp[d.Payment.TS]; !ok {
			byStamp[d.Payment.TS] = d
		}
	}
	var resends []Delivery
	for _, s := range starts {
		first, okFirst := byStamp[s]
		setter, okSetter := byStamp[s+size+late-1+delay]
		if !okFirst || !okSetter {
			continue
		}
		// The payment that moves the watermark arrives the instant it is
		// stamped, so that nothing stamped later is in before it; the
		// resend comes right after it.
		for i := range sc.deliveries {
			if sc.deliveries[i].Payment.ID == setter.Payment.ID {
				sc.deliveries[i].At = msDur(setter.Payment.TS - sc.epoch)
			}
		}
		resends = append(resends, Delivery{At: msDur(setter.Payment.TS - sc.epoch), Payment: first.Payment})
	}
	if len(resends) < 6 {
		t.Fatalf("only %d resends at the edge of their windows' expiry could be planted: with WindowSize %v, AllowedLateness %v\n"+
			"and WatermarkDelay %v, too few windows of the 70-minute replay expire before it ends. The card's windows are\n"+
			"5 minutes, and payments correct them for 10 minutes after their end.", len(resends), msDur(size), msDur(late), msDur(delay))
	}
	sc.deliveries = sortByArrival(append(sc.deliveries, resends...))
	r := runJob(t, sc)
	checkTotals(t, r, fmt.Sprintf("A redelivery must be ignored for as long as it could still change a total: until its window expires,\n"+
		"AllowedLateness after the window's end. A payment stamped at its window's first millisecond needs its ID\n"+
		"remembered until the watermark reaches start + WindowSize + AllowedLateness (%v here): the seen TTL's line.\n"+
		"Forgetting earlier, or on anything but the watermark (a window's firing, a checkpoint, an eviction, the clock),\n"+
		"counts some redelivery twice; and the lateness itself is the business's, not a knob to shrink the state with.",
		msDur(size+late)))
}

// TestFixSurvivesAnOutboxReplay certifies that when the payments service restarts and its outbox resends every payment of the last 90 minutes within 3 minutes, while live payments and their lost acks keep coming, every payment is still counted once and the job never remembers more IDs than it commits to (MaxRememberedIDs, within the budget).
//
// The replay runs from 12:00 to 14:00; the outbox burst starts at 13:40.
// About 30 000 resends of old payments arrive: those whose windows have
// expired are late (the reconciliation feed takes them) and need no ID
// remembered; a dedup set capped at a number of IDs evicts the ones still
// needed to make room for them, and one that remembers whatever arrives
// in the last minutes of the clock fills with them.
func TestFixSurvivesAnOutboxReplay(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	rnd := suite.Rand(t)
	sc := ordinary(12*hour, 14*hour).build(rnd)
	burst := msDur(hour + 40*minute)
	var resent []Delivery
	sent := map[string]bool{}
	for _, d := range sc.deliveries {
		if d.At < burst && d.At >= burst-outboxReach && !sent[d.Payment.ID] {
			resent = append(resent, d)
		}
		sent[d.Payment.ID] = true
	}
	for i, d := range resent {
		d.At = burst + 3*time.Minute*time.Duration(i)/time.Duration(len(resent))
		resent[i] = d
	}
	if len(resent) < 25000 {
		t.Fatalf("suite bug: only %d payments resent", len(resent))
	}
	sc.deliveries = sortByArrival(append(sc.deliveries, resent...))
	r := runJob(t, sc)
	checkTotals(t, r, fmt.Sprintf("The outbox resent %d payments from 13:40 to 13:43, every one it sent since 12:10. Those whose window\n"+
		"had expired go to the reconciliation feed whether their IDs are remembered or not; those whose window was still\n"+
		"open must find their IDs remembered. A seen set capped at N IDs makes room for the burst by evicting exactly\n"+
		"the IDs still needed: a live payment's lost ack, or a resend of a recent one, then counts twice.", len(resent)))
	limit, name := committedLimit()
	checkRemembered(t, r, limit, name,
		"A burst of resends is a burst of deliveries, not of payments: the payment API still admits one per 100 ms.\n"+
			"A resend of a payment whose ID was forgotten behind the watermark is not remembered again (its time has\n"+
			"come), so an event-time TTL holds no more IDs during the burst than before it. A TTL on the clock keeps\n"+
			"every ID that arrived in its last minutes: the whole burst.")
}

// TestFixHoldsWhileCatchingUpABacklog certifies that when the job starts with an hour of payments waiting in the queue and reads them at 20 times their pace before catching up with live traffic, every payment is counted once and the job never remembers more IDs than it commits to (MaxRememberedIDs, within the budget).
//
// The replay's payments run from 12:00 to 13:45; the job starts at 13:00
// and reads the backlog from 12:00 on, 20 minutes of payments a minute,
// until it reaches the live ones at about 13:03. Event time and the
// watermark move with the payments, whatever the clock does; a TTL on the
// clock holds an hour of payments after three minutes.
func TestFixHoldsWhileCatchingUpABacklog(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	rnd := suite.Rand(t)
	tr := ordinary(12*hour, 13*hour+45*minute)
	tr.lateShare = 0 // an offline upload is late to the live job; in a backlog it is just another record
	n := 0
	ps := tr.payments(rnd, tr.from, &n)
	const pace = 20
	for i, d := range ps {
		stamp := d.Payment.TS - tr.from
		ps[i].At = max(msDur(stamp/pace), msDur(stamp-hour)) + d.At - msDur(stamp)
	}
	sc := scenario{epoch: 13 * hour, deliveries: sortByArrival(withAckRedeliveries(rnd, ps, tr.ackShare))}
	r := runJob(t, sc)
	checkTotals(t, r, "Reading a backlog fast changes when payments arrive, not their stamps: the windows, the watermark and the\n"+
		"seen IDs' expiry all follow the stamps.")
	limit, name := committedLimit()
	checkRemembered(t, r, limit, name,
		"While the job catches up, an hour of event time passes in three minutes of the clock. A TTL measured on the\n"+
			"clock (Flink's StateTtlConfig has only processing time) keeps every ID read in its last minutes: the whole\n"+
			"backlog. Measured behind the watermark, it keeps the same span of event time however fast the job reads:\n"+
			"the bound does not depend on the job's speed, nor on how far behind it is.")
}
