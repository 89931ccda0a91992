//go:build linux

package suite

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"
)

// FileSizeCrashes reports whether CrashAtFileSize works here (on Linux).
const FileSizeCrashes = true

// CrashAtFileSize makes this process die as in a crash at the first write
// that would grow a regular file past limit bytes: the kernel writes the
// bytes up to the limit and kills the process with SIGXFSZ before the write
// returns, so the file is left torn exactly at limit and no code of the
// process runs after it. A child process of a crash test calls it before
// the code under test, with a limit chosen from the sizes of the files that
// code writes.
//
// It sets RLIMIT_FSIZE to limit, and RLIMIT_CORE to 0 so that the kernel
// writes no core file. It also restores SIGXFSZ's default action, killing
// the process: the Go runtime installs a handler for SIGXFSZ that ignores
// it, so without this the write would only fail with EFBIG and the code
// under test would go on (cleaning up, retrying), which a crash never does.
// Linux only: elsewhere it returns errors.ErrUnsupported.
func CrashAtFileSize(limit int64) error {
	if limit < 0 {
		return fmt.Errorf("CrashAtFileSize(%d): the limit must not be negative", limit)
	}
	// The kernel's struct sigaction, all zero: handler SIG_DFL, no flags, an
	// empty mask. It is set with the raw system call because os/signal can
	// only ignore a signal or deliver it to a channel, never restore its
	// default action; nothing in the test binary installs a handler again.
	var dfl [4]uint64
	const sigsetSize = 8 // sizeof(sigset_t) in the kernel on amd64 and arm64
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGXFSZ),
		uintptr(unsafe.Pointer(&dfl)), 0, sigsetSize, 0, 0); errno != 0 {
		return fmt.Errorf("CrashAtFileSize: restore SIGXFSZ's default action: %w", errno)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{}); err != nil {
		return fmt.Errorf("CrashAtFileSize: RLIMIT_CORE: %w", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("CrashAtFileSize: RLIMIT_FSIZE: %w", err)
	}
	if uint64(limit) > lim.Max {
		return fmt.Errorf("CrashAtFileSize(%d): above the hard limit %d", limit, lim.Max)
	}
	lim.Cur = uint64(limit)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("CrashAtFileSize: RLIMIT_FSIZE: %w", err)
	}
	return nil
}

// DiedAtFileSize reports whether err, from running a child process, says
// it died as CrashAtFileSize makes it die: killed by SIGXFSZ.
func DiedAtFileSize(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGXFSZ
}
