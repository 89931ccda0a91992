//go:build solution && fast

package solutions

import (
	"fmt"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// TestExpiryQueueSlabStaysBounded certifies that the tuned expiry queue's
// slab of long IDs holds no more IDs than the queue remembers, and reuses
// the slots of forgotten ones: a seen TTL bounds what a processor
// remembers, and a slab that kept every long ID it ever held, or grew past
// its forgotten slots, would grow with the stream all the same.
func TestExpiryQueueSlabStaysBounded(t *testing.T) {
	defer suite.Recover(t)
	const live, pushes = 8, 1000
	var q expiryQueue
	seen := newIDSet(0)
	for i := range pushes {
		id := fmt.Sprintf("%s-%04d", long16, i) // past maxInlineID: in the slab
		seen.add(id)
		q.push(int64(i), id)
		if q.Len() > live {
			q.forgetSoonest(seen)
		}
	}
	held := 0
	for _, id := range q.long {
		if id != "" {
			held++
		}
	}
	if held != live || len(q.long) > live+1 {
		t.Fatalf("after %d pushes of long IDs, each forgotten once %d newer ones were remembered: the slab has %d slots, %d of them holding an ID; want at most %d slots, %d holding one\nwhy it matters: a forgotten ID's slot must be emptied (or the slab keeps its string alive) and reused (or the slab grows with the stream, which the TTL exists to stop)",
			pushes, live, len(q.long), held, live+1, live)
	}
}
