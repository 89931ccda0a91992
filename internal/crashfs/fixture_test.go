package crashfs

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures are real strace logs of scenario, recorded with
// `go test ./internal/crashfs -run TestFixtures -update`: one as Record
// records (-xx, every byte in hex), one with strace's default C escapes.
// Their first line, "# dir=… cwd=…", says where the scenario ran.
var fixtures = []struct {
	name string
	hex  bool
}{{"scenario-hex.log", true}, {"scenario-escaped.log", false}}

// data1 is the first file's contents: quotes, a backslash, a newline, a
// NUL, a byte that is not UTF-8 and one that is, for strace to escape.
const data1 = "hello \"q\" \\ \n\x00\xff é"

// The scenario's steps, each ended by a marker, and the two views after
// each: live (what a reader sees) and durable (what a power loss leaves).
// A directory is "/"; a symbolic link "-> target".
var scenarioViews = []struct {
	what          string
	live, durable map[string]string
}{
	1: {"mkdir a, create a/f, write, fsync a/f: nothing durable, Dir is not fsynced",
		map[string]string{"a": "/", "a/f": data1},
		map[string]string{}},
	2: {"fsync Dir: a is durable, a/f's name is not",
		map[string]string{"a": "/", "a/f": data1},
		map[string]string{"a": "/"}},
	3: {"fsync a: a/f is durable",
		map[string]string{"a": "/", "a/f": data1},
		map[string]string{"a": "/", "a/f": data1}},
	4: {"append to a/f; write, fsync and rename a/g.tmp to a/g: none of it durable",
		map[string]string{"a": "/", "a/f": data1 + "+tail", "a/g": "G"},
		map[string]string{"a": "/", "a/f": data1}},
	5: {"fsync a: a/g is durable, a/f's tail is not",
		map[string]string{"a": "/", "a/f": data1 + "+tail", "a/g": "G"},
		map[string]string{"a": "/", "a/f": data1, "a/g": "G"}},
	6: {"pwrite and fdatasync a/f; writev a/h through O_SYNC: its data is durable, its name not",
		map[string]string{"a": "/", "a/f": "J" + data1[1:] + "+tail", "a/g": "G", "a/h": "abcd"},
		map[string]string{"a": "/", "a/f": "J" + data1[1:] + "+tail", "a/g": "G"}},
	7: {"link a/g2, symlink a/link, fsync a",
		map[string]string{"a": "/", "a/f": "J" + data1[1:] + "+tail", "a/g": "G", "a/g2": "G", "a/h": "abcd", "a/link": "-> g"},
		map[string]string{"a": "/", "a/f": "J" + data1[1:] + "+tail", "a/g": "G", "a/g2": "G", "a/h": "abcd", "a/link": "-> g"}},
	8: {"copy_file_range, dup, F_DUPFD, lseek, sendfile, ftruncate, truncate, unlink, RemoveAll, files outside Dir, sync",
		map[string]string{"a": "/", "a/f": "J" + data1[1:4], "a/g": "G", "a/h": "abcd", "a/link": "-> g",
			"a/c": "X?" + ("J" + data1[1:] + "+tail")[2:] + "!", "a/s": "G\x00\x00"},
		map[string]string{"a": "/", "a/f": "J" + data1[1:4], "a/g": "G", "a/h": "abcd", "a/link": "-> g",
			"a/c": "X?" + ("J" + data1[1:] + "+tail")[2:] + "!", "a/s": "G\x00\x00"}},
	9: {"write to a/c after its unlink; rename a to z; mkdir z/new; sync",
		map[string]string{"z": "/", "z/f": "J" + data1[1:4], "z/g": "G", "z/h": "abcd", "z/link": "-> g", "z/s": "G\x00\x00", "z/new": "/"},
		map[string]string{"z": "/", "z/f": "J" + data1[1:4], "z/g": "G", "z/h": "abcd", "z/link": "-> g", "z/s": "G\x00\x00", "z/new": "/"}},
}

// parseFixture parses testdata/name with the dir and cwd of its header.
func parseFixture(t *testing.T, name string) *Trace {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := bytes.Cut(raw, []byte("\n"))
	var dir, cwd string
	if _, err := fmt.Sscanf(string(header), "# dir=%s cwd=%s", &dir, &cwd); err != nil {
		t.Fatalf("%s: header %q: %v", name, header, err)
	}
	tr, err := Parse(bytes.NewReader(raw), dir, cwd)
	if err != nil {
		t.Fatalf("Parse(%s) = %v", name, err)
	}
	return tr
}

