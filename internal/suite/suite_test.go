package suite

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestCatch checks that Catch reports a panic, returns "" without one, and
// passes a skeleton's TODO panic on for Recover.
func TestCatch(t *testing.T) {
	if got := Catch(func() {}); got != "" {
		t.Errorf("Catch(no panic) = %q, want \"\"", got)
	}
	var s []int
	if got := Catch(func() { _ = s[3] }); !strings.HasPrefix(got, "runtime error: index out of range [3] with length 0\n") {
		t.Errorf("Catch(an index panic) = %q, want the panic value first", got)
	}
	defer func() {
		if r := recover(); r != "TODO: later" {
			t.Errorf("Catch(a TODO panic) let %v through; want the TODO panic passed on", r)
		}
	}()
	Catch(func() { panic("TODO: later") })
	t.Error("Catch(a TODO panic) returned")
}

// TestCodeFrames checks which frames of a stack are the code under test.
func TestCodeFrames(t *testing.T) {
	stack := []byte(`goroutine 7 [running]:
runtime/debug.Stack()
	/go/src/runtime/debug/stack.go:26 +0x5e
github.com/flk-byo/course/internal/suite.Catch.func1()
	/course/internal/suite/suite.go:80 +0x9a
panic({0x5, 0x6})
	/go/src/runtime/panic.go:783 +0x132
github.com/flk-byo/course/lab.decode(...)
	/course/lab/checkpoint.go:40
github.com/flk-byo/course/lab.RestoreProcessor({0x1, 0x2, 0x3})
	/course/lab/checkpoint.go:12 +0x25
github.com/flk-byo/course/stages/04-checkpoint.tryRestore.func1()
	/course/stages/04-checkpoint/helpers_test.go:70 +0x25
github.com/flk-byo/course/internal/suite.Catch(0xc0)
	/course/internal/suite/suite.go:84 +0x4b
testing.tRunner(0xc000, 0x6a)
	/go/src/testing/testing.go:1934 +0xea
created by testing.(*T).Run in goroutine 1
	/go/src/testing/testing.go:1997 +0x465
`)
	lab := "    github.com/flk-byo/course/lab.decode(...)\n        /course/lab/checkpoint.go:40\n" +
		"    github.com/flk-byo/course/lab.RestoreProcessor({0x1, 0x2, 0x3})\n        /course/lab/checkpoint.go:12 +0x25"
	if got := codeFrames(stack, true); got != lab {
		t.Errorf("codeFrames(stack, under test) =\n%s\nwant\n%s", got, lab)
	}
	want := lab + "\n    github.com/flk-byo/course/stages/04-checkpoint.tryRestore.func1()\n        /course/stages/04-checkpoint/helpers_test.go:70 +0x25"
	if got := codeFrames(stack, false); got != want {
		t.Errorf("codeFrames(stack, all) =\n%s\nwant\n%s", got, want)
	}
}

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestMustPanicWantsAMessageOfTheCodesOwn(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string // "" for no failure
	}{
		{"own message", func() { panic("n must be ≥ 1") }, ""},
		{"no panic", func() {}, "returned normally"},
		{"runtime error", func() { var m map[string]int; m["x"]++; _ = 1 / len(m) }, "runtime error"},
	} {
		r := &recorder{TB: t}
		MustPanic(r, "F(0)", "n is 0", tc.f)
		if tc.want == "" {
			if len(r.errs) != 0 {
				t.Errorf("%s: unexpected failure %q", tc.name, r.errs)
			}
			continue
		}
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], tc.want) {
			t.Errorf("%s: want one failure containing %q, got %q", tc.name, tc.want, r.errs)
		}
	}
}

func TestErrorCapShowsTheFirstAndCountsTheRest(t *testing.T) {
	r := &recorder{TB: t}
	c := &ErrorCap{T: r, Max: 2}
	for i := range 5 {
		c.Errorf("failure %d", i)
	}
	c.Done()
	want := []string{"failure 0", "failure 1", "… and 3 more failures like these"}
	if !slices.Equal(r.errs, want) {
		t.Errorf("got %q, want %q", r.errs, want)
	}
}

// TestChildCommandIsRunChildsCommand checks that ChildCommand runs this
// test again in the child role with the extra environment.
func TestChildCommandIsRunChildsCommand(t *testing.T) {
	const role, env = "child-command", "FLK_SUITE_CHILD_SAYS"
	if ChildRole() == role {
		os.Stdout.WriteString("child says " + os.Getenv(env) + "\n")
		return
	}
	out, err := ChildCommand(t.Name(), role, env+"=hello").Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := "child says hello\n"; len(out) < len(want) || string(out[:len(want)]) != want {
		t.Errorf("child printed %q, want it to start with %q", out, want)
	}
}
