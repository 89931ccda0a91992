//go:build lab || solution

package spillingstate

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/internal/windowtest"
)

// heapCheckpointFiles returns the regular files of a heap checkpoint taken
// after ops, as paths relative to its directory, and their contents: the
// checkpoint's layout is the implementation's own, so the fuzz target
// learns it at run time.
func heapCheckpointFiles(t testing.TB, ops []windowtest.Op) (names []string, contents [][]byte) {
	t.Helper()
	p := newProcessor(t, restoreConfig, NewHeapBackend())
	windowtest.Replay(p, ops)
	dir := checkpoint(t, p)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		names, contents = append(names, rel), append(contents, data)
		return err
	})
	if err != nil {
		t.Fatalf("suite: reading a checkpoint: %v", err)
	}
	return names, contents
}

// FuzzRestoreHeapBackend certifies that RestoreHeapBackend never panics on a checkpoint directory whose files hold any bytes, and that a backend it accepts checkpoints again and restores from that to the same entries.
//
// Every file of a real checkpoint's layout gets the fuzzed bytes; the
// seeds are the files of checkpoints of several states, cut short,
// extended and with bytes flipped (windowtest.DamagedSnapshots).
func FuzzRestoreHeapBackend(f *testing.F) {
	defer suite.Recover(f)
	rnd := suite.Rand(f)
	for _, ops := range [][]windowtest.Op{nil, randomOps(rnd, restoreConfig, 3, 20), randomOps(rnd, restoreConfig, 12, 20)} {
		_, contents := heapCheckpointFiles(f, ops)
		for _, c := range contents {
			f.Add(c)
			for _, d := range windowtest.DamagedSnapshots(c) {
				f.Add(d)
			}
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		defer suite.Recover(t)
		names, _ := heapCheckpointFiles(t, nil)
		dir := newDir(t, "fuzzed")
		for _, name := range names {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := RestoreHeapBackend(dir)
		if err != nil {
			return // refused: fine, as long as it did not panic
		}
		if b == nil {
			t.Fatalf("RestoreHeapBackend = nil, nil; want a backend or an error")
		}
		before := scanAll(t, b, nil, nil)
		again := newDir(t, "again")
		if err := b.Checkpoint(again); err != nil {
			t.Fatalf("a restored backend's Checkpoint = %v, want nil", err)
		}
		r, err := RestoreHeapBackend(again)
		if err != nil {
			t.Fatalf("restoring the checkpoint of a restored backend = %v, want nil", err)
		}
		if after := scanAll(t, r, nil, nil); !slices.Equal(after, before) {
			t.Fatalf("a restored backend's checkpoint restores to %q, want %q", after, before)
		}
	})
}
