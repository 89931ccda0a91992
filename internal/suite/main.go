package suite

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flk-byo/course/internal/verdict"
)

// channel is this test binary's end of de's verdict channel
// (internal/verdict), nil under a plain go test. It is the process's, as
// the file descriptor it wraps is, so it is package state; it is opened
// when the package initializes, before any test can start a process that
// would inherit it.
var channel = verdict.Open()

// tracked holds the top-level tests that Recover saw end, in that order:
// the tests whose verdicts Main reports, and those that SkipUnsupported
// skipped.
var tracked struct {
	sync.Mutex
	tests       []testing.TB
	unsupported []testing.TB
}

// SkipUnsupported skips t because this system cannot run it (why says
// what it needs, "needs Linux (…); CI runs it"), and tells de so: de grade
// leaves such a test out of the stage's points on this system, instead of
// counting it as lost, and CI, which can run it, grades it.
func SkipUnsupported(t testing.TB, why string) {
	t.Helper()
	tracked.Lock()
	tracked.unsupported = append(tracked.unsupported, t)
	tracked.Unlock()
	t.Skip(why)
}

// track records t, if it is a top-level test, for Main to report.
func track(t testing.TB) {
	if strings.Contains(t.Name(), "/") {
		return // a subtest: its verdict is part of its parent's
	}
	tracked.Lock()
	defer tracked.Unlock()
	if !slices.Contains(tracked.tests, t) {
		tracked.tests = append(tracked.tests, t)
	}
}

// Main runs a suite's tests and exits with their exit code. When de gave
// the test binary a verdict channel, it also sends, once every test and
// every cleanup has finished, the verdict of each top-level test that
// deferred Recover, as the testing package holds it: what de credits,
// whatever the binary printed. Call it from every suite's TestMain, with
// m.Run or a function that wraps it:
//
//	func TestMain(m *testing.M) { suite.Main(m.Run) }
func Main(run func() int) {
	pkg := callerPackage()
	// A failed send is the channel's reader gone: de then credits nothing
	// of this run, which is the right outcome, so the tests run anyway.
	_ = channel.Send(verdict.Record{Kind: verdict.Begin, Package: pkg})
	code := run()
	tracked.Lock()
	tests, unsupported := slices.Clone(tracked.tests), slices.Clone(tracked.unsupported)
	tracked.Unlock()
	for _, t := range tests {
		status := verdict.Pass
		switch {
		case t.Failed():
			status = verdict.Fail
		case t.Skipped() && slices.Contains(unsupported, t):
			status = verdict.Unsupported
		case t.Skipped():
			status = verdict.Skip
		}
		_ = channel.Send(verdict.Record{Kind: verdict.Test, Package: pkg, Test: t.Name(), Status: status})
	}
	_ = channel.Send(verdict.Record{Kind: verdict.End, Package: pkg, Code: code, Tests: len(tests)})
	os.Exit(code)
}

// callerPackage returns the import path of the package whose TestMain
// called Main: "github.com/flk-byo/course/stages/01-windows".
func callerPackage() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	name := runtime.FuncForPC(pc).Name() // ".../stages/01-windows.TestMain" or ".TestMain.func1"
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return strings.TrimSuffix(name[:slash+1+dot], "_test")
}
