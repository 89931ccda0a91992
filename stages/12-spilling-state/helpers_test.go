//go:build lab || solution

package spillingstate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/picture"
	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// testBudget is the memory budget of the Pebble backends of this suite,
// except the budget test's own.
const testBudget = 4 << 20

// backendKind is one of the two backends every semantic test runs on: how
// to open an empty one, and how to restore one from a checkpoint.
type backendKind struct {
	name string
	// open returns a new, empty backend in a fresh directory, closed when
	// the test ends.
	open func(t testing.TB) StateBackend
	// restore returns a backend restored from the checkpoint in dir,
	// closed when the test ends.
	restore func(t testing.TB, dir string) StateBackend
}

// backends are the heap and the disk backend: the processor must behave
// the same on both.
var backends = []backendKind{
	{
		name: "heap",
		open: func(t testing.TB) StateBackend { return closing(t, NewHeapBackend()) },
		restore: func(t testing.TB, dir string) StateBackend {
			t.Helper()
			b, err := RestoreHeapBackend(dir)
			if err != nil || b == nil {
				t.Fatalf("RestoreHeapBackend(a checkpoint just written) = %v, %v; want a backend and no error", b, err)
			}
			return closing(t, b)
		},
	},
	{
		name: "pebble",
		open: func(t testing.TB) StateBackend {
			t.Helper()
			return openPebble(t, newDir(t, "live"), testBudget)
		},
		restore: func(t testing.TB, dir string) StateBackend {
			t.Helper()
			b, err := RestorePebbleBackend(dir, newDir(t, "restored"), testBudget)
			if err != nil || b == nil {
				t.Fatalf("RestorePebbleBackend(a checkpoint just written, a new directory, %d) = %v, %v; want a backend and no error",
					testBudget, b, err)
			}
			return closing(t, b)
		},
	},
}

// openPebble opens a Pebble backend in dir with budget, closed when the
// test ends.
func openPebble(t testing.TB, dir string, budget int64) StateBackend {
	t.Helper()
	b, err := OpenPebbleBackend(dir, budget)
	if err != nil || b == nil {
		t.Fatalf("OpenPebbleBackend(a new directory, %d) = %v, %v; want a backend and no error", budget, b, err)
	}
	return closing(t, b)
}

// closing closes b when the test ends, and returns it.
func closing[B StateBackend](t testing.TB, b B) B {
	t.Cleanup(func() { b.Close() })
	return b
}

// newDir returns the path of a directory that does not exist yet, in a
// new directory of the test's (suite.TempDir, removed when the test ends):
// where a backend is opened, or a checkpoint written.
func newDir(t testing.TB, what string) string {
	t.Helper()
	return filepath.Join(suite.TempDir(t), what)
}

// newProcessor returns a BackendProcessor for cfg on b; it stops the test
// if NewBackendProcessor refuses.
func newProcessor(t testing.TB, cfg Config, b StateBackend) *BackendProcessor {
	t.Helper()
	p, err := NewBackendProcessor(cfg, b)
	if err != nil || p == nil {
		t.Fatalf("NewBackendProcessor(%+v, a backend) = %v, %v; want a processor and no error", cfg, p, err)
	}
	return p
}

// checkpoint writes p's checkpoint to a new directory and returns it.
func checkpoint(t testing.TB, p *BackendProcessor) string {
	t.Helper()
	dir := newDir(t, "checkpoint")
	if err := p.Checkpoint(dir); err != nil {
		t.Fatalf("Checkpoint(a new directory) = %v; want nil", err)
	}
	return dir
}

// reference returns the trace of the stage 01 Processor over ops: what a
// BackendProcessor must do on any backend.
func reference(t testing.TB, cfg Config, ops []windowtest.Op) windowtest.Trace {
	t.Helper()
	return windowtest.Replay(windowtest.MustNew(t, NewProcessor, cfg), ops)
}

// oracleKeys are the keys of the seeded runs.
var oracleKeys = []string{"a", "b", "c", "zz"}

// randomOps returns a seeded call sequence (windowtest.RandomOps) of n
// events for cfg, with disorder up to bound: late events, corrections,
// redeliveries, awkward keys and IDs, AdvanceWatermark calls, Flush and
// calls after it.
func randomOps(rnd *rand.Rand, cfg Config, n int, bound int64) []windowtest.Op {
	return windowtest.RandomOps(rnd, oracleKeys, n, cfg.WindowSize, cfg.WatermarkDelay, bound)
}

