//go:build lab || solution

package spillingstate

import (
	"errors"
	"slices"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

// entry is one key and value of a backend.
type entry struct{ key, value string }

// scanAll returns the entries of b with start ≤ key < end, in the order
// Scan visits them, copied.
func scanAll(t testing.TB, b StateBackend, start, end []byte) []entry {
	t.Helper()
	var out []entry
	if err := b.Scan(start, end, func(k, v []byte) error {
		out = append(out, entry{string(k), string(v)})
		return nil
	}); err != nil {
		t.Fatalf("Scan(%q, %q) = %v, want nil", start, end, err)
	}
	return out
}

// TestBackendContract certifies that both backends keep the StateBackend
// contract: Get finds what Set stored (the empty value too) and the last
// Set wins; Delete removes, and deleting a missing key is no error; the
// backend keeps copies of the slices it is given; Scan visits exactly
// start ≤ key < end in ascending byte order (nil end: no upper bound,
// bytes above 0x7F and keys that are prefixes of others too) and returns
// the first error its callback returns; and a backend restored from a
// checkpoint holds the state at the checkpoint, not what was written
// after it.
func TestBackendContract(t *testing.T) {
	defer suite.Recover(t)
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			b := kind.open(t)
			key, value := []byte("k1"), []byte("v1")
			mustSet := func(k, v []byte) {
				t.Helper()
				if err := b.Set(k, v); err != nil {
					t.Fatalf("Set(%q, %q) = %v, want nil", k, v, err)
				}
			}
			mustSet(key, value)
			key[1], value[1] = '9', '9' // the backend must have kept copies
			for _, e := range []entry{{"a", ""}, {"a\x00", "x"}, {"ab", "y"}, {"b", "1"}, {"b", "2"}, {"\xff\xff", "top"}, {"\x80", "high"}} {
				mustSet([]byte(e.key), []byte(e.value))
			}
			if err := b.Delete([]byte("missing")); err != nil {
				t.Fatalf("Delete(a missing key) = %v, want nil", err)
			}
			if err := b.Delete([]byte("ab")); err != nil {
				t.Fatalf("Delete(%q) = %v, want nil", "ab", err)
			}
			for _, c := range []struct {
				key, want string
				ok        bool
			}{{"k1", "v1", true}, {"k9", "", false}, {"a", "", true}, {"b", "2", true}, {"ab", "", false}} {
				v, ok, err := b.Get([]byte(c.key))
				if err != nil || ok != c.ok || string(v) != c.want {
					t.Fatalf("Get(%q) = %q, %v, %v; want %q, %v, nil (the last Set wins, Delete removes, the\n"+
						"backend keeps its own copy of what Set was given)", c.key, v, ok, err, c.want, c.ok)
				}
			}
			all := []entry{{"a", ""}, {"a\x00", "x"}, {"b", "2"}, {"k1", "v1"}, {"\x80", "high"}, {"\xff\xff", "top"}}
			for _, c := range []struct {
				start, end string
				nilEnd     bool
				want       []entry
			}{
				{"", "", true, all},
				{"a", "b", false, all[:2]},
				{"a\x00", "k1", false, all[1:3]},
				{"b", "\xff", false, all[2:5]},
				{"c", "", true, all[3:]},
				{"zz", "zz", false, nil},
			} {
				var end []byte
				if !c.nilEnd {
					end = []byte(c.end)
				}
				if got := scanAll(t, b, []byte(c.start), end); !slices.Equal(got, c.want) {
					t.Fatalf("Scan(%q, %q) visited %q, want %q: every entry with start ≤ key < end, in byte order",
						c.start, end, got, c.want)
				}
			}
			stop := errors.New("stop")
			visits := 0
			if err := b.Scan(nil, nil, func(k, v []byte) error { visits++; return stop }); !errors.Is(err, stop) || visits != 1 {
				t.Fatalf("Scan with a callback that fails at once: %d visits, error %v; want 1 visit and that error", visits, err)
			}

			dir := newDir(t, "checkpoint")
			if err := b.Checkpoint(dir); err != nil {
				t.Fatalf("Checkpoint(a new directory) = %v, want nil", err)
			}
			mustSet([]byte("after"), []byte("checkpoint"))
			if err := b.Delete([]byte("a")); err != nil {
				t.Fatal(err)
			}
			restored := kind.restore(t, dir)
			if got := scanAll(t, restored, nil, nil); !slices.Equal(got, all) {
				t.Fatalf("restored from a checkpoint, the backend holds %q\nwant %q\n"+
					"(the state at the checkpoint, not what was written after it)", got, all)
			}
			if err := b.Checkpoint(dir); err == nil {
				t.Fatalf("Checkpoint(%s) = nil for a directory that exists, want an error", dir)
			}
		})
	}
}
