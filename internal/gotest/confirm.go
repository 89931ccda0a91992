package gotest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/verdict"
)

// confirm sets, in a run with Options.Verdicts, each passed test's
// Confirmed (or Unconfirmed, saying why not) from the records the run's
// test binaries sent on the verdict channel and what h saw of their
// output. bad holds the channel's datagrams that were not records.
//
// A test is confirmed when its binary's run is whole (runProblem), the
// suite's report lists it once as passed, and its output holds one start
// and one result for it. Anything else the output holds is the learner's
// to print, and never a verdict.
func confirm(res *Result, h *handler, records []verdict.Record, bad []error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range res.Packages {
		why, cut := runProblem(p, h, records, bad)
		reported := map[string][]string{}
		for _, r := range records {
			if r.Package == p.ImportPath && r.Kind == verdict.Test {
				reported[r.Test] = append(reported[r.Test], r.Status)
			}
		}
		for i := range p.Tests {
			t := &p.Tests[i]
			t.Confirmed, t.Unconfirmed, t.cut, t.Unsupported = false, "", false, false
			if t.Status == Skip {
				v := reported[t.Name]
				t.Unsupported = why == "" && len(v) == 1 && v[0] == verdict.Unsupported &&
					h.starts[p.ImportPath][t.Name] == 1 && h.ends[p.ImportPath][t.Name] == 1
			}
			if t.Status != Pass {
				continue
			}
			switch v := reported[t.Name]; {
			case why != "":
				t.Unconfirmed, t.cut = why, cut
			case h.starts[p.ImportPath][t.Name] != 1 || h.ends[p.ImportPath][t.Name] != 1:
				t.Unconfirmed = fmt.Sprintf("its output holds %d starts and %d results for it, not one of each: "+
					"lines that look like go test's own, printed by the code under test", h.starts[p.ImportPath][t.Name], h.ends[p.ImportPath][t.Name])
			case len(v) == 0:
				t.Unconfirmed = "its suite's own report does not list it"
			case len(v) > 1:
				t.Unconfirmed = fmt.Sprintf("its suite's own report lists it %d times", len(v))
			case v[0] != verdict.Pass:
				t.Unconfirmed = fmt.Sprintf("its suite's own report says %s, though its output says it passed", v[0])
			default:
				t.Confirmed = true
			}
		}
	}
}

// runProblem says why the run of p's test binary cannot confirm any of its
// tests, or "" when it can: its records (one process's: a Begin, Test
// records, an End that counts them and carries the exit code the binary
// exited with) and its output (one final line, nothing printed after it)
// must agree. cut is set when the binary ended before its report did (a
// crash, an exit, a hang): its passed tests may be confirmed by a run
// that ends.
func runProblem(p *Package, h *handler, records []verdict.Record, bad []error) (why string, cut bool) {
	if len(bad) > 0 {
		return "the verdict channel carried data that is not a report: only code that writes to its file descriptor directly can send that", false
	}
	var pids []int
	for _, r := range records {
		if r.Package == p.ImportPath && !slices.Contains(pids, r.PID) {
			pids = append(pids, r.PID)
		}
	}
	switch len(pids) {
	case 0:
		return "its test binary sent no report of its own: it ended before its tests did (a crash, an exit or a hang), or did not start", true
	case 1:
	default:
		return fmt.Sprintf("%d processes reported for its suite, where one test binary runs it", len(pids)), false
	}
	var run []verdict.Record
	kinds := map[verdict.Kind]int{}
	for _, r := range records {
		if r.Package == p.ImportPath && r.PID == pids[0] {
			run = append(run, r)
			kinds[r.Kind]++
		}
	}
	end := run[len(run)-1]
	switch {
	case run[0].Kind != verdict.Begin || kinds[verdict.Begin] != 1:
		return "its suite's report does not begin as the suite begins it", false
	case kinds[verdict.End] == 0:
		return "its test binary ended before its suite's report did: a crash, an exit or a hang after its last test", true
	case end.Kind != verdict.End || kinds[verdict.End] != 1:
		return "its suite's report goes on after its end", false
	case end.Tests != kinds[verdict.Test]:
		return fmt.Sprintf("its suite's report counts %d tests and lists %d", end.Tests, kinds[verdict.Test]), false
	case end.Code != 0 && end.Code != 1, (end.Code == 0) != p.passed:
		return fmt.Sprintf("its test binary did not exit as its suite's report says (exit code %d)", end.Code), false
	case h.finals[p.ImportPath] != 1:
		return fmt.Sprintf("its output holds %d final lines (PASS or FAIL), not one", h.finals[p.ImportPath]), false
	case h.afterFinal[p.ImportPath] != "":
		return fmt.Sprintf("its test binary printed after its final line (%q): output of code still running after the tests", cut80(h.afterFinal[p.ImportPath])), false
	}
	return "", false
}

// cut80 shortens s to at most 80 bytes, for a message.
func cut80(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:77], "") + "…"
}
