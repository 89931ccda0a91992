package crashfs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestParseString checks strace's string escapes, and the "..." it adds
// when it cut a string short.
func TestParseString(t *testing.T) {
	for _, c := range []struct {
		in        string
		want      string
		truncated bool
	}{
		{`""`, "", false},
		{`"plain"`, "plain", false},
		{`"q\"b\\s"`, `q"b\s`, false},
		{`"\n\t\r\v\f"`, "\n\t\r\v\f", false},
		{`"\0\1\377\0012"`, "\x00\x01\xff\x012", false},
		{`"\x41\x00\xff"`, "A\x00\xff", false},
		{`"abc"...`, "abc", true},
		{`"\xc3\xa9"`, "é", false},
	} {
		got, truncated, err := parseString(c.in)
		if err != nil || string(got) != c.want || truncated != c.truncated {
			t.Errorf("parseString(%s) = %q, %v, %v; want %q, %v, nil", c.in, got, truncated, err, c.want, c.truncated)
		}
	}
	for _, bad := range []string{`abc`, `"abc`, `"\x4"`, `"a\`} {
		if _, _, err := parseString(bad); err == nil {
			t.Errorf("parseString(%s) = nil error, want one", bad)
		}
	}
}

// TestReadCallsJoinsResumedCalls checks that a call another thread cut in
// two is joined and put where it completed (close where it started), and
// that lines that are not calls are skipped.
func TestReadCallsJoinsResumedCalls(t *testing.T) {
	log := `11 openat(AT_FDCWD, "/d/x", O_WRONLY|O_CREAT, 0644 <unfinished ...>
12 close(5 <unfinished ...>
12 <... close resumed>)              = 0
11 <... openat resumed>)             = 5
12 write(7, "ab", 2 <unfinished ...>
--- SIGURG {si_signo=SIGURG, si_code=SI_TKILL} ---
11 fsync(5)                          = 0
12 <... write resumed>)              = 2
11 read(0x5, 0x7ffd, 0x10)           = 0x8
11 faccessat(AT_FDCWD, "/flk-mark/stored/1", F_OK) = -1 ENOENT (No such file or directory)
11 write(5, "gone", 4)               = ?
11 +++ killed by SIGKILL +++
`
	calls, err := readCalls(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d %s(%s)=%d%s", c.line, c.name, strings.Join(c.args, "|"), c.ret, c.err))
		if c.unset {
			got[len(got)-1] += "?"
		}
	}
	want := []string{
		`2 close(5)=0`,
		`4 openat(AT_FDCWD|"/d/x"|O_WRONLY|O_CREAT|0644)=5`,
		`7 fsync(5)=0`,
		`8 write(7|"ab"|2)=2`,
		`9 read(0x5|0x7ffd|0x10)=8`,
		`10 faccessat(AT_FDCWD|"/flk-mark/stored/1"|F_OK)=-1ENOENT`,
		`11 write(5|"gone"|4)=0?`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("readCalls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := readCalls(strings.NewReader("11 <... write resumed>) = 2\n")); err == nil {
		t.Error("readCalls of a resumed call that never started = nil error, want one")
	}
}

// trace parses a log of calls made in /d, one per line, with pid 1.
func trace(t *testing.T, lines ...string) *Trace {
	t.Helper()
	tr, err := Parse(strings.NewReader("1 "+strings.Join(lines, "\n1 ")+"\n"), "/d", "/")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tr
}

// TestParseRejectsWhatItCannotModel checks that a trace the model cannot
// follow is an error that says why, not a silently wrong model.
func TestParseRejectsWhatItCannotModel(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a write strace cut short", []string{
			`openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3`,
			`write(3, "abc"..., 10) = 10`}, "larger -s"},
		{"a file moved in from outside", []string{
			`rename("/tmp/f", "/d/f") = 0`}, "from outside"},
		{"an open of a file the trace never created", []string{
			`openat(AT_FDCWD, "/d/f", O_RDONLY) = 3`}, "never created"},
		{"a copy from a file outside", []string{
			`openat(AT_FDCWD, "/tmp/src", O_RDONLY) = 3`,
			`openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 4`,
			`copy_file_range(3, NULL, 4, NULL, 100, 0) = 100`}, "outside it"},
		{"an unterminated call", []string{`write(3, "abc"`}, "unterminated"},
	} {
		_, err := Parse(strings.NewReader("1 "+strings.Join(c.lines, "\n1 ")+"\n"), "/d", "/")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestParseIgnoresOtherFiles checks that calls on paths and descriptors
// outside the directory, and failed calls, give no operation.
func TestParseIgnoresOtherFiles(t *testing.T) {
	tr := trace(t,
		`openat(AT_FDCWD, "/dd/f", O_WRONLY|O_CREAT, 0644) = 3`, // a sibling whose name starts the same
		`write(3, "x", 1) = 1`,
		`fsync(3) = 0`,
		`write(1, "out", 3) = 3`,
		`mkdirat(AT_FDCWD, "/d/a", 0755) = -1 EEXIST (File exists)`,
		`renameat(AT_FDCWD, "/tmp/a", AT_FDCWD, "/tmp/b") = 0`,
		`faccessat(AT_FDCWD, "/etc/passwd", F_OK) = 0`,
	)
	if len(tr.Ops) != 0 {
		t.Errorf("ops = %v, want none", tr.Ops)
	}
}

// TestParseResolvesRelativePaths checks paths relative to the working
// directory, to a directory descriptor, and after chdir.
func TestParseResolvesRelativePaths(t *testing.T) {
	tr := trace(t,
		`mkdirat(AT_FDCWD, "d/a", 0755) = 0`, // relative to the cwd, /
		`openat(AT_FDCWD, "/d/a", O_RDONLY|O_DIRECTORY) = 3`,
		`openat(3, "f", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`,
		`chdir("/d/a") = 0`,
		`renameat(AT_FDCWD, "f", 3, "../g") = 0`,
		`unlinkat(3, "/d/g", 0) = 0`, // absolute: the dirfd does not count
	)
	var got []string
	for _, op := range tr.Ops {
		got = append(got, op.String())
	}
	want := []string{"mkdir a", "create a/f", "rename a/f → g", "remove g"}
	if !slices.Equal(got, want) {
		t.Errorf("ops = %q, want %q", got, want)
	}
}

// TestReplayLiveShowsWritesPageByPage checks that a write is shown to a
// reader in pieces that end at page boundaries.
func TestReplayLiveShowsWritesPageByPage(t *testing.T) {
	tr := trace(t,
		`openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3`,
		`lseek(3, 100, SEEK_SET) = 100`,
		fmt.Sprintf(`write(3, "%s", 10000) = 10000`, strings.Repeat(`\x61`, 10000)),
	)
	var pieces [][2]int64
	err := tr.ReplayLive(t.TempDir(), func(i int, op Op) error {
		if op.Kind == Write {
			pieces = append(pieces, [2]int64{op.Off, op.Off + int64(len(op.Data))})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int64{{100, 4096}, {4096, 8192}, {8192, 10100}}; !slices.Equal(pieces, want) {
		t.Errorf("pieces = %v, want %v", pieces, want)
	}
}

// TestCutsAndSurvival checks the moments Cuts offers, and the reasons the
// survival report gives.
func TestCutsAndSurvival(t *testing.T) {
	tr := trace(t, // the ops, by index:
		`mkdirat(AT_FDCWD, "/d/s", 0755) = 0`,                           // 0
		`openat(AT_FDCWD, "/d/s/t", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`, // 1
		`write(3, "data", 4) = 4`,                                       // 2
		`fsync(3) = 0`,                                                  // 3: t's data is durable
		`fsync(3) = 0`,                                                  // 4: changes nothing
		`write(3, "more", 4) = 4`,                                       // 5
		`openat(AT_FDCWD, "/d", O_RDONLY) = 4`,                          // (no op)
		`fsync(4) = 0`,                                                  // 6: s is durable
		`openat(AT_FDCWD, "/d/old", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5`, // 7
		`fsync(4) = 0`,                        // 8: old is durable
		`unlinkat(AT_FDCWD, "/d/old", 0) = 0`, // 9
		`openat(AT_FDCWD, "/d/n", O_WRONLY|O_CREAT|O_EXCL|O_SYNC, 0644) = 6`, // 10
		`write(6, "sync", 4) = 4`, // 11: durable data at once
	)
	if got, want := tr.Cuts(), []int{3, 6, 8, 11, 12}; !slices.Equal(got, want) {
		t.Errorf("Cuts() = %v, want %v", got, want)
	}
	report, err := tr.PowerLoss(len(tr.Ops), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"n ", "lost (4 bytes): not durable yet: create n (Dir not fsynced since)",
		"s/t", "lost (8 bytes): not durable yet: create s/t (s not fsynced since)",
		"old", "back (0 bytes): not durable yet: remove old (Dir not fsynced since)",
		"s  ", "folder, whole",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the survival report has no %q:\n%s", want, report)
		}
	}
	report, err = tr.PowerLoss(6, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if want := "lost (folder): not durable yet: mkdir s (Dir not fsynced since)"; !strings.Contains(report, want) {
		t.Errorf("the survival report before Dir's fsync has no %q:\n%s", want, report)
	}
	if _, err := tr.PowerLoss(len(tr.Ops)+1, t.TempDir()); err == nil {
		t.Error("PowerLoss past the end = nil error, want one")
	}
}

// TestVerifySeesWhatTheTraceMissed checks that Verify reports a directory
// that is not what the trace says.
func TestVerifySeesWhatTheTraceMissed(t *testing.T) {
	tr := trace(t,
		`openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT, 0644) = 3`,
		`write(3, "abc", 3) = 3`,
	)
	dir := t.TempDir()
	if err := tr.ReplayLive(dir, func(int, Op) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := tr.Verify(dir); err != nil {
		t.Errorf("Verify of the replayed directory = %v, want nil", err)
	}
	if err := (&Trace{Dir: "/d", final: map[string]file{}}).Verify(dir); err == nil || !strings.Contains(err.Error(), "f: in the directory, not in the trace") {
		t.Errorf("Verify of a file the trace never made = %v, want an error naming it", err)
	}
}

// TestDurableChangesKeepTheirOrder checks that an entry change made durable
// takes the earlier changes of the same file along: fsyncing the folder a
// file was renamed into makes the rename durable, creation included, and a
// later fsync of the folder it was created in cannot bring the old name
// back.
func TestDurableChangesKeepTheirOrder(t *testing.T) {
	tr := trace(t,
		`mkdirat(AT_FDCWD, "/d/s", 0755) = 0`,
		`mkdirat(AT_FDCWD, "/d/c", 0755) = 0`,
		`openat(AT_FDCWD, "/d", O_RDONLY) = 3`,
		`fsync(3) = 0`,
		`openat(AT_FDCWD, "/d/s/x", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`,
		`write(4, "data", 4) = 4`,
		`fsync(4) = 0`,
		`renameat(AT_FDCWD, "/d/s/x", AT_FDCWD, "/d/c/x") = 0`,
		`openat(AT_FDCWD, "/d/c", O_RDONLY) = 5`,
		`fsync(5) = 0`,
		`openat(AT_FDCWD, "/d/s", O_RDONLY) = 6`,
		`fsync(6) = 0`,
	)
	dir := t.TempDir()
	if _, err := tr.PowerLoss(len(tr.Ops), dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"s": "/", "c": "/", "c/x": "data"}
	if got := render(t, dir); !maps.Equal(got, want) {
		t.Errorf("durable view = %q, want %q", got, want)
	}
}

// render turns a directory into scenarioViews' form.
func render(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree, err := readTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for p, f := range tree {
		switch f.kind {
		case dirNode:
			out[p] = "/"
		case symlinkNode:
			out[p] = "-> " + f.target
		default:
			out[p] = string(f.data)
		}
	}
	return out
}
