package catalog

import (
	"regexp"
	"strings"
)

// Card is a stage card split into what `de start` prints and the hints
// that `de hint` reveals one at a time.
type Card struct {
	Title string // the first heading, e.g. "Stage 1 of 8 — Event-time tumbling windows"
	Body  string // the card without its "## Hints" section
	Hints []Hint
}

// Hint is one "### Hint k: title" subsection of a card's "## Hints" section.
type Hint struct {
	Title string
	Text  string
}

var hintHeading = regexp.MustCompile(`^### Hint \d+:?\s*(.*)$`)

// ParseCard splits a card's markdown. The "## Hints" section runs to the
// next "## " heading; each "### Hint k: title" in it starts a hint.
func ParseCard(md string) Card {
	var c Card
	var body []string
	inHints := false
	for _, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		switch {
		case c.Title == "" && strings.HasPrefix(line, "# "):
			c.Title = strings.TrimSpace(strings.TrimPrefix(line, "# "))
		case strings.HasPrefix(line, "## "):
			inHints = strings.TrimSpace(strings.TrimPrefix(line, "## ")) == "Hints"
			if inHints {
				continue
			}
		}
		if !inHints {
			body = append(body, line)
			continue
		}
		if m := hintHeading.FindStringSubmatch(line); m != nil {
			c.Hints = append(c.Hints, Hint{Title: strings.TrimSpace(m[1])})
			continue
		}
		if n := len(c.Hints); n > 0 {
			c.Hints[n-1].Text += line + "\n"
		}
	}
	for i := range c.Hints {
		c.Hints[i].Text = strings.TrimSpace(c.Hints[i].Text)
	}
	c.Body = strings.TrimSpace(strings.Join(body, "\n")) + "\n"
	return c
}
