package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAwait waits until FILE matches REGEXP, failing after TIMEOUT:
// "await FILE REGEXP TIMEOUT", for a script that reads the output of a
// background de watch as it is written. It polls every 10 ms; the timeout
// is a bound, not a sleep.
func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: await FILE REGEXP TIMEOUT")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	limit, err := time.ParseDuration(args[2])
	ts.Check(err)
	file := ts.MkAbs(args[0])
	start := time.Now()
	for {
		data, _ := os.ReadFile(file)
		if re.Match(data) {
			ts.Logf("await: %q after %v", args[1], time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > limit {
			ts.Fatalf("await: %s did not match %q within %v; it holds:\n%s", args[0], args[1], limit, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processesMatching returns the command lines (arguments joined by
// spaces) of the running processes whose command line contains every one
// of subs, read from /proc (Linux).
func processesMatching(ts *testscript.TestScript, subs []string) []string {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	ts.Check(err)
	var out []string
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || len(data) == 0 {
			continue // gone, or a kernel thread
		}
		cmdline := strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ")
		if !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(cmdline, sub) }) {
			out = append(out, filepath.Base(d)+": "+cmdline)
		}
	}
	return out
}

// cmdAwaitProc waits until a process whose command line contains every
// SUBSTR runs, failing after TIMEOUT: "awaitproc SUBSTR... TIMEOUT" (Linux:
// it reads /proc), for a script that signals de while its test binary
// runs. Scripts run in parallel, so the substrings must pick out this
// script's process: its own -test.timeout, say.
func cmdAwaitProc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: awaitproc SUBSTR... TIMEOUT")
	}
	subs := args[:len(args)-1]
	limit, err := time.ParseDuration(args[len(args)-1])
	ts.Check(err)
	start := time.Now()
	for len(processesMatching(ts, subs)) == 0 {
		if time.Since(start) > limit {
			ts.Fatalf("awaitproc: no process with all of %q in its command line within %v", subs, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cmdNoProc fails if a process whose command line contains every SUBSTR
// is still running after TIMEOUT: "noproc SUBSTR... TIMEOUT" (Linux). A
// killed process takes a moment to be reaped; the timeout bounds that.
func cmdNoProc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: noproc SUBSTR... TIMEOUT")
	}
	subs := args[:len(args)-1]
	limit, err := time.ParseDuration(args[len(args)-1])
	ts.Check(err)
	start := time.Now()
	for {
		left := processesMatching(ts, subs)
		if len(left) == 0 {
			return
		}
		if time.Since(start) > limit {
			ts.Fatalf("noproc: still running after %v:\n%s", limit, strings.Join(left, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
