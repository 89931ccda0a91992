// Package onbackend lets an earlier stage's suite run, unchanged, on stage
// 12's BackendProcessor: stage 12's card promises that the processor
// behaves exactly as stage 1 and 3's Processor, on either backend, and the
// way to hold it to that is to run those stages' own tests on it.
//
// Each such stage has two more pairs of bind files, under the build tags
// in Tags: with statebackend_heap its NewProcessor is NewBackendProcessor on
// a new heap backend, with statebackend_pebble on a new Pebble backend,
// which Pebbles opens. Without either tag the stage binds its own
// Processor, as always. stages/catalog.json's "rerun" on stage 12 lists
// the stages and the tags, so that de test runs them at stage 12.
package onbackend

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// The build tags that bind an earlier stage's suite to stage 12's
// BackendProcessor, one backend each.
const (
	HeapTag   = "statebackend_heap"
	PebbleTag = "statebackend_pebble"
)

// Tags are the tags above, in the order de test and CI run them.
var Tags = []string{HeapTag, PebbleTag}

// Pebbles opens a Pebble backend for each processor a suite makes, each in
// a new directory under one temporary root, and closes it and removes its
// directory once the processor is garbage: a suite makes hundreds of
// processors and never closes one (its Processor has no Close), and
// hundreds of open databases would hold hundreds of files and memtables.
// Run removes the root, with whatever is still open, after the tests. The
// zero value is ready to use; a Pebbles is safe for concurrent use.
type Pebbles struct {
	mu   sync.Mutex
	root string
	n    int
	open map[int]io.Closer // by directory number: the backends not yet closed
}

// Run runs the tests (call it from TestMain: os.Exit(p.Run(m))), then
// closes every backend still open and removes the root. A failure to clean
// up is reported and fails the run.
func (p *Pebbles) Run(m *testing.M) int {
	code := m.Run()
	if err := p.closeAll(); err != nil {
		fmt.Fprintf(os.Stderr, "onbackend: cleaning up the Pebble backends: %v\n", err)
		return max(code, 1)
	}
	return code
}

// closeAll closes every backend still open and removes the root.
func (p *Pebbles) closeAll() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, be := range p.open {
		errs = append(errs, be.Close())
	}
	p.open = nil
	if p.root != "" {
		errs = append(errs, os.RemoveAll(p.root))
	}
	p.root = ""
	return errors.Join(errs...)
}

// dir returns a new directory name under the root (making the root on the
// first call) and its number.
func (p *Pebbles) dir() (string, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.root == "" {
		root, err := os.MkdirTemp(scratchDir(), "flk-onpebble-")
		if err != nil {
			return "", 0, fmt.Errorf("onbackend: a directory for the Pebble backends: %w", err)
		}
		p.root, p.open = root, map[int]io.Closer{}
	}
	p.n++
	return filepath.Join(p.root, strconv.Itoa(p.n)), p.n, nil
}

// scratchDir is where the backends' directories go: /dev/shm where there
// is one (a suite opens hundreds of databases, and each open syncs a few
// files: on a disk, the waiting for those syncs is most of a suite's time),
// else the usual temporary directory. Nothing in a rerun suite is about
// durability: stage 12's own suite tests its checkpoints and crashes.
func scratchDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "flk-onpebble-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

// track records be, open in directory n.
func (p *Pebbles) track(n int, be io.Closer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open[n] = be
}

// release closes the backend in directory n, if Run has not, and removes
// the directory.
func (p *Pebbles) release(n int, dir string) {
	p.mu.Lock()
	be, ok := p.open[n]
	delete(p.open, n)
	p.mu.Unlock()
	if ok {
		be.Close() // a garbage processor's backend: nobody is left to tell
		os.RemoveAll(dir)
	}
}

// Pebble returns a bind file's NewProcessor: newProcessor(cfg, backend) on
// a new backend that open opens, with budget, in a directory of its own;
// if newProcessor fails, the backend is closed at once. newProcessor and
// open are the stage's NewBackendProcessor and OpenPebbleBackend, whose
// backend (B, a *PebbleBackend) must be a StateBackend (S).
func Pebble[C, T any, S io.Closer, B io.Closer](p *Pebbles, newProcessor func(C, S) (*T, error), open func(dir string, budget int64) (B, error), budget int64) func(C) (*T, error) {
	return func(cfg C) (*T, error) {
		return New(p, cfg, newProcessor, func(dir string) (S, error) {
			be, err := open(dir, budget)
			if err != nil {
				var zero S
				return zero, err
			}
			s, ok := any(be).(S)
			if !ok {
				be.Close()
				var zero S
				return zero, fmt.Errorf("onbackend: %T is not a %T", be, zero)
			}
			return s, nil
		})
	}
}

// New returns newProcessor(cfg, backend) on a new Pebble backend that open
// opens in the directory it is given; if newProcessor fails, the backend
// is closed at once.
func New[C, T any, S io.Closer](p *Pebbles, cfg C, newProcessor func(C, S) (*T, error), open func(dir string) (S, error)) (*T, error) {
	dir, n, err := p.dir()
	if err != nil {
		return nil, err
	}
	be, err := open(dir)
	if err != nil {
		return nil, fmt.Errorf("onbackend: OpenPebbleBackend(%s): %w", dir, err)
	}
	p.track(n, be)
	proc, err := newProcessor(cfg, be)
	if err != nil || proc == nil {
		p.release(n, dir)
		return proc, err
	}
	runtime.AddCleanup(proc, func(n int) { p.release(n, dir) }, n)
	return proc, nil
}
