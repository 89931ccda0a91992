//go:build linux

package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCrashAtFileSizeTearsTheWriteAndKills runs itself as a child that sets
// a 10-byte limit and writes 25 bytes: the child must die of SIGXFSZ in that
// write, leaving exactly 10 bytes and never reaching the code after it.
func TestCrashAtFileSizeTearsTheWriteAndKills(t *testing.T) {
	const role, fileEnv = "crash-at-file-size", "FLK_SUITE_TORN_FILE"
	if ChildRole() == role {
		if err := CrashAtFileSize(10); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(os.Getenv(fileEnv), []byte("0123456789abcdefghijklmno"), 0o644); err != nil {
			t.Fatalf("the write past the limit returned %v: the process should have died in it", err)
		}
		t.Fatal("the write past the limit returned: the process should have died in it")
	}
	file := filepath.Join(t.TempDir(), "torn")
	out, err := RunChild(t.Name(), role, fileEnv+"="+file)
	if !DiedAtFileSize(err) {
		t.Fatalf("child = %v, want it killed by SIGXFSZ\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil || string(data) != "0123456789" {
		t.Errorf("the torn file holds %q (%v), want the 10 bytes up to the limit", data, err)
	}
	if err := CrashAtFileSize(-1); err == nil {
		t.Error("CrashAtFileSize(-1) = nil, want an error")
	}
}
