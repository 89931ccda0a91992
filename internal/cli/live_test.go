package cli

import (
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/term"
)

// lastDraw is what a terminal shows after w's writes: the text after the
// last carriage return and erase-line.
func lastDraw(w *strings.Builder) string {
	s := w.String()
	return s[strings.LastIndex(s, "\r\x1b[K")+len("\r\x1b[K"):]
}

func TestLiveLineShowsEachRunningPartWithItsCount(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{Color: true})
	cur := l.part("08 (the current stage)")
	earlier := l.part("01–07 (the earlier stages)")
	cur.test("", gotest.Test{})
	earlier.test("", gotest.Test{})
	earlier.test("", gotest.Test{})
	for _, c := range []struct {
		step func()
		want string
	}{
		{func() {}, "running 08 (the current stage): 1 test done; 01–07 (the earlier stages): 2 tests done …"},
		{cur.end, "running 01–07 (the earlier stages): 2 tests done …"},
		{func() { earlier.printf("TestX crashed") }, "running TestX crashed: 2 tests done …"},
		{earlier.end, ""},
	} {
		c.step()
		if got := lastDraw(&w); got != c.want {
			t.Errorf("the line shows %q, want %q", got, c.want)
		}
	}
}

func TestLiveLineStaysHiddenWhileAReportIsPrinted(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{Color: true})
	p := l.part("01–07")
	l.hide()
	before := w.Len()
	p.test("", gotest.Test{})
	if w.Len() != before {
		t.Fatalf("a hidden line drew %q, want nothing until show", w.String()[before:])
	}
	l.show()
	if got, want := lastDraw(&w), "running 01–07: 1 test done …"; got != want {
		t.Errorf("after show the line shows %q, want %q", got, want)
	}
}

func TestLiveLinePrintsNothingOffATerminal(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{})
	p := l.part("08")
	p.test("", gotest.Test{})
	p.end()
	l.done()
	if w.Len() != 0 {
		t.Errorf("off a terminal the live line wrote %q, want nothing", w.String())
	}
}
