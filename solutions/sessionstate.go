//go:build !fast

package solutions

// This file holds how sessions are allocated and let go of, in the plain
// build: with new and the garbage collector. The tuned build (-tags fast,
// sessionstate_fast.go) has the same names and recycles instead.

// sessionReuse is the state a SessionProcessor keeps for reuse: none here.
type sessionReuse struct{}

// newSession returns an empty session [start, end) of key.
func (s *SessionProcessor) newSession(key string, start, end int64) *session {
	return &session{key: key, start: start, end: end}
}

// release lets go of a session that was merged away or expired. Here the
// garbage collector takes it.
func (s *SessionProcessor) release(*session) {}

// newSessionList returns the slice for the sessions of a key that has none:
// nil, which append and slices.Replace grow as needed.
func (s *SessionProcessor) newSessionList() []*session { return nil }

// releaseList lets go of the emptied session slice of a key whose last
// session expired. Here the garbage collector takes it.
func (s *SessionProcessor) releaseList([]*session) {}
