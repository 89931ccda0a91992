package cli

import (
	"strings"

	"github.com/flk-byo/course/internal/render"
)

// markdown renders md (a card, a hint) for stdout: formatted on a terminal
// with color, the markdown itself under CI, NO_COLOR or a pipe. A glamour
// failure (a bad $GLAMOUR_STYLE, say) falls back to the markdown: the
// learner still gets the text.
func (e *env) markdown(md string) string {
	out, err := render.Markdown(md, render.Options{
		Color: e.style.Color,
		Width: render.Width(e.Stdout),
		Style: e.Getenv("GLAMOUR_STYLE"),
	})
	if err != nil {
		return md
	}
	if e.style.Color {
		return strings.Trim(out, "\n")
	}
	return out
}
