package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
)

// The helpers in this file make a crash real. A test that must prove
// recovery runs the code under test in a child process (RunChild), which
// kills itself with KillSelf at a chosen point, and tells from the child's
// error with KilledBySIGKILL that it died there and not of a failure.
//
// SIGKILL cannot be caught, blocked or handled: the process ends before its
// next instruction, so no deferred call runs, no buffer is flushed and no
// goroutine finishes. That is the difference from a panic, which runs every
// deferred call on its way up (a `defer sink.flush()` would then hide what a
// real crash exposes). What the process handed to the kernel before the
// kill (a write(2) to a file, even without fsync) survives it; only a power
// loss drops unsynced data, which is a different test.

// KillSelf sends SIGKILL to the current process and never returns: call it
// where the crash must happen. (os.Process.Kill is SIGKILL on Unix.) Write
// whatever the parent must learn from the run to a file before calling it,
// one write per record: the child's stdout and stderr reach the parent, but
// a report the parent parses belongs in a file of its own.
func KillSelf() {
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		panic("suite: KillSelf: cannot SIGKILL this process: " + err.Error())
	}
	select {} // the signal is on its way; nothing after this line runs
}

// KilledBySIGKILL reports whether err, as returned by RunChild (or by
// exec.Cmd's Run, Output or CombinedOutput), says that the child process
// died of SIGKILL: a crash planned with KillSelf, rather than a failing
// test (exit status 1), a panic (exit status 2) or a child that ran to the
// end (nil).
func KilledBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// DescribeExit says in words how a child process ended, for a failure
// message: "ran to the end", "killed by SIGKILL", "exited with status 1 (a
// test failed)", or the error itself.
func DescribeExit(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "ran to the end"
	case KilledBySIGKILL(err):
		return "killed by SIGKILL"
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return "exited with status 1 (a test failed)"
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		return "exited with status 2 (a panic, or a test binary that could not run)"
	}
	return fmt.Sprintf("ended with %v", err)
}

// FileSizes returns the sizes of the non-empty regular files under dir,
// ascending, whatever their names and folders: what a torn-write test
// chooses CrashAtFileSize's limit from, without depending on the layout the
// code under test writes.
func FileSizes(dir string) ([]int64, error) {
	var sizes []int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil && info.Size() > 0 {
			sizes = append(sizes, info.Size())
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sizes of the files under %s: %w", dir, err)
	}
	slices.Sort(sizes)
	return sizes, nil
}
