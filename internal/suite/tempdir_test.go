package suite

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTempDirIsNewEmptyAndRemovedAfterTheTest(t *testing.T) {
	var dir string
	t.Run("user", func(t *testing.T) {
		dir = TempDir(t)
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 0 {
			t.Fatalf("TempDir(t) = %s with %d entries (err %v), want a new empty directory", dir, len(entries), err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
			t.Fatalf("writing into TempDir's directory: %v", err)
		}
		if other := TempDir(t); other == dir {
			t.Fatalf("two calls of TempDir(t) both returned %s, want two directories", dir)
		}
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("after the test ended, Stat(%s) = %v, want it removed", dir, err)
	}
}

func TestTempDirIsInMemoryWhereTheMachineHasIt(t *testing.T) {
	base := memoryDir()
	if base == "" {
		t.Skip("no memory filesystem with room here: TempDir is t.TempDir")
	}
	if dir := TempDir(t); filepath.Dir(dir) != base {
		t.Fatalf("TempDir(t) = %s, want a directory in %s", dir, base)
	}
}

func TestSweepStaleRemovesOnlyOldDirectoriesOfItsOwn(t *testing.T) {
	base := t.TempDir()
	old := filepath.Join(base, tempPrefix+"killed")
	fresh := filepath.Join(base, tempPrefix+"running")
	other := filepath.Join(base, "someone-else")
	for _, d := range []string{old, fresh, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * staleAfter)
	for _, d := range []string{old, other} {
		if err := os.Chtimes(d, long, long); err != nil {
			t.Fatal(err)
		}
	}
	sweepStale(base)
	for d, want := range map[string]bool{old: false, fresh: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("after sweepStale, %s exists = %v, want %v (only a directory of TempDir's older than %v goes)", filepath.Base(d), err == nil, want, staleAfter)
		}
	}
}

func TestSanitizeKeepsDirectoryNamesSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"TestX", "TestX"},
		{"TestX/sub case:1", "TestX_sub_case_1"},
		{"TestÜ", "Test_"},
	} {
		if got := sanitize(c.in); got != c.want {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := sanitize(string(make([]byte, 100))); len(got) != 64 {
		t.Errorf("sanitize of a 100-byte name has %d bytes, want 64", len(got))
	}
}