// marks returns the index of each marker op of tr, by id.
func marks(tr *Trace) map[int64]int {
	at := map[int64]int{}
	for i, op := range tr.Ops {
		if op.Kind == Mark {
			at[op.ID] = i
		}
	}
	return at
}

// TestFixturesHaveWhatTheParserMustCopeWith checks that the fixtures hold
// calls cut in two by other threads, and calls on files outside the
// directory, so that the tests below exercise both.
func TestFixturesHaveWhatTheParserMustCopeWith(t *testing.T) {
	for _, fx := range fixtures {
		raw, err := os.ReadFile(filepath.Join("testdata", fx.name))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"<unfinished ...>", " resumed>", "busy", "o2"} {
			if fx.hex && (want == "busy" || want == "o2") {
				continue // in hex
			}
			if !bytes.Contains(raw, []byte(want)) {
				t.Errorf("%s has no %q: record it again (-update)", fx.name, want)
			}
		}
	}
}

// TestParseEscapedAndHexAlike checks that a log with strace's C escapes and
// one with every byte in hex give the same operations.
func TestParseEscapedAndHexAlike(t *testing.T) {
	hex, esc := parseFixture(t, fixtures[0].name), parseFixture(t, fixtures[1].name)
	strip := func(tr *Trace) []string {
		var out []string
		for _, op := range tr.Ops {
			out = append(out, fmt.Sprintf("%v %q", op, op.Data))
		}
		return out
	}
	if a, b := strip(hex), strip(esc); !slices.Equal(a, b) {
		t.Errorf("the hex and the escaped logs differ:\nhex:\n%s\nescaped:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// TestViewsAtEachMark replays the fixtures and compares the live view
// (ReplayLive's mirror) and the durable view (PowerLoss) at each marker of
// the scenario with what it says they are.
func TestViewsAtEachMark(t *testing.T) {
	for _, fx := range fixtures {
		tr := parseFixture(t, fx.name)
		at := marks(tr)
		if len(at) != len(scenarioViews)-1 {
			t.Fatalf("%s: %d markers, want %d", fx.name, len(at), len(scenarioViews)-1)
		}
		mirror := t.TempDir()
		err := tr.ReplayLive(mirror, func(i int, op Op) error {
			if op.Kind == Mark {
				v := scenarioViews[op.ID]
				if got := render(t, mirror); !maps.Equal(got, v.live) {
					t.Errorf("%s: live view at marker %d (%s):\n got  %q\n want %q", fx.name, op.ID, v.what, got, v.live)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for id, v := range scenarioViews[1:] {
			dir := t.TempDir()
			if _, err := tr.PowerLoss(at[int64(id+1)], dir); err != nil {
				t.Fatal(err)
			}
			if got := render(t, dir); !maps.Equal(got, v.durable) {
				t.Errorf("%s: durable view at marker %d (%s):\n got  %q\n want %q", fx.name, id+1, v.what, got, v.durable)
			}
		}
	}
}

// TestFixtureOps checks the operations the hex fixture gives, in order,
// leaving out the markers.
func TestFixtureOps(t *testing.T) {
	tr := parseFixture(t, fixtures[0].name)
	var got []string
	for _, op := range tr.Ops {
		if op.Kind != Mark {
			got = append(got, op.String())
		}
	}
	want := strings.Split(strings.TrimSpace(`
mkdir a
create a/f
write a/f bytes [0, 18)
fsync a/f
fsync Dir
fsync a
write a/f bytes [18, 23)
create a/g.tmp
write a/g.tmp bytes [0, 1)
fsync a/g.tmp
rename a/g.tmp → a/g
fsync a
write a/f bytes [0, 1)
fsync a/f
create a/h
write a/h bytes [0, 4) (O_SYNC)
link a/g2 → a/g
symlink a/link → g
fsync a
create a/c
write a/c bytes [0, 23)
write a/c bytes [23, 24)
write a/c bytes [0, 1)
write a/c bytes [1, 2)
create a/s
write a/s bytes [0, 1)
truncate a/s to 3 bytes
truncate a/f to 4 bytes
remove a/g2
mkdir a/b
mkdir a/b/c
create a/b/c/x
write a/b/c/x bytes [0, 1)
remove a/b/c/x
remove a/b/c
remove a/b
sync (everything)
remove a/c
write (a removed file) bytes [0, 5)
rename a → z
mkdir z/new
sync (everything)`), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("ops:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
