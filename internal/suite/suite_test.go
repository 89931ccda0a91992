package suite

import (
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
