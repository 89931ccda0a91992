//go:build e2e

package cli

import "testing"

// TestClassScripts grades a simulated class (a finished student, one
// half-way, one who edited a test) end to end, in testdata/e2e. Each
// student is a differently built lab/, so on a fresh build cache these
// scripts cost more than all the others together: they run in their own CI
// step (go test -tags 'solution e2e' -run TestClassScripts ./internal/cli)
// and keep README's test command fast.
func TestClassScripts(t *testing.T) { runScripts(t, "testdata/e2e") }
