//go:build !linux

package sandbox

import "errors"

// Exec fails off Linux, where New never makes a sandbox to launch in.
func Exec([]string) error {
	return errors.New("--as-user runs the tests as another user on Linux only")
}
