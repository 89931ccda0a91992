package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TempDir returns a new, empty directory for a test's files and removes it
// when the test and its subtests end, as t.TempDir does, but on a
// filesystem held in memory where the machine has one with room to spare
// (Linux's /dev/shm); elsewhere it is t.TempDir.
//
// The crash and durability tests of stages 05 and 08 write every file
// through fsync, as a correct sink must. On a disk each fsync waits for the
// device (on a virtual machine's disk about half a millisecond of system
// time, on a laptop more), and a stage's suite makes thousands of them: most
// of its running time. None of those tests needs the disk. A process killed
// with SIGKILL loses nothing the kernel already holds, wherever the files
// are; a torn write is a file-size limit, which any filesystem enforces; and
// power loss is simulated from a trace of the job's system calls, which are
// the same on every filesystem. So the suites lose nothing on a memory
// filesystem and answer several times sooner.
func TempDir(t testing.TB) string {
	t.Helper()
	base := memoryDir()
	if base == "" {
		return t.TempDir()
	}
	sweepStale(base)
	dir, err := os.MkdirTemp(base, tempPrefix+sanitize(t.Name())+"-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// tempPrefix begins the name of every directory TempDir makes, so that
// sweepStale can find the ones a killed test binary left behind.
const tempPrefix = "flk-byo-"

// staleAfter is how old a directory of TempDir's must be before sweepStale
// removes it: far longer than any suite may run (de test stops a stage's
// test binary after 60 s), so it belongs to a binary that was killed
// before its cleanup ran.
const staleAfter = time.Hour

// sweepStale removes the directories under base that test binaries killed
// before their cleanup (a hung test, Ctrl-C) left behind: a memory
// filesystem keeps them in RAM until the machine restarts.
func sweepStale(base string) {
	old, _ := filepath.Glob(filepath.Join(base, tempPrefix+"*"))
	for _, dir := range old {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > staleAfter {
			os.RemoveAll(dir)
		}
	}
}

// sanitize makes a test's name usable in a directory name, as t.TempDir
// does: subtests' slashes and other awkward characters become underscores,
// and a long name is cut.
func sanitize(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' || r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, name)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}
