//go:build lab || solution

package spillingstate

import (
	"errors"
	"fmt"
	"os"
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
// backend keeps copies of the slices it is given, and what Get returns is
// the caller's; Scan visits exactly
// start ≤ key < end in ascending byte order (an empty end: no upper bound,
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
			// What Get returns is the caller's: writing into it changes
			// nothing in the backend (a value read from Pebble is Pebble's
			// memory until its closer is closed, and then anyone's).
			if v, _, err := b.Get([]byte("k1")); err == nil && len(v) > 0 {
				v[0] = 'X'
				if again, _, _ := b.Get([]byte("k1")); string(again) != "v1" {
					t.Fatalf("Get(%q) = %q after the caller wrote into the slice an earlier Get returned; want %q:\n"+
						"Get returns a copy the caller owns, never the backend's own memory.", "k1", again, "v1")
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
				{"b", "", false, all[2:]}, // an empty end, not nil: no upper bound either
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
			empty := newDir(t, "empty")
			if err := os.Mkdir(empty, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := b.Checkpoint(empty); err == nil {
				t.Fatalf("Checkpoint(%s) = nil for an empty directory that exists, want an error: the directory must not\n"+
					"exist yet (a job names a checkpoint only after Checkpoint returns; one that writes into an existing\n"+
					"folder can mix its files with another's)", empty)
			}
		})
	}
}

// TestBackendsAgreeWithAMap certifies that over seeded runs of a few
// thousand Sets and Deletes of short random keys (the empty key, NULs and
// bytes above 0x7F among them), both backends hold exactly what a map
// holds, and that Scans of random ranges, checked every 50 calls, visit
// exactly the map's entries in that range, in byte order.
func TestBackendsAgreeWithAMap(t *testing.T) {
	defer suite.Recover(t)
	rnd := suite.Rand(t)
	for _, kind := range backends {
		t.Run(kind.name, func(t *testing.T) {
			defer suite.Recover(t)
			b, m := kind.open(t), newMemBackend()
			randomKey := func() []byte {
				k := make([]byte, rnd.IntN(5)) // over a thousand keys: more than fit in one chunk of an ordered slice
				for i := range k {
					k[i] = []byte{0, 1, 'a', 'b', 0x7F, 0x80, 0xFF}[rnd.IntN(7)]
				}
				return k
			}
			for i := range 2000 {
				k := randomKey()
				if rnd.IntN(4) == 0 {
					if err := b.Delete(k); err != nil {
						t.Fatalf("Delete(%q) = %v, want nil", k, err)
					}
					m.Delete(k)
				} else {
					v := []byte(fmt.Sprint(i))
					if err := b.Set(k, v); err != nil {
						t.Fatalf("Set(%q, %q) = %v, want nil", k, v, err)
					}
					m.Set(k, v)
				}
				if i%50 != 49 {
					continue
				}
				start, end := randomKey(), randomKey()
				if rnd.IntN(3) == 0 {
					end = nil
				}
				if got, want := scanAll(t, b, start, end), scanAll(t, m, start, end); !slices.Equal(got, want) {
					t.Fatalf("after %d Sets and Deletes, Scan(%q, %q) visited\n%q\nwant (what a map holds in that range, in byte order)\n%q",
						i+1, start, end, got, want)
				}
			}
		})
	}
}
