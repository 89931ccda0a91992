package cli

import (
	"os"
	"regexp"
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
