//go:build lab || solution

package spillingstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
	"github.com/flk-byo/course/kit"
)

// keyGroupsOf returns the key groups that the stored keys begin with, and
// the keys that begin with neither a key group nor 0xFF 0xFF.
func keyGroupsOf(keys []string) (groups []int, stray []string) {
	for _, k := range keys {
		if len(k) < 2 {
			stray = append(stray, k)
			continue
		}
		switch g := int(binary.BigEndian.Uint16([]byte(k))); {
		case g == 0xFFFF:
		case g < BackendMaxParallelism:
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		default:
			stray = append(stray, k)
		}
	}
	slices.Sort(groups)
	return groups, stray
}

// groupsOf returns the sorted, distinct key groups of xs.
func groupsOf(xs ...[]string) []int {
	var groups []int
	for _, x := range xs {
		for _, s := range x {
			if g := KeyGroup(s, BackendMaxParallelism); !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	slices.Sort(groups)
	return groups
}

// TestKeysArePrefixedByKeyGroup certifies that every key the processor
// stores begins with a key group (KeyGroup of the event's key for window
// state, of the event's ID for a seen ID) as two bytes big-endian, or with
// 0xFF 0xFF for state that has no key, so that each key group's state is
// one contiguous range of the backend: while windows are open the key
// groups present are exactly those of the keys and the IDs, and once every
// window has expired only the IDs' remain.
func TestKeysArePrefixedByKeyGroup(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 1000}
	events := kit.WithAwkwardFields(rnd, kit.RandomEvents(rnd, 40, []string{"a", "b", "c", "d", "e", "f", "g"}, 0, 100), 0.1)
	var ids, keys []string
	for _, e := range events {
		ids, keys = append(ids, e.ID), append(keys, e.Key)
	}
	b := newMemBackend()
	p := newProcessor(t, cfg, b)
	for _, e := range events {
		p.Process(e)
	}
	check := func(when string, want []int) {
		t.Helper()
		got, stray := keyGroupsOf(b.keys())
		if len(stray) > 0 {
			t.Fatalf("%s, these stored keys begin with neither a key group below %d (two bytes big-endian) nor 0xFF 0xFF:%s\n"+
				"Prefix every key with its key group, as Flink's RocksDB backend does: then a key group is one\n"+
				"contiguous range of keys, which a rescale hands over whole.", when, BackendMaxParallelism, showKeys(stray))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s, the stored keys begin with key groups\n%v\nwant\n%v\n"+
				"A window tally belongs to KeyGroup(event key, %d) and a seen ID to KeyGroup(ID, %d); state with no key\n"+
				"goes under 0xFF 0xFF.", when, got, want, BackendMaxParallelism, BackendMaxParallelism)
		}
	}
	check(fmt.Sprintf("With %d events in open windows", len(events)), groupsOf(ids, keys))
	p.Flush()
	check("After Flush, every window expired", groupsOf(ids))
}

// heapInUse returns the bytes of live objects on the Go heap, after two
// collections.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// budgetSlack is what the budget test allows the Go heap to grow beyond a
// Pebble backend's budget: the processor's and the database's bookkeeping.
const budgetSlack = 1 << 20

// TestDiskBackendStaysWithinBudget certifies that as a processor's state
// (seen IDs and open windows) grows to several times the memory budget of
// its PebbleBackend, the Go heap grows by less than the budget plus 1 MiB,
// where the same state on a HeapBackend grows it by more than the state's
// size: the disk backend spills what does not fit.
func TestDiskBackendStaysWithinBudget(t *testing.T) {
	defer suite.Recover(t)
	const budget = MinPebbleBudget
	const n, idLen, keyLen = 1000, 2500, 1000
	// Each event has an ID and a key of its own, long ones: 3.5 MB of state
	// in all, more than three times the budget,
	// in 2 windows that never fire (the timestamps go down, so the first
	// event sets the watermark for good).
	cfg := Config{WindowSize: 1000, WatermarkDelay: 1 << 20}
	run := func(t *testing.T, b StateBackend) int64 {
		p := newProcessor(t, cfg, b)
		before := heapInUse()
		for i := range n {
			p.Process(kit.Event{ID: fmt.Sprintf("%0*d", idLen, i), Key: fmt.Sprintf("%0*d", keyLen, i), TS: int64(n - i), Value: 1})
		}
		grew := heapInUse() - before
		runtime.KeepAlive(p)
		t.Logf("%d events, %d bytes of IDs and keys: the Go heap grew by %d bytes", n, n*(idLen+keyLen), grew)
		return grew
	}
	const state = n * (idLen + keyLen)
	t.Run("heap", func(t *testing.T) {
		defer suite.Recover(t)
		if grew := run(t, NewHeapBackend()); grew < state {
			t.Fatalf("On a HeapBackend, %d events with %d bytes of IDs and keys grew the Go heap by only %d bytes, want at least %d:\n"+
				"a heap backend holds its whole state on the heap.", n, state, grew, state)
		}
	})
	t.Run("pebble", func(t *testing.T) {
		defer suite.Recover(t)
		if grew := run(t, openPebble(t, newDir(t, "live"), budget)); grew >= budget+budgetSlack {
			t.Fatalf("On a PebbleBackend with a budget of %d bytes, %d events with %d bytes of IDs and keys grew the Go heap\n"+
				"by %d bytes, want less than %d (the budget and %d of bookkeeping).\n"+
				"A disk backend keeps state in the database only: a cache or a copy of the state in Go maps beside it\n"+
				"grows with the state, and the budget is what a job's memory is sized by.",
				budget, n, state, grew, budget+budgetSlack, budgetSlack)
		}
	})
}

