// Package render turns the course's markdown (stage cards, hints) into
// what a learner reads: formatted by glamour on a terminal that shows
// color, the markdown itself everywhere else (CI logs, NO_COLOR, pipes,
// files), where raw markdown is the most readable plain text there is.
package render

import (
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// Options says how to render.
type Options struct {
	// Color is true on a terminal that shows color (term.Style.Color):
	// only then is markdown formatted.
	Color bool
	// Width is the column to wrap at; 0 means DefaultWidth.
	Width int
	// Style is a glamour style: a standard name ("dark", "light",
	// "dracula", "notty", …) or a JSON style file; "" means "dark". The de
	// command passes $GLAMOUR_STYLE, glamour's own variable.
	Style string
}

// DefaultWidth is the wrap column when the terminal's width is unknown.
const DefaultWidth = 80

// Markdown renders md as o says. Plain output is md exactly, so a plain
// run reads as the files do. A style that cannot be loaded, or markdown
// glamour fails on, falls back to md and reports the error alongside, so
// a learner always gets the text.
func Markdown(md string, o Options) (string, error) {
	if !o.Color {
		return md, nil
	}
	width := o.Width
	if width <= 0 {
		width = DefaultWidth
	}
	opts := []glamour.TermRendererOption{
		glamour.WithWordWrap(width),
		glamour.WithColorProfile(termenv.ANSI256),
	}
	switch style := o.Style; {
	case style == "":
		opts = append(opts, glamour.WithStandardStyle("dark"))
	case strings.HasSuffix(style, ".json"):
		opts = append(opts, glamour.WithStylePath(style))
	default:
		opts = append(opts, glamour.WithStandardStyle(style))
	}
	r, err := glamour.NewTermRenderer(opts...)
	if err != nil {
		return md, err
	}
	out, err := r.Render(md)
	if err != nil {
		return md, err
	}
	return out, nil
}

// Width returns the wrap column for output to w: the terminal's width less
// a margin, at most 100 columns (longer lines are hard to read) and at
// least 40; DefaultWidth when w is not a terminal.
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return DefaultWidth
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return DefaultWidth
	}
	return min(100, max(40, cols-2))
}
