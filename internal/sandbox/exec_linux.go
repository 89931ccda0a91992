//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Exec is the launcher: go test runs it, as root, with the sandbox's
// folder, the user's uid and gid, and the test binary and its arguments
// (args). It copies the binary into a folder of the sandbox the user can
// read (go test's own work folder is root's alone), makes the user a
// temporary folder of its own, drops root for the user (its groups too),
// and executes the binary in its place: same process, same open files (the
// verdict channel at descriptor 3), same process group (so that de can
// still stop a hung test). It returns only on failure.
func Exec(args []string) error {
	if len(args) < 4 {
		return fmt.Errorf("%s: want DIR UID GID BINARY [ARGS...], got %d arguments", ExecCommand, len(args))
	}
	dir, binary := args[0], args[3]
	uid, err1 := strconv.Atoi(args[1])
	gid, err2 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || uid <= 0 {
		return fmt.Errorf("%s: %q %q is no user other than root", ExecCommand, args[1], args[2])
	}
	bin, err := os.MkdirTemp(dir, "bin-")
	if err != nil {
		return err
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return err
	}
	copied := filepath.Join(bin, filepath.Base(binary))
	if err := copyExecutable(binary, copied); err != nil {
		return fmt.Errorf("%s: copy the test binary: %w", ExecCommand, err)
	}
	tmp, err := os.MkdirTemp(dir, "tmp-")
	if err != nil {
		return err
	}
	if err := os.Chown(tmp, uid, gid); err != nil {
		return err
	}
	// Go applies these to every thread of the process (since Go 1.16).
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("%s: setgroups: %w", ExecCommand, err)
	}
	if err := syscall.Setgid(gid); err != nil {
		return fmt.Errorf("%s: setgid: %w", ExecCommand, err)
	}
	if err := syscall.Setuid(uid); err != nil {
		return fmt.Errorf("%s: setuid: %w", ExecCommand, err)
	}
	argv := append([]string{copied}, args[4:]...)
	return fmt.Errorf("%s: %w", ExecCommand, syscall.Exec(copied, argv, environment(tmp)))
}
