//go:build linux

package crashfs

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/flk-byo/course/internal/suite"
)

var update = flag.Bool("update", false, "record the fixture traces in testdata/ again (needs strace on Linux)")

// scenario does the steps of scenarioViews in dir, with some file
// operations outside it (in outside) and, meanwhile, a busy thread writing
// outside it, so that the log has calls of several threads cut in two.
func scenario(dir, outside string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	open := func(name string, flag int) *os.File {
		f, err := os.OpenFile(p(name), flag, 0o644)
		must(err)
		return f
	}
	write := func(f *os.File, s string) {
		_, err := f.Write([]byte(s))
		must(err)
	}
	syncDir := func(name string) {
		d := open(name, os.O_RDONLY)
		must(d.Sync())
		must(d.Close())
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // another thread, busy outside the traced directory
		runtime.LockOSThread()
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			os.WriteFile(filepath.Join(outside, "busy"), []byte(strings.Repeat("b", i%100)), 0o644)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	must(os.Mkdir(p("a"), 0o755))
	f := open("a/f", os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	write(f, data1)
	must(f.Sync())
	must(f.Close())
	MarkStep("m", 1)
	syncDir(".")
	MarkStep("m", 2)
	syncDir("a")
	MarkStep("m", 3)

	f = open("a/f", os.O_WRONLY|os.O_APPEND)
	write(f, "+tail")
	must(f.Close())
	g := open("a/g.tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	write(g, "G")
	must(g.Sync())
	must(g.Close())
	must(os.Rename(p("a/g.tmp"), p("a/g")))
	MarkStep("m", 4)
	syncDir("a")
	MarkStep("m", 5)

	f = open("a/f", os.O_RDWR)
	_, err = f.WriteAt([]byte("J"), 0)
	must(err)
	must(syscall.Fdatasync(int(f.Fd())))
	h := open("a/h", os.O_WRONLY|os.O_CREATE|os.O_SYNC)
	writev(h, "ab", "cd")
	must(h.Close())
	MarkStep("m", 6)

	must(os.Link(p("a/g"), p("a/g2")))
	must(os.Symlink("g", p("a/link")))
	syncDir("a")
	MarkStep("m", 7)

	c := open("a/c", os.O_RDWR|os.O_CREATE|os.O_EXCL)
	_, err = io.Copy(c, f) // copy_file_range: all of a/f, from offset 0
	must(err)
	cfd := int(c.Fd())
	dup, err := syscall.Dup(cfd) // shares c's offset: "!" goes at the end
	must(err)
	_, err = syscall.Write(dup, []byte("!"))
	must(err)
	must(syscall.Close(dup))
	_, err = c.Seek(0, io.SeekStart)
	must(err)
	write(c, "X")
	dup2, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(cfd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		must(errno)
	}
	_, err = syscall.Write(int(dup2), []byte("?"))
	must(err)
	must(syscall.Close(int(dup2)))
	must(c.Close())
	s := open("a/s", os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	gf := open("a/g", os.O_RDONLY)
	_, err = syscall.Sendfile(int(s.Fd()), int(gf.Fd()), nil, 1)
	must(err)
	must(gf.Close())
	must(s.Close())
	must(os.Truncate(p("a/s"), 3))
	must(f.Truncate(4))
	must(f.Close())
	must(os.Remove(p("a/g2")))
	must(os.MkdirAll(p("a/b/c"), 0o755))
	must(os.WriteFile(p("a/b/c/x"), []byte("x"), 0o644))
	must(os.RemoveAll(p("a/b")))
	must(os.WriteFile(filepath.Join(outside, "o"), []byte("outside"), 0o644))
	must(os.Rename(filepath.Join(outside, "o"), filepath.Join(outside, "o2")))
	syscall.Sync()
	MarkStep("m", 8)

	u := open("a/c", os.O_WRONLY)
	must(os.Remove(p("a/c")))
	write(u, "ghost") // to a file with no name left
	must(u.Close())
	must(os.Rename(p("a"), p("z")))
	must(os.Mkdir(p("z/new"), 0o755))
	syscall.Sync()
	MarkStep("m", 9)
	return nil
}

// writev writes the buffers to f with one writev(2).
func writev(f *os.File, bufs ...string) {
	iov := make([]syscall.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i].Base = unsafe.StringData(b)
		iov[i].SetLen(len(b))
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_WRITEV, f.Fd(), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov))); errno != 0 {
		panic(errno)
	}
	runtime.KeepAlive(bufs)
}

const scenarioRole, scenarioDirEnv, scenarioOutsideEnv = "crashfs-scenario", "FLK_CRASHFS_DIR", "FLK_CRASHFS_OUTSIDE"

// TestFixtures is the scenario's child side, and with -update records the
// fixtures again.
func TestFixtures(t *testing.T) {
	if suite.ChildRole() == scenarioRole {
		if err := scenario(os.Getenv(scenarioDirEnv), os.Getenv(scenarioOutsideEnv)); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !*update {
		t.Skip("records the fixtures with -update")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range fixtures {
		dir, outside := t.TempDir(), t.TempDir()
		log := filepath.Join(t.TempDir(), "strace.log")
		cmd := suite.ChildCommand(t.Name(), scenarioRole, scenarioDirEnv+"="+dir, scenarioOutsideEnv+"="+outside)
		if out, err := runStrace(strace, cmd, log, fx.hex); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		cwd, _ := os.Getwd()
		header := fmt.Sprintf("# dir=%s cwd=%s\n", dir, cwd)
		if err := os.WriteFile(filepath.Join("testdata", fx.name), append([]byte(header), raw...), 0o644); err != nil {
			t.Fatal(err)
		}
		tr := parseFixture(t, fx.name)
		if err := tr.Verify(dir); err != nil {
			t.Errorf("%s: %v", fx.name, err)
		}
	}
}
