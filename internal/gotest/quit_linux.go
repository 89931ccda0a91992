//go:build linux

package gotest

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// quitTestBinary sends SIGQUIT to the test binary of the package with
// import path pkg among the processes of process group pgid (go test's,
// see ownGroup), and reports whether it found one. It reads /proc: a test
// binary is named after its package ("01-windows.test"), and go test runs
// it from a temporary folder. SIGQUIT makes a Go program print the stack
// of every goroutine and exit: where the hung test's code was.
func quitTestBinary(pgid int, pkg string) bool {
	want := path.Base(pkg) + ".test"
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pgrp(d) != pgid {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		exe, _, _ := strings.Cut(string(cmdline), "\x00")
		if filepath.Base(exe) == want && syscall.Kill(pid, syscall.SIGQUIT) == nil {
			return true
		}
	}
	return false
}

// pgrp returns the process group of the process whose /proc folder is d,
// or -1: the fifth field of its stat, counted after the command's name,
// which is in parentheses and may hold anything.
func pgrp(d string) int {
	stat, err := os.ReadFile(filepath.Join(d, "stat"))
	if err != nil {
		return -1
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return -1
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return -1
	}
	return g
}
