package cli

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

var updateReference = flag.Bool("update", false, "rewrite docs/COMMANDS.md from de's help")

// TestCommandsReferenceIsCurrent certifies that docs/COMMANDS.md is
// exactly what de's commands say of themselves (Reference): a flag added,
// renamed or reworded shows there, in review, or this fails.
func TestCommandsReferenceIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "COMMANDS.md")
	got := Reference()
	if *updateReference {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: go test ./internal/cli -run CommandsReference -update writes it", err)
	}
	if string(want) != got {
		t.Errorf("docs/COMMANDS.md is not what de's help says: go test ./internal/cli -run CommandsReference -update rewrites it (then review the diff)")
	}
}

// docFiles are the documents a learner, an instructor or a maintainer
// reads, relative to the course root.
func docFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"*.md", "docs/*.md", "stages/*/README.md", "drills/*/README.md", "drills/*/EXPLAIN.md", "flink/*.md", "mutants/*.md", ".github/workflows/*.yml"} {
		m, err := filepath.Glob(filepath.Join("..", "..", pattern))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	// COMMANDS.md is de's own help, checked against it by
	// TestCommandsReferenceIsCurrent; its prose mentions de mid-sentence.
	out = slices.DeleteFunc(out, func(p string) bool { return filepath.Base(p) == "COMMANDS.md" })
	if len(out) < 10 {
		t.Fatalf("found only %d documents: is the test running from internal/cli?", len(out))
	}
	return out
}

// deMention finds `de …` in a code span, and a line of a code block or a
// workflow's run step that runs de.
var (
	deSpan = regexp.MustCompile("`(de [^`]*)`")
	deLine = regexp.MustCompile(`^\s*(?:[$>]\s+|run:\s+|-\s+run:\s+)?(?:\./)?(de [^#]*)`)
)

// TestDocsNameOnlyCommandsAndFlagsThatExist certifies that every `de …`
// the documents show (README, CONTRIBUTING, docs/, the cards, the drills,
// the Flink module's pages, the Classroom workflow) names a command,
// subcommand and flags that de has: a renamed flag or a command that was
// never built fails here, not in a learner's terminal.
func TestDocsNameOnlyCommandsAndFlagsThatExist(t *testing.T) {
	app := newApp(IO{})
	checked := 0
	for _, path := range docFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		inCode := strings.HasSuffix(path, ".yml")
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inCode = !inCode
				continue
			}
			var mentions []string
			for _, m := range deSpan.FindAllStringSubmatch(line, -1) {
				mentions = append(mentions, m[1])
			}
			if inCode {
				if m := deLine.FindStringSubmatch(line); m != nil {
					mentions = append(mentions, m[1])
				}
			}
			for _, m := range mentions {
				for _, problem := range checkMention(app, m) {
					t.Errorf("%s:%d: `%s`: %s", strings.TrimPrefix(path, "../../"), n, m, problem)
				}
				checked++
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	t.Logf("checked %d mentions of de", checked)
	if checked < 50 {
		t.Errorf("checked only %d mentions of de: the patterns no longer find them", checked)
	}
}

// checkMention checks one `de …` against app: its words name a command
// (and subcommands), and every flag is one that command has. Arguments
// are not checked; alternatives written a|b (or a\|b in a table) are
// each checked.
func checkMention(app *ucli.App, mention string) []string {
	for _, sep := range []string{" && ", " | ", " ; ", " 2>", " >", "  "} {
		if i := strings.Index(mention, sep); i >= 0 {
			mention = mention[:i]
		}
	}
	words := strings.Fields(strings.TrimPrefix(mention, "de "))
	if len(words) == 0 {
		return nil
	}
	if !commandWord.MatchString(strings.ReplaceAll(words[0], `\|`, "|")) && !strings.HasPrefix(words[0], "-") {
		return nil // not de: a variable named de, say
	}
	var problems []string
	if isPlaceholder(words[0]) || words[0] == "help" || strings.HasPrefix(words[0], "-") {
		if strings.HasPrefix(words[0], "-") && !slices.Contains([]string{"--help", "-h", "--version", "-v"}, words[0]) {
			problems = append(problems, "de has no global flag "+words[0])
		}
		return problems
	}
	var paths [][]string
	for _, w := range alternatives(words[0]) {
		paths = append(paths, []string{w})
	}
	rest := words[1:]
	// Subcommands: a word that names one of the command's.
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		c := lookup(app, paths[0])
		if c == nil || len(c.Subcommands) == 0 {
			break
		}
		var next [][]string
		for _, p := range paths {
			for _, w := range alternatives(rest[0]) {
				next = append(next, append(slices.Clone(p), w))
			}
		}
		if isPlaceholder(rest[0]) {
			break
		}
		paths, rest = next, rest[1:]
	}
	for _, p := range paths {
		c := lookup(app, p)
		if c == nil {
			problems = append(problems, "de has no command "+strings.Join(p, " "))
			continue
		}
		for _, w := range rest {
			if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
				continue
			}
			name := strings.TrimLeft(w, "-")
			name, _, _ = strings.Cut(name, "=")
			name = strings.TrimRight(name, ",.;:)")
			if name == "" || isPlaceholder(name) {
				continue
			}
			if !hasFlag(c, name) {
				problems = append(problems, "de "+strings.Join(p, " ")+" has no flag --"+name)
			}
		}
	}
	return problems
}

// commandWord is what a command's name (or a|b of them) looks like.
var commandWord = regexp.MustCompile(`^[a-z][a-z-]*(\|[a-z][a-z-]*)*$`)

// alternatives splits "a|b" and "a\|b" into its choices.
func alternatives(w string) []string {
	return strings.Split(strings.ReplaceAll(w, `\|`, "|"), "|")
}

// isPlaceholder reports whether w stands for a value the reader fills in:
// NAME, [FLK-BYO/NN], <command>, ….
func isPlaceholder(w string) bool {
	return strings.ContainsAny(w, "[]<>…") || (strings.ToUpper(w) == w && strings.ToLower(w) != w) || strings.HasPrefix(w, "FLK-BYO/") || strings.HasPrefix(w, "$")
}

func hasFlag(c *ucli.Command, name string) bool {
	if name == "help" || name == "h" {
		return true
	}
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// TestCheckMention certifies the docs check itself: it accepts what de
// has and names what it has not.
func TestCheckMention(t *testing.T) {
	app := newApp(IO{})
	tests := []struct {
		mention string
		want    string // a problem it must name; "" for none
	}{
		{"de test --solution", ""},
		{"de test --race=false --stage 03", ""},
		{"de status", ""},
		{"de drill list\\|start\\|test", ""},
		{"de drill start NAME", ""},
		{"de demo [FLK-BYO/NN] --step", ""},
		{"de completion bash|zsh|fish", ""},
		{"de test --nope", "de test has no flag --nope"},
		{"de drill frob", "de has no command drill frob"},
		{"de frob --x", "de has no command frob"},
		{"de --colour", "de has no global flag --colour"},
	}
	for _, tt := range tests {
		got := checkMention(app, tt.mention)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("checkMention(%q) = %q, want no problem", tt.mention, got)
		case tt.want != "" && !slices.Contains(got, tt.want):
			t.Errorf("checkMention(%q) = %q, want %q among them", tt.mention, got, tt.want)
		}
	}
}