// diskUse returns the bytes the regular files under dirs take, each file
// counted once however many of the directories hold a link to it.
func diskUse(t testing.TB, dirs ...string) int64 {
	t.Helper()
	var seen []fs.FileInfo
	var total int64
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(seen, func(o fs.FileInfo) bool { return os.SameFile(o, fi) }) {
				seen = append(seen, fi)
				total += fi.Size()
			}
			return nil
		})
		if err != nil {
			t.Fatalf("suite: measuring %s: %v", dir, err)
		}
	}
	return total
}

// TestCheckpointCostsWhatChanged certifies that PebbleBackend's checkpoints
// are incremental: after a first checkpoint of about 5 MB of state, four
// more, each after 10 new events, add together less than twice what the
// first one took (counting a file linked from several checkpoints once),
// where full copies would add four times as much.
//
// Not less than once: what a checkpoint copies rather than links (the
// write-ahead log, up to a memtable's worth) and what a compaction may
// rewrite in between are real costs of an LSM store's checkpoints too.
func TestCheckpointCostsWhatChanged(t *testing.T) {
	defer suite.Recover(t)
	// Random IDs of 2000 bytes, which no compression shrinks, in windows
	// that never fire (the timestamps go down).
	rnd := suite.Rand(t)
	cfg := Config{WindowSize: 1000, WatermarkDelay: 1 << 20}
	p := newProcessor(t, cfg, openPebble(t, newDir(t, "live"), testBudget))
	i := 0
	process := func(n int) {
		for range n {
			id := make([]byte, 2000)
			for j := range id {
				id[j] = byte(rnd.Uint32())
			}
			p.Process(kit.Event{ID: string(id), Key: fmt.Sprint(i % 50), TS: int64(-i), Value: 1})
			i++
		}
	}
	process(2500)
	first := checkpoint(t, p)
	var later []string
	for range 4 {
		process(10)
		later = append(later, checkpoint(t, p))
	}
	full, all := diskUse(t, first), diskUse(t, append([]string{first}, later...)...)
	t.Logf("the first checkpoint takes %d bytes; the four after it add %d", full, all-full)
	if all-full >= 2*full {
		t.Fatalf("The first checkpoint takes %d bytes; four more after 10 events each added %d bytes, want less than %d.\n"+
			"Use the store's own checkpoint (Pebble's DB.Checkpoint): it hard-links the immutable files that hold\n"+
			"most of the state, so a checkpoint costs what changed since the last one, as Flink's incremental\n"+
			"checkpoints do. Copying the database's files costs the whole state every time.", full, all-full, 2*full)
	}
}

// TestBackendFailureStopsTheProcessor certifies that when the backend
// fails, the processor reports the backend's error from Err and Checkpoint
// and returns no results from the failing call on, instead of carrying on
// over state it could not write.
func TestBackendFailureStopsTheProcessor(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	cfg := Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 10}
	ops := randomOps(rnd, cfg, 40, 30)
	b := newMemBackend()
	p := newProcessor(t, cfg, b)
	if err := p.Err(); err != nil {
		t.Fatalf("Err() = %v before any call, want nil", err)
	}
	b.failAfter = 1 + rnd.IntN(40)
	for i, op := range ops {
		out := op.Apply(p)
		if b.failed && len(out) > 0 {
			t.Fatalf("call %d, %v, returned %s after the backend failed; want nothing: results computed over state\n"+
				"that could not be read or written are not to be trusted.", i+1, op, windowtest.FmtResults(out))
		}
	}
	if !b.failed {
		t.Fatalf("suite bug: the backend never failed over %d calls", len(ops))
	}
	if err := p.Err(); !errors.Is(err, errBackendDown) {
		t.Fatalf("Err() = %v after the backend failed, want an error wrapping %q", err, errBackendDown)
	}
	if err := p.Checkpoint(newDir(t, "checkpoint")); !errors.Is(err, errBackendDown) {
		t.Fatalf("Checkpoint() = %v after the backend failed, want an error wrapping %q: the state is not whole,\n"+
			"and the caller needs the backend's own error to say why", err, errBackendDown)
	}
}

