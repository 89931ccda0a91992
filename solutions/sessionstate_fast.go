//go:build fast

package solutions

// This file holds how sessions are allocated and let go of, in the tuned
// build (-tags fast): merged and expired sessions, with the memory of their
// published slices, and the session slices of keys that have none left,
// are kept for new state to reuse (see pool in windowstate_fast.go).
// sessionstate.go has the plain version, with the same names.

// sessionReuse is what a SessionProcessor keeps for reuse.
type sessionReuse struct {
	free  pool[*session]
	lists pool[[]*session]
}

// newSession returns an empty session [start, end) of key, reusing a
// recycled one if there is one.
func (s *SessionProcessor) newSession(key string, start, end int64) *session {
	x, ok := s.reuse.free.get()
	if !ok {
		x = new(session)
	}
	*x = session{key: key, start: start, end: end, published: x.published[:0]}
	return x
}

// release keeps a session that was merged away or expired for reuse.
func (s *SessionProcessor) release(x *session) {
	s.reuse.free.put(x, len(s.byEnd))
}

// newSessionList returns the slice for the sessions of a key that has none:
// a recycled, empty one if there is one.
func (s *SessionProcessor) newSessionList() []*session {
	l, _ := s.reuse.lists.get()
	return l
}

// releaseList keeps the emptied session slice of a key whose last session
// expired, for a key that opens its first session.
func (s *SessionProcessor) releaseList(l []*session) {
	s.reuse.lists.put(l, len(s.byEnd))
}
