//go:build lab || solution

package statenevershrinks

import (
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestReproduceDedupStateLevelsOff certifies that over two hours of an ordinary day (about 6 payments a second, with lost acks and offline uploads), the payment IDs the job remembers level off within the instance's budget of 12 000 instead of growing with every payment: the symptom on-call reported, memory that climbs in a straight line until the pod is killed.
func TestReproduceDedupStateLevelsOff(t *testing.T) {
	defer suite.Recover(t)
	t.Parallel() // the replays are the suite's time: let them run together
	sc := ordinary(10*hour, 12*hour).build(suite.Rand(t))
	r := runJob(t, sc)
	checkRemembered(t, r, budget, "the instance's budget",
		"The job remembers a payment's ID so that a redelivery is ignored, and with SeenTTL 0 (the platform default)\n"+
			"it never forgets one: its state is every payment it has ever seen. That is safe, and it is a leak: a\n"+
			"redelivery of a payment whose window has expired goes to the reconciliation feed whether its ID is\n"+
			"remembered or not. Which IDs can a redelivery still change a total with, and for how long?")
}
