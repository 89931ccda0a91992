package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The roles TestKillSelf runs itself in.
const (
	killRole   = "suite-kill" // writes a line to a file, kills itself, would write another
	passRole   = "suite-pass" // returns at once: the child's test passes
	failRole   = "suite-fail" // fails its test: exit status 1
	crashFile  = "FLK_SUITE_CRASH_FILE"
	afterKill  = "after the kill\n"
	beforeKill = "before the kill\n"
)

// TestKillSelf checks that a child that calls KillSelf dies of SIGKILL
// before its next statement, with no deferred call run, that what it wrote
// to a file before the kill is there, and that KilledBySIGKILL tells that
// death from a child that passed or failed.
func TestKillSelf(t *testing.T) {
	switch ChildRole() {
	case killRole:
		f, err := os.OpenFile(os.Getenv(crashFile), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.WriteString("deferred call ran\n")
		f.WriteString(beforeKill)
		KillSelf()
		f.WriteString(afterKill)
		return
	case passRole:
		return
	case failRole:
		t.Fatal("this child fails on purpose")
	}

	file := filepath.Join(t.TempDir(), "report")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := RunChild("TestKillSelf", killRole, crashFile+"="+file)
	if !KilledBySIGKILL(err) {
		t.Fatalf("a child that called KillSelf %s (%v); want killed by SIGKILL\n%s", DescribeExit(err), err, out)
	}
	if got := DescribeExit(err); got != "killed by SIGKILL" {
		t.Errorf("DescribeExit(a SIGKILLed child) = %q", got)
	}
	if report, _ := os.ReadFile(file); string(report) != beforeKill {
		t.Errorf("the killed child's file holds %q, want %q: what was written before the kill survives it, and nothing after it runs,\n"+
			"not even a deferred call", report, beforeKill)
	}

	for _, c := range []struct {
		role, describe string
	}{
		{passRole, "ran to the end"},
		{failRole, "exited with status 1 (a test failed)"},
	} {
		out, err := RunChild("TestKillSelf", c.role)
		if KilledBySIGKILL(err) {
			t.Errorf("KilledBySIGKILL(the error of a child in role %s) = true (%v)\n%s", c.role, err, out)
		}
		if got := DescribeExit(err); got != c.describe {
			t.Errorf("DescribeExit(the error of a child in role %s) = %q, want %q", c.role, got, c.describe)
		}
	}
	if KilledBySIGKILL(os.ErrNotExist) || !strings.Contains(DescribeExit(os.ErrNotExist), "file does not exist") {
		t.Errorf("KilledBySIGKILL or DescribeExit misread an error that is not a child's exit: %v, %q",
			KilledBySIGKILL(os.ErrNotExist), DescribeExit(os.ErrNotExist))
	}
}

// TestFileSizes checks that FileSizes finds every non-empty regular file,
// in any folder, sorted by size.
func TestFileSizes(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"a": 3, "sub/b": 1, "sub/deeper/c": 7, "empty": 0} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FileSizes(dir)
	if err != nil || !slices.Equal(got, []int64{1, 3, 7}) {
		t.Errorf("FileSizes = %v, %v, want [1 3 7], nil", got, err)
	}
	if _, err := FileSizes(filepath.Join(dir, "missing")); err == nil {
		t.Error("FileSizes of a missing folder = nil error, want one")
	}
}
