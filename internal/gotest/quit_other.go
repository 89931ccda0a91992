//go:build !linux

package gotest

// quitTestBinary finds no test binary where there is no /proc to read it
// from: only Options.Timeout stops a hung test there.
func quitTestBinary(pgid int, pkg string) bool { return false }
