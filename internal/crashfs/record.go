package crashfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoStrace is returned by Record where strace cannot run.
var ErrNoStrace = errors.New("needs strace (Linux); CI runs it")

// traced are the system calls Record traces: every call that opens,
// writes, moves, removes or syncs a file, those that move a file offset
// (reads, traced raw so that their buffers stay out of the log), and the
// access() calls of MarkStep. A "?" lets strace skip a call this machine
// does not have (open, rename and friends are gone on arm64).
var traced = strings.Join([]string{
	"?open", "openat", "?openat2", "?creat", "close", "dup", "?dup2", "dup3", "fcntl",
	"read", "readv", "lseek", "write", "pwrite64", "writev", "pwritev", "?pwritev2",
	"copy_file_range", "sendfile", "ftruncate", "?truncate", "fallocate",
	"fsync", "fdatasync", "sync", "syncfs",
	"?rename", "renameat", "?renameat2", "?unlink", "unlinkat", "?mkdir", "mkdirat", "?rmdir",
	"?link", "linkat", "?symlink", "symlinkat", "chdir", "fchdir",
	"?access", "faccessat", "?faccessat2",
}, ",")

// maxString is strace's -s: no write of a traced run may be longer, or its
// bytes would be cut short in the log (Parse then fails, saying so).
const maxString = 1 << 24

// Record runs cmd, which must not be started, to the end under strace -f
// and returns what it did under dir (absolute, and empty when cmd starts),
// with cmd's combined output. It fails if cmd fails, or if the trace does
// not account for what cmd left in dir (see Trace.Verify). Where strace is
// not installed, or may not trace (no ptrace permission), the error is or
// wraps ErrNoStrace. It needs strace 5.3 or later (--seccomp-bpf, which
// stops the traced process only at the traced calls).
//
// cmd is changed to run strace, which runs cmd's program. The trace shows
// only the file operations, not the run's output or timing, so a traced run
// is as deterministic as the program.
func Record(cmd *exec.Cmd, dir string) (*Trace, []byte, error) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		return nil, nil, ErrNoStrace
	}
	if cmd.Err != nil {
		return nil, nil, cmd.Err
	}
	tmp, err := os.MkdirTemp("", "crashfs-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	log := filepath.Join(tmp, "strace.log")
	out, err := runStrace(strace, cmd, log, true)
	if err != nil {
		return nil, out, err
	}
	cwd := cmd.Dir
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, out, err
		}
	}
	f, err := os.Open(log)
	if err != nil {
		return nil, out, err
	}
	defer f.Close()
	tr, err := Parse(f, dir, cwd)
	if err != nil {
		return nil, out, fmt.Errorf("crashfs: %w", err)
	}
	if err := tr.Verify(dir); err != nil {
		return nil, out, fmt.Errorf("crashfs: %w", err)
	}
	return tr, out, nil
}

// runStrace runs cmd under strace, which writes its log to log, and
// returns cmd's combined output. With hex, strace prints every byte of a
// string as \xNN (-xx); without, with C escapes, as it does by default.
func runStrace(strace string, cmd *exec.Cmd, log string, hex bool) ([]byte, error) {
	args := []string{strace, "-f", "-qq", "--seccomp-bpf", "-e", "signal=none", "-s", strconv.Itoa(maxString),
		"-e", "raw=read,readv", "-e", "trace=" + traced, "-o", log}
	if hex {
		args = append(args, "-xx")
	}
	cmd.Path, cmd.Args = strace, append(append(args, "--", cmd.Path), cmd.Args[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "ptrace") && strings.Contains(string(out), "not permitted") {
			return out, fmt.Errorf("crashfs: strace may not trace here (%s): %w", firstLine(out), ErrNoStrace)
		}
		return out, fmt.Errorf("crashfs: the traced run failed: %w", err)
	}
	return out, nil
}

// firstLine returns the first line of b.
func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
