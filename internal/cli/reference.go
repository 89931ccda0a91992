package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// Reference is docs/COMMANDS.md: every command and subcommand of de with
// its whole `de help` text, generated from the commands themselves so
// that the page cannot drift from them (TestCommandsReferenceIsCurrent
// fails when it does; go test ./internal/cli -run CommandsReference
// -update rewrites it). README names the learner's loop and links here.
func Reference() string {
	var b strings.Builder
	b.WriteString("# de: every command\n\n")
	b.WriteString("<!-- Generated from de's own help by go test ./internal/cli -run CommandsReference -update; do not edit. -->\n\n")
	b.WriteString("What `de help <command>` prints, for every command and subcommand of `de`. " +
		"[README](../README.md) has the learner's loop; this page has every flag.\n\n")
	app := newApp(IO{})
	var paths [][]string
	for _, c := range app.Commands {
		paths = append(paths, commandPaths(nil, c)...)
	}
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, p := range paths {
		c := lookup(app, p)
		fmt.Fprintf(&b, "| [`de %s`](#de-%s) | %s |\n", strings.Join(p, " "), strings.Join(p, "-"), strings.ReplaceAll(c.Usage, "|", `\|`))
	}
	for _, p := range paths {
		fmt.Fprintf(&b, "\n## de %s\n\n```text\n%s```\n", strings.Join(p, " "), helpOf(p))
	}
	return b.String()
}

// commandPaths lists c and its subcommands, each as the words that name it.
func commandPaths(parent []string, c *ucli.Command) [][]string {
	if c.Hidden {
		return nil
	}
	p := append(append([]string(nil), parent...), c.Name)
	out := [][]string{p}
	for _, sub := range c.Subcommands {
		out = append(out, commandPaths(p, sub)...)
	}
	return out
}

// lookup returns the command the words p name (names or aliases), or nil.
func lookup(app *ucli.App, p []string) *ucli.Command {
	cmds := app.Commands
	var c *ucli.Command
	for _, w := range p {
		c = nil
		for _, x := range cmds {
			if x.HasName(w) {
				c = x
				break
			}
		}
		if c == nil {
			return nil
		}
		cmds = c.Subcommands
	}
	return c
}

// helpOf is what `de <p> --help` prints.
func helpOf(p []string) string {
	var out bytes.Buffer
	args := append(append([]string{"de"}, p...), "--help")
	Main(context.Background(), args, IO{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Dir: "."})
	return out.String()
}
