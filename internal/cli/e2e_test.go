//go:build e2e

package cli

import "testing"

// TestEndToEndScripts runs the scripts in testdata/e2e: the ones in which
// de runs go test on a lab/ (a newcomer's journey, a failing skeleton, a
// hung test, de watch reacting to a save, a simulated class graded, the
// mutant runner). Each builds its own lab, so on a fresh build cache they
// cost more than every other test of the course together; they run in
// their own CI step (go test -tags 'solution e2e' -run TestEndToEndScripts
// ./internal/cli) and keep README's test command fast.
func TestEndToEndScripts(t *testing.T) { runScripts(t, "testdata/e2e") }
