package cli

import (
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/term"
)

// noEnv is an environment with nothing set: no $COLUMNS.
func noEnv(string) string { return "" }

// lastDraw is what a terminal shows after w's writes: the text after the
// last carriage return and erase-line.
func lastDraw(w *strings.Builder) string {
	s := w.String()
	return s[strings.LastIndex(s, "\r\x1b[K")+len("\r\x1b[K"):]
}

func TestLiveLineShowsEachRunningPartWithItsCount(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{Color: true}, noEnv)
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
	l := newLiveLine(&w, term.Style{Color: true}, noEnv)
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
	l := newLiveLine(&w, term.Style{}, noEnv)
	p := l.part("08")
	p.test("", gotest.Test{})
	p.end()
	l.done()
	if w.Len() != 0 {
		t.Errorf("off a terminal the live line wrote %q, want nothing", w.String())
	}
}

// TestLiveLineFitsTheTerminal: every draw of the line fits the terminal's
// width, so that a redraw never wraps (each wrap leaves a copy of the line
// behind: a flood in a narrow pane).
func TestLiveLineFitsTheTerminal(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{Color: true}, func(k string) string { return map[string]string{"COLUMNS": "60"}[k] })
	cur := l.part("go test -tags lab on 05 (the current stage)")
	earlier := l.part("go test -tags lab on 01–04 (the earlier stages, for regressions)")
	for range 30 {
		cur.test("", gotest.Test{})
		earlier.test("", gotest.Test{})
	}
	l.notice("de: TestX (05-2pc) has run 10s; at 20s it is stopped as hung")
	for i, line := range strings.Split(w.String(), "\r\x1b[K") {
		if strings.HasSuffix(line, "\n") {
			continue // a notice: a line of its own, which may wrap
		}
		if n := len([]rune(line)); n >= 60 {
			t.Errorf("draw %d is %d columns wide, in a 60-column terminal: %q", i, n, line)
		}
	}
	if got := lastDraw(&w); !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "running go test -tags lab on 05") {
		t.Errorf("the line shows %q, want its start, cut with …", got)
	}
}

// TestLiveLineNoticesStayOffATerminal: a notice (a hung test) is printed
// even where the live line is not, as in de test | cat.
func TestLiveLineNoticesStayOffATerminal(t *testing.T) {
	var w strings.Builder
	l := newLiveLine(&w, term.Style{}, noEnv)
	p := l.part("05")
	p.test("", gotest.Test{})
	l.notice("de: TestX (05-2pc) ran longer than 20s and was stopped as hung; the stage's other tests run without it")
	l.done()
	if got, want := w.String(), "de: TestX (05-2pc) ran longer than 20s and was stopped as hung; the stage's other tests run without it\n"; got != want {
		t.Errorf("off a terminal the live line wrote %q, want the notice alone, %q", got, want)
	}
}
