// Package suite holds the small helpers every stage suite shares: turning a
// learner's panic into one failed test (or, with Catch, into the failure a
// test explains), and seeded randomness whose seed is printed when a test
// fails.
//
// It is internal to the course: learners read it but never call it. Suites
// use only the stage API of COURSE.md plus kit and this package, so that a
// learner's correct solution with other internals passes.
package suite

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/kit"
)

// NotImplemented is the prefix of the failure that Recover reports for a
// skeleton's panic("TODO …"). `de test` looks for it to show the test as
// "not implemented yet" rather than as a crash.
const NotImplemented = "not implemented yet: "

// Recover turns a panic in the code under test into a failure of the test
// that reached it, so that every other test of the stage still runs and
// reports. Defer it first in every test and every subtest function:
//
//	func TestSomething(t *testing.T) {
//		defer suite.Recover(t)
//		...
//	}
//
// A panic whose message starts with "TODO" (the skeleton's bodies) is
// reported as NotImplemented followed by the message; any other panic is
// reported with the panic value and the stack frames outside the Go runtime
// and the testing package, which is where the learner's bug is.
//
// Recover also marks a top-level test as one whose verdict Main reports to
// de: a test that does not defer it is never credited by de grade.
func Recover(t testing.TB) {
	track(t)
	r := recover()
	if r == nil {
		return
	}
	t.Helper()
	msg := fmt.Sprint(r)
	if strings.HasPrefix(msg, "TODO") {
		t.Errorf("%s%s", NotImplemented, msg)
		return
	}
	t.Errorf("panic: %s\n%s", msg, codeFrames(debug.Stack(), false))
}

// Catch calls f and returns "" if it returns, or, if it panics, the panic
// value and where: the frames of the code under test between the panic and
// the suite's call (not the runtime, not a stage suite, not this package),
// at most four. Use it where a panic is the failure to explain, as in
// "RestoreProcessor must return an error, not panic". A "TODO" panic (a
// skeleton's body) is passed on, so that Recover reports the test as not
// implemented yet.
func Catch(f func()) (panicked string) {
	defer func() {
		if r := recover(); r != nil {
			if strings.HasPrefix(fmt.Sprint(r), "TODO") {
				panic(r)
			}
			panicked = fmt.Sprintf("%v\n%s", r, codeFrames(debug.Stack(), true))
		}
	}()
	f()
	return ""
}

// codeFrames keeps the function/file line pairs of a goroutine stack that
// are not in the runtime, the testing package or this package. With
// underTest, it keeps only the code under test: it stops at the first frame
// of a stage suite (the caller, and the test harness below it) and after
// four frames.
func codeFrames(stack []byte, underTest bool) string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(stack))
	sc.Scan() // "goroutine N [running]:"
	for sc.Scan() {
		fn := sc.Text()
		if !sc.Scan() {
			break
		}
		file := strings.TrimSpace(sc.Text())
		switch {
		case underTest && (strings.Contains(fn, "/stages/") || len(out) == 4):
			return strings.Join(out, "\n")
		case strings.HasPrefix(fn, "runtime/"), strings.HasPrefix(fn, "runtime."),
			strings.HasPrefix(fn, "testing."), strings.HasPrefix(fn, "panic("),
			strings.HasPrefix(fn, "created by "), strings.Contains(fn, "/internal/suite."):
			continue
		}
		out = append(out, "    "+fn+"\n        "+file)
	}
	return strings.Join(out, "\n")
}

// SeedEnv names the environment variable that overrides every suite's seed,
// to replay a failure: FLK_SEED=1234 go test -tags lab -run '^TestX$' ./stages/01-windows
const SeedEnv = "FLK_SEED"

// Seed returns the seed for t's randomness: $FLK_SEED when set, otherwise a
// fixed value derived from the test's name, so every run is the same run.
// When t fails, the seed and the command to replay it are logged.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := nameSeed(t.Name())
	if s := os.Getenv(SeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not an unsigned integer", SeedEnv, s)
		}
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed %d (replay with %s=%d)", seed, SeedEnv, seed)
		}
	})
	return seed
}

// Rand returns a deterministic random source seeded by Seed(t).
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	return kit.NewRand(Seed(t))
}

func nameSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// ChildEnv names the environment variable that tells a test it is running
// as a child process started by RunChild, and in which role.
const ChildEnv = "FLK_CHILD"

// ChildRole returns the role this process was started in by RunChild, or
// "" in the ordinary (parent) run.
func ChildRole() string { return os.Getenv(ChildEnv) }

// RunChild runs the test named test again in a fresh process of this test
// binary (built with -race if this one was), with FLK_CHILD=role and the
// extra environment entries env, and returns its combined output and its
// error, nil when the child's test passed. A fresh process is what proves
// that something does not depend on the process: a hash, a restore, a
// recovery after a crash.
func RunChild(test, role string, env ...string) ([]byte, error) {
	return ChildCommand(test, role, env...).CombinedOutput()
}

// ChildCommand returns the command RunChild runs, not started, for a caller
// that runs the child another way: under a tracer (see internal/crashfs),
// or with its own output handling.
func ChildCommand(test, role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	// Under -race a process sleeps a second at exit (GORACE's
	// atexit_sleep_ms defaults to 1000); the child has nothing to wait for.
	cmd.Env = append(os.Environ(), ChildEnv+"="+role,
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// WriteGob writes v, gob-encoded, to the file path: how a test hands a
// child process (RunChild) its input, and a child its results, to read
// back with ReadGob. Gob, not JSON: JSON replaces the invalid UTF-8 of an
// awkward key or ID (kit.AwkwardStrings).
func WriteGob(t testing.TB, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatalf("suite bug: gob-encode %s: %v", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatalf("suite bug: %v", err)
	}
}

// ReadGob decodes into v the file at path that WriteGob wrote.
func ReadGob(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}
