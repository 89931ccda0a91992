//go:build unix

package gotest

import (
	"os/exec"
	"syscall"
)

// ownGroup puts cmd in a process group of its own and makes cancelling it
// kill the whole group: go test, and the test binaries it started. Killing
// only the go command would leave a test binary running, orphaned, until
// its own timeout.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
