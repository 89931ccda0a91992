//go:build !linux

package suite

import (
	"errors"
	"fmt"
)

// FileSizeCrashes reports whether CrashAtFileSize works here: it needs
// Linux.
const FileSizeCrashes = false

// CrashAtFileSize makes this process die as in a crash at the first write
// that would grow a regular file past limit bytes. It needs Linux; here it
// returns errors.ErrUnsupported. See crash_linux.go.
func CrashAtFileSize(limit int64) error {
	return fmt.Errorf("CrashAtFileSize(%d): %w (needs Linux)", limit, errors.ErrUnsupported)
}

// DiedAtFileSize reports whether err, from running a child process, says
// it died as CrashAtFileSize makes it die; here, never.
func DiedAtFileSize(err error) bool { return false }
