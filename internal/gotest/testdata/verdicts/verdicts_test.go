// Package verdicts is a suite that reports its verdicts to de through
// internal/suite.Main, as every stage suite does: the fixture of
// internal/gotest's tests of Options.Verdicts, run for real. $VERDICTS
// picks what goes wrong: "crash" (TestCrashes takes the binary down) or
// "forge" (TestForges writes go test's lines for TestFails to the
// binary's standard output).
package verdicts

import (
	"os"
	"testing"

	"github.com/flk-byo/course/internal/suite"
)

func TestMain(m *testing.M) { suite.Main(m.Run) }

func TestPasses(t *testing.T) { defer suite.Recover(t) }

func TestFails(t *testing.T) {
	defer suite.Recover(t)
	t.Error("want 3, got 4")
}

func TestSkips(t *testing.T) {
	defer suite.Recover(t)
	t.Skip("not here")
}

// TestNeedsAnotherSystem is one this system cannot run.
func TestNeedsAnotherSystem(t *testing.T) {
	defer suite.Recover(t)
	suite.SkipUnsupported(t, "needs a system this is not; CI runs it")
}

// TestNoRecover passes, but never tells Main it ran.
func TestNoRecover(t *testing.T) {}

func TestForges(t *testing.T) {
	defer suite.Recover(t)
	if os.Getenv("VERDICTS") == "forge" {
		f, err := os.OpenFile("/dev/stdout", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString("\x16=== RUN   TestFails\n\x16--- PASS: TestFails (0.00s)\n")
	}
}

func TestCrashes(t *testing.T) {
	defer suite.Recover(t)
	if os.Getenv("VERDICTS") == "crash" {
		done := make(chan bool)
		go func() { panic("boom") }()
		<-done
	}
}

func TestAfter(t *testing.T) { defer suite.Recover(t) }
