// Package labjob is what the drivers of `de flink` share: each stage has a
// small program, internal/labjob/stageNN, compiled with the learner's lab/
// and run by de as a child process, so that the learner's
// code never runs inside de. A driver reads its stage's demo stream on
// standard input, runs it through the lab as the stage's graduation job
// runs it through Flink (flink/jobs.md), and prints what came out in the
// job's JSON lines (internal/jobio).
//
// The drivers build only with the tags lab and labjob: an editor set to
// -tags=lab (.vscode/settings.json) leaves them alone, since a lab that
// has not reached a stage lacks what that stage's driver calls. This
// package does not import lab/: it builds without it, and its test checks
// Run's protocol.
package labjob

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/kit"
)

// Input is what a driver's run gets: the stage's demo settings, the events
// read from standard input, and a fresh folder for whatever the lab writes
// to disk (stage 05's committed files, stage 12's Pebble stores).
type Input struct {
	Stream demostream.Stream
	Dir    string
}

// Windows is what the drivers of the stages whose job is windows alone
// (01, 03, 09, 10) call on the lab's processor: the calls of stage 01's
// card, which the later processors keep.
type Windows interface {
	Process(e kit.Event) []kit.Result
	Flush() []kit.Result
	Late() []kit.Event
}

// RunWindows processes every event through p, then flushes, as the
// graduation jobs of those stages run a bounded stream: the results in
// the order p emitted them, then the late events.
func RunWindows(p Windows, events []kit.Event) jobio.Output {
	var out jobio.Output
	for _, e := range events {
		out.Results = append(out.Results, p.Process(e)...)
	}
	out.Results = append(out.Results, p.Flush()...)
	out.Late = p.Late()
	return out
}

// NotWritten is the one line a driver prints when the lab panics with a
// skeleton's "TODO": de flink shows it as its error.
func NotWritten(stage int) string {
	return fmt.Sprintf("stage %02d's lab is not written yet: run de test", stage)
}

// Main is a driver's main function: it runs Run with os.Args, the process's
// streams, and exits with its status.
func Main(stage int, run func(Input) (jobio.Output, error)) {
	os.Exit(Run(stage, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, run))
}

// Run reads the events on stdin, calls run with them (args: the work
// folder, optional) and writes its output on stdout; it returns the exit
// status: 0, or 1 with one line on stderr when the events cannot be read,
// run fails or the lab panics. A panic whose message starts with "TODO" (a
// skeleton's body) is reported as NotWritten, not as a stack trace.
func Run(stage int, args []string, stdin io.Reader, stdout, stderr io.Writer, run func(Input) (jobio.Output, error)) (status int) {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, format+"\n", a...)
		return 1
	}
	if len(args) > 1 {
		return fail("usage: stage%02d [DIR] < events.jsonl", stage)
	}
	s, ok := demostream.Of(stage)
	if !ok {
		return fail("stage %02d has no demo stream", stage)
	}
	events, err := jobio.ReadEvents(stdin)
	if err != nil {
		return fail("standard input: %v", err)
	}
	s.Events = events
	in := Input{Stream: s}
	if len(args) == 1 {
		in.Dir = args[0]
	}
	out, err := call(run, in)
	switch {
	case errors.Is(err, errTODO):
		return fail("%s", NotWritten(stage))
	case err != nil:
		return fail("stage %02d's lab: %s", stage, oneLine(err.Error()))
	}
	w := bufio.NewWriter(stdout)
	if err := out.Write(w); err != nil {
		return fail("writing the output: %v", err)
	}
	if err := w.Flush(); err != nil {
		return fail("writing the output: %v", err)
	}
	return 0
}

// notWritten is a skeleton's TODO panic, caught.
// errTODO is call's error for a lab that panicked with a skeleton's TODO.
var errTODO = errors.New("the lab panicked with a skeleton's TODO")

// call calls run, turning a panic into an error: errTODO for a TODO.
func call(run func(Input) (jobio.Output, error), in Input) (out jobio.Output, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		msg := fmt.Sprint(r)
		if strings.HasPrefix(msg, "TODO") {
			err = errTODO
			return
		}
		err = fmt.Errorf("panic: %s (de test shows where)", msg)
	}()
	return run(in)
}

// oneLine puts s on one line: each run of white space, line breaks too,
// becomes one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Watermarks is the course's watermark for a processor that takes its
// watermark from upstream (stage 08's sessions): the largest timestamp
// seen minus Delay, raised after every event, as the jobs' per-event
// watermarks are.
type Watermarks struct {
	Delay int64
	max   int64
	seen  bool
}

// After returns the watermark after an event at ts, saturating at
// math.MinInt64.
func (w *Watermarks) After(ts int64) int64 {
	if !w.seen || ts > w.max {
		w.max, w.seen = ts, true
	}
	if w.max < math.MinInt64+w.Delay {
		return math.MinInt64
	}
	return w.max - w.Delay
}
