//go:build !unix

package cli

import "github.com/rogpeppe/go-internal/testscript"

// cmdSignal needs Unix signals; a script that sends one skips elsewhere.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("signal: Unix signals only")
}