// TestBadInputIsAnError certifies that invalid configs, a nil backend, a
// backend holding another config's state, a budget below MinPebbleBudget
// (opening or restoring), a restore into a directory that exists and a
// missing checkpoint are each an error, never a panic.
func TestBadInputIsAnError(t *testing.T) {
	defer suite.Recover(t)
	valid := Config{WindowSize: 10, WatermarkDelay: 5}
	used := newMemBackend()
	newProcessor(t, valid, used)
	missing := newDir(t, "missing")
	// A real Pebble checkpoint, so that what a restore refuses is its
	// arguments, not a checkpoint it cannot read.
	live := openPebble(t, newDir(t, "live"), testBudget)
	if err := live.Set([]byte("k"), []byte("v")); err != nil {
		t.Fatalf("Set on a new Pebble backend: %v", err)
	}
	saved := newDir(t, "checkpoint")
	if err := live.Checkpoint(saved); err != nil {
		t.Fatalf("Checkpoint(a new directory) on a Pebble backend: %v", err)
	}
	existing := newDir(t, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		call string
		try  func() error
	}{
		{"NewBackendProcessor(WindowSize 0)", func() error {
			_, err := NewBackendProcessor(Config{}, NewHeapBackend())
			return err
		}},
		{"NewBackendProcessor(WatermarkDelay −1)", func() error {
			_, err := NewBackendProcessor(Config{WindowSize: 10, WatermarkDelay: -1}, NewHeapBackend())
			return err
		}},
		{"NewBackendProcessor(AllowedLateness −1)", func() error {
			_, err := NewBackendProcessor(Config{WindowSize: 10, AllowedLateness: -1}, NewHeapBackend())
			return err
		}},
		{"NewBackendProcessor(a valid config, nil)", func() error {
			_, err := NewBackendProcessor(valid, nil)
			return err
		}},
		{"NewBackendProcessor(WindowSize 20, a backend holding a WindowSize 10 processor's state)", func() error {
			_, err := NewBackendProcessor(Config{WindowSize: 20, WatermarkDelay: 5}, used)
			return err
		}},
		{"NewBackendProcessor(WatermarkDelay 6, a backend holding a WatermarkDelay 5 processor's state)", func() error {
			_, err := NewBackendProcessor(Config{WindowSize: 10, WatermarkDelay: 6}, used)
			return err
		}},
		{"NewBackendProcessor(AllowedLateness 1, a backend holding an AllowedLateness 0 processor's state)", func() error {
			_, err := NewBackendProcessor(Config{WindowSize: 10, WatermarkDelay: 5, AllowedLateness: 1}, used)
			return err
		}},
		{fmt.Sprintf("OpenPebbleBackend(a new directory, %d)", MinPebbleBudget-1), func() error {
			b, err := OpenPebbleBackend(newDir(t, "small"), MinPebbleBudget-1)
			if err == nil {
				b.Close()
			}
			return err
		}},
		{"RestoreHeapBackend(a directory that does not exist)", func() error {
			_, err := RestoreHeapBackend(missing)
			return err
		}},
		{fmt.Sprintf("RestorePebbleBackend(a checkpoint, a new directory, %d)", MinPebbleBudget-1), func() error {
			// The budget is the backend's whichever way it is opened: a check
			// in OpenPebbleBackend alone lets a restore past it.
			b, err := RestorePebbleBackend(saved, newDir(t, "restored-small"), MinPebbleBudget-1)
			if err == nil {
				b.Close()
			}
			return err
		}},
		{"RestorePebbleBackend(a checkpoint, an empty directory that exists, …)", func() error {
			// The restore's directory is new, as a checkpoint's is: one that
			// exists may hold files of its own to mix with the copy.
			b, err := RestorePebbleBackend(saved, existing, testBudget)
			if err == nil {
				b.Close()
			}
			return err
		}},
		{"RestorePebbleBackend(a directory that does not exist, …)", func() error {
			b, err := RestorePebbleBackend(missing, newDir(t, "restored"), testBudget)
			if err == nil {
				b.Close()
			}
			return err
		}},
	}
	for _, c := range cases {
		var err error
		if msg := suite.Catch(func() { err = c.try() }); msg != "" {
			t.Errorf("%s panicked: %s\nwant an error: bad input is an error, never a panic", c.call, strings.TrimSpace(msg))
		} else if err == nil {
			t.Errorf("%s = nil error, want one", c.call)
		}
	}
}
