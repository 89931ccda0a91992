package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/flk-byo/course/internal/term"
)

// TestMarkdownOnlyOnATerminal checks that cards and hints are formatted
// only where color is on, and that a bad $GLAMOUR_STYLE still shows the text.
func TestMarkdownOnlyOnATerminal(t *testing.T) {
	const md = "## Your task\n\nCount **events** per key.\n"
	for _, c := range []struct {
		name   string
		color  bool
		style  string
		styled bool
	}{
		{"plain: the markdown as it is", false, "", false},
		{"terminal: formatted", true, "", true},
		{"terminal, light style", true, "light", true},
		{"terminal, unknown style: the markdown", true, "no-such-style", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &env{IO: IO{Stdout: &bytes.Buffer{}, Getenv: func(k string) string {
				if k == "GLAMOUR_STYLE" {
					return c.style
				}
				return ""
			}}, style: term.Style{Color: c.color}}
			out := e.markdown(md)
			if !c.styled {
				assert.Equal(t, md, out)
				return
			}
			assert.Contains(t, out, "\x1b[")
			assert.NotContains(t, out, "**")
			assert.False(t, strings.HasPrefix(out, "\n") || strings.HasSuffix(out, "\n"), "no blank lines around the rendered text")
		})
	}
}
