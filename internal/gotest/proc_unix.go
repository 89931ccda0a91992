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

// reapGroup kills whatever is left of cmd's process group once go test has
// exited: a process a test started and never waited for (a job child the
// test binary's hang left looping, once the binary was stopped) would run
// on, orphaned, for ever. Nothing of a finished run belongs there.
func reapGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
