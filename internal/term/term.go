// Package term decides whether output is colored and provides the few
// styles `de` uses. Color is on only when the output is a terminal and
// neither CI nor NO_COLOR is set (https://no-color.org), and TERM is not
// "dumb"; logs in CI and files stay plain text.
package term

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// Style renders text with ANSI colors when enabled and leaves it alone when
// not. The zero value is plain.
type Style struct {
	Color bool
}

// For returns the style for writing to w in an environment read through
// getenv (os.Getenv in production; a map in tests).
func For(w io.Writer, getenv func(string) string) Style {
	if getenv("NO_COLOR") != "" || getenv("CI") != "" || getenv("TERM") == "dumb" {
		return Style{}
	}
	f, ok := w.(*os.File)
	return Style{Color: ok && term.IsTerminal(int(f.Fd()))}
}

func (s Style) wrap(code, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Bold renders text in bold.
func (s Style) Bold(text string) string { return s.wrap("1", text) }

// Dim renders text faint, for secondary detail such as commands to copy.
func (s Style) Dim(text string) string { return s.wrap("2", text) }

// Green renders text green: passed.
func (s Style) Green(text string) string { return s.wrap("32", text) }

// Red renders text red: failed.
func (s Style) Red(text string) string { return s.wrap("31", text) }

// Yellow renders text yellow: not implemented yet, skipped, warnings.
func (s Style) Yellow(text string) string { return s.wrap("33", text) }

// Cyan renders text cyan: headings and names.
func (s Style) Cyan(text string) string { return s.wrap("36", text) }

// Width returns the width, in columns, of the terminal w writes to, or
// $COLUMNS, or 0 when neither says: a line drawn and redrawn in place must
// fit it, or each redraw wraps and leaves a copy behind.
func Width(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
