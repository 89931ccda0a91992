//go:build unix

package cli

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSignal sends SIGNAL (HUP, TERM, INT) to every process whose command
// line contains every SUBSTR, failing when there is none: "signal SIGNAL
// SUBSTR..." (Linux), for a signal testscript's kill does not send, as a
// closing terminal sends SIGHUP.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: signal SIGNAL SUBSTR...")
	}
	sig, ok := map[string]syscall.Signal{"HUP": syscall.SIGHUP, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[args[0]]
	if !ok {
		ts.Fatalf("signal: unknown signal %s", args[0])
	}
	procs := processesMatching(ts, args[1:])
	if len(procs) == 0 {
		ts.Fatalf("signal: no process with all of %q in its command line", args[1:])
	}
	for _, p := range procs {
		pid, _, _ := strings.Cut(p, ":")
		n, err := strconv.Atoi(pid)
		ts.Check(err)
		ts.Check(syscall.Kill(n, sig))
	}
}
