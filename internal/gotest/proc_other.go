//go:build !unix

package gotest

import "os/exec"

// ownGroup leaves cmd as it is where there are no Unix process groups:
// cancelling it kills the go command only.
func ownGroup(*exec.Cmd) {}

// lowerPriority does nothing where there are no Unix process groups: a
// background run competes with the others as an equal.
func lowerPriority(int) error { return nil }

// reapGroup does nothing where there are no Unix process groups.
func reapGroup(*exec.Cmd) {}