// firstCallDiff describes the first call of ops where got and want differ,
// or the side outputs or final watermarks if only they differ; "" if the
// traces agree. It also returns got up to that call, all of it when only
// the side outputs differ: what a picture of the failure draws.
func firstCallDiff(ops []windowtest.Op, got, want windowtest.Trace) (string, windowtest.Trace) {
	upTo := func(i int) windowtest.Trace {
		return windowtest.Trace{Outs: got.Outs[:i+1], WMs: got.WMs[:i+1], Late: got.Late}
	}
	for i := range ops {
		if !slices.Equal(got.Outs[i], want.Outs[i]) {
			return fmt.Sprintf("call %d of %d, %v, returned\n%s\nwant\n%s", i+1, len(ops), ops[i],
				windowtest.FmtResults(got.Outs[i]), windowtest.FmtResults(want.Outs[i])), upTo(i)
		}
		if got.WMs[i] != want.WMs[i] {
			return fmt.Sprintf("after call %d of %d, %v, Watermark() = %s, want %s", i+1, len(ops), ops[i],
				kit.FormatWatermark(got.WMs[i]), kit.FormatWatermark(want.WMs[i])), upTo(i)
		}
	}
	if !slices.Equal(got.Late, want.Late) {
		return fmt.Sprintf("Late() = %s\nwant      %s", windowtest.FmtEvents(got.Late), windowtest.FmtEvents(want.Late)), got
	}
	return "", got
}

// pictureWindows says, for a picture, which windows a processor for cfg
// assigns.
func pictureWindows(cfg Config) picture.Windows {
	return picture.Windows{Size: cfg.WindowSize, Lateness: cfg.AllowedLateness}
}

// memBackend is the suite's own StateBackend: a map, scanned in sorted
// order. It proves that a BackendProcessor works on any backend that keeps
// the interface's contract (Scan's slices are the backend's, valid only
// while the callback runs), lets a test look at every key the processor
// stored, and fails on demand (failAfter).
type memBackend struct {
	entries map[string]string
	// sorted is every key in ascending order, while it is valid.
	sorted []string
	valid  bool
	// failAfter, when positive, is how many more writes succeed before
	// every call fails.
	failAfter int
	failed    bool
}

// errBackendDown is the error a memBackend fails with.
var errBackendDown = errors.New("the suite's backend is down")

func newMemBackend() *memBackend { return &memBackend{entries: map[string]string{}} }

// fail reports whether this call fails, counting a write if write is set.
func (m *memBackend) fail(write bool) bool {
	if m.failAfter > 0 && write {
		m.failAfter--
		if m.failAfter == 0 {
			m.failed = true
		}
	}
	return m.failed
}

func (m *memBackend) Get(key []byte) ([]byte, bool, error) {
	if m.fail(false) {
		return nil, false, errBackendDown
	}
	v, ok := m.entries[string(key)]
	return []byte(v), ok, nil
}

func (m *memBackend) Set(key, value []byte) error {
	if m.fail(true) {
		return errBackendDown
	}
	if _, ok := m.entries[string(key)]; !ok {
		m.valid = false
	}
	m.entries[string(key)] = string(value)
	return nil
}

func (m *memBackend) Delete(key []byte) error {
	if m.fail(true) {
		return errBackendDown
	}
	if _, ok := m.entries[string(key)]; ok {
		m.valid = false
	}
	delete(m.entries, string(key))
	return nil
}

func (m *memBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	if m.fail(false) {
		return errBackendDown
	}
	keys := m.keys()
	for _, k := range keys[sort.SearchStrings(keys, string(start)):] {
		if len(end) > 0 && k >= string(end) {
			break
		}
		// The slices fn gets are the backend's until fn returns (Pebble's
		// iterator reuses its own once it reads from disk): this backend
		// writes over them then, so that a processor that keeps one without
		// copying it sees it change here, not only on Pebble at scale.
		key, value := []byte(k), []byte(m.entries[k])
		err := fn(key, value)
		scribble(key)
		scribble(value)
		if err != nil {
			return err
		}
	}
	return nil
}

// scribble writes over b, as a backend may write over the slices it handed
// a Scan callback once the callback has returned.
func scribble(b []byte) {
	for i := range b {
		b[i] = 0xEE
	}
}

func (m *memBackend) Checkpoint(dir string) error {
	if m.fail(false) {
		return errBackendDown
	}
	return os.Mkdir(dir, 0o755) // the suite's own tests never restore it
}

func (m *memBackend) Close() error { return nil }

// keys returns every stored key in ascending byte order.
func (m *memBackend) keys() []string {
	if !m.valid {
		m.sorted = m.sorted[:0]
		for k := range m.entries {
			m.sorted = append(m.sorted, k)
		}
		sort.Strings(m.sorted)
		m.valid = true
	}
	return m.sorted
}

// showKeys renders a few keys for a failure message.
func showKeys(keys []string) string {
	var b strings.Builder
	for i, k := range keys {
		if i == 8 {
			fmt.Fprintf(&b, " … (%d in all)", len(keys))
			break
		}
		fmt.Fprintf(&b, " %s", kit.ShowString(k)) // quoted where it is not plain
	}
	return b.String()
}
