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

// lowerPriority sets nice 10 on every process of the group pgid leads:
// the go command, each of its threads, and whatever it has started so far.
// Processes and threads started later inherit it from their parent.
func lowerPriority(pgid int) error {
	return syscall.Setpriority(syscall.PRIO_PGRP, pgid, 10)
}
