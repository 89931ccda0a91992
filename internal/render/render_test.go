package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

const card = "# Stage 1 of 8 — Windows\n\nCount **events** per key in `tumbling` windows.\n\n## Your task\n\n- one\n- two\n"

func TestMarkdown(t *testing.T) {
	for _, c := range []struct {
		name      string
		opts      Options
		plain     bool     // the output is the markdown exactly
		styled    bool     // the output has ANSI escapes and no ** markup
		contains  []string // substrings of the output, escapes removed
		wantError bool
	}{
		{name: "plain off a terminal", opts: Options{}, plain: true},
		{name: "plain ignores style", opts: Options{Style: "no-such-style"}, plain: true},
		{name: "terminal, default style", opts: Options{Color: true}, styled: true, contains: []string{"Your task", "Count events per key in  tumbling  windows.", "• one"}},
		{name: "terminal, light style", opts: Options{Color: true, Style: "light", Width: 40}, styled: true, contains: []string{"Stage 1 of 8 — Windows"}},
		{name: "terminal, notty style", opts: Options{Color: true, Style: "notty"}, contains: []string{"Your task"}},
		{name: "unknown style falls back to the markdown", opts: Options{Color: true, Style: "no-such-style"}, plain: true, wantError: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Markdown(card, c.opts)
			if c.wantError {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			if c.plain {
				assert.Equal(t, card, out)
				return
			}
			if c.styled {
				assert.Contains(t, out, "\x1b[", "a terminal gets colors")
				assert.NotContains(t, out, "**", "formatted markdown shows no emphasis markup")
			}
			text := ansi.ReplaceAllString(out, "")
			for _, s := range c.contains {
				assert.Contains(t, text, s)
			}
		})
	}
}

func TestWidthOffTerminal(t *testing.T) {
	assert.Equal(t, DefaultWidth, Width(&bytes.Buffer{}))
	assert.False(t, strings.Contains(card, "\x1b"))
}
