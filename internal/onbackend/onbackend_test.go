package onbackend

import (
	"errors"
	"os"
	"testing"
)

// fakeBackend records whether it was closed and whether its directory
// existed to open it in.
type fakeBackend struct{ closed bool }

func (b *fakeBackend) Close() error { b.closed = true; return nil }

type processor struct{ be *fakeBackend }

// TestNewOpensEachProcessorItsOwnDirectory checks that New opens a backend
// in a new directory under one root for each processor, closes it at once
// when the processor is rejected, and that what is still open is closed at
// the end, with the root removed.
func TestNewOpensEachProcessorItsOwnDirectory(t *testing.T) {
	var p Pebbles
	var dirs []string
	var backends []*fakeBackend
	open := func(dir string) (*fakeBackend, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
		be := &fakeBackend{}
		backends = append(backends, be)
		return be, nil
	}
	accept := func(cfg int, be *fakeBackend) (*processor, error) { return &processor{be: be}, nil }
	reject := func(cfg int, be *fakeBackend) (*processor, error) { return nil, errors.New("bad config") }

	kept, err := New(&p, 1, accept, open)
	if err != nil || kept == nil {
		t.Fatalf("New = %v, %v; want a processor", kept, err)
	}
	if _, err := New(&p, 2, reject, open); err == nil {
		t.Fatal("New with a rejecting constructor returned no error")
	}
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Fatalf("directories %q: want two distinct ones", dirs)
	}
	if !backends[1].closed {
		t.Error("the rejected processor's backend is still open")
	}
	if _, err := os.Stat(dirs[1]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rejected processor's directory %s is still there (%v)", dirs[1], err)
	}
	if backends[0].closed {
		t.Error("the live processor's backend was closed")
	}
	root := p.root
	p.closeAll() // what Run does after m.Run
	if !backends[0].closed {
		t.Error("closeAll left a backend open")
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("closeAll left the root %s (%v)", root, err)
	}
	_ = kept.be
}

// stateBackend stands for a stage's StateBackend interface, which the
// backend open returns must implement.
type stateBackend interface {
	Close() error
	Get() int
}

// notAState closes but is no stateBackend.
type notAState struct{ closed *bool }

func (b notAState) Close() error { *b.closed = true; return nil }

// TestPebbleHandsTheBackendOnAsTheProcessorsInterface checks that Pebble's
// NewProcessor opens with the budget it was given and rejects, closing it,
// a backend that is not the processor's backend interface.
func TestPebbleHandsTheBackendOnAsTheProcessorsInterface(t *testing.T) {
	var p Pebbles
	defer p.closeAll()
	var budgets []int64
	closed := false
	open := func(dir string, budget int64) (notAState, error) {
		budgets = append(budgets, budget)
		return notAState{closed: &closed}, nil
	}
	newProcessor := func(cfg int, be stateBackend) (*processor, error) { return &processor{}, nil }
	if _, err := Pebble(&p, newProcessor, open, 1<<20)(1); err == nil {
		t.Fatal("a backend that is not a stateBackend was accepted")
	}
	if !closed || len(budgets) != 1 || budgets[0] != 1<<20 {
		t.Errorf("closed %v, budgets %v; want the backend opened once with 1 MiB and closed", closed, budgets)
	}
}
