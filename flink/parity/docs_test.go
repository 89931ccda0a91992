package parity

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// These tests need no Java: they hold the docs to the tests, so that a
// card's parity box or a row of docs/PARITY.md never names a test that does
// not exist (renamed, or never written).

// testName matches a Go test's name in backquotes: `TestSomething`.
var testName = regexp.MustCompile("`(Test[A-Za-z0-9_]+)`")

// testsIn returns the names of the test functions declared in the _test.go
// files under dir, whatever their build tags.
func testsIn(t *testing.T, dirs ...string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
					names[fn.Name.Name] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// parityBox returns the "Flink parity" section of a stage card.
func parityBox(card string) string {
	_, after, ok := strings.Cut(card, "\n## Flink parity\n")
	if !ok {
		return ""
	}
	box, _, _ := strings.Cut(after, "\n## ")
	return box
}

// TestCardsCiteDifferentialTestsThatExist certifies that every test a
// stage card's "Flink parity" box names is a test of flink/parity or of the
// stage suites, and that the boxes of the stages the differential tests
// cover cite at least one of them.
func TestCardsCiteDifferentialTestsThatExist(t *testing.T) {
	parity := testsIn(t, ".")
	all := testsIn(t, ".", "../../stages")
	cards, err := filepath.Glob("../../stages/*/README.md")
	if err != nil || len(cards) == 0 {
		t.Fatalf("no stage cards found: %v", err)
	}
	covered := []string{"01-windows", "02-keyed-partitioning", "03-lateness", "06-rescaling", "07-idleness", "09-sliding", "10-seen-ttl", "11-broadcast", "04-checkpoint", "12-spilling-state", "08-sessions", "05-2pc"}
	for _, card := range cards {
		b, err := os.ReadFile(card)
		if err != nil {
			t.Fatal(err)
		}
		stage := filepath.Base(filepath.Dir(card))
		box := parityBox(string(b))
		cited := 0
		for _, m := range testName.FindAllStringSubmatch(box, -1) {
			switch {
			case parity[m[1]]:
				cited++
			case !all[m[1]]:
				t.Errorf("%s: its Flink parity box names %s, which is no test of flink/parity or of the stages", stage, m[1])
			}
		}
		if slices.Contains(covered, stage) && cited == 0 {
			t.Errorf("%s: its Flink parity box cites no differential test of flink/parity, though one checks it", stage)
		}
	}
}

// TestParityRowsCiteTestsThatExist certifies that every test docs/PARITY.md
// names is a test of flink/parity or of the stage suites.
func TestParityRowsCiteTestsThatExist(t *testing.T) {
	all := testsIn(t, ".", "../../stages")
	b, err := os.ReadFile("../../docs/PARITY.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range testName.FindAllStringSubmatch(string(b), -1) {
		if !all[m[1]] {
			t.Errorf("docs/PARITY.md names %s, which is no test of flink/parity or of the stages", m[1])
		}
	}
}

// rowRef matches a reference to a row of the parity table: "row 5 of
// docs/PARITY.md", "row 5 of [docs/PARITY.md](…)", "(docs/PARITY.md, row 5)".
var rowRef = regexp.MustCompile(`row\s+(\d+)\s+of\s+\[?docs/PARITY\.md|docs/PARITY\.md,\s+row\s+(\d+)`)

// parityRows returns the stage column of each numbered row of the parity
// table, by number.
func parityRows(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/PARITY.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 3 && regexp.MustCompile(`^ \d+ $`).MatchString(cells[1]) {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	return rows
}

// TestRowReferencesNameRowsOfTheirStage certifies that a card's "row N of
// docs/PARITY.md" names a row that exists and whose stages include the
// card's, so that a row inserted or renumbered cannot leave a card pointing
// at another stage's difference.
func TestRowReferencesNameRowsOfTheirStage(t *testing.T) {
	rows := parityRows(t)
	cards, _ := filepath.Glob("../../stages/*/README.md")
	for _, card := range cards {
		b, err := os.ReadFile(card)
		if err != nil {
			t.Fatal(err)
		}
		stage := filepath.Base(filepath.Dir(card))
		for _, m := range rowRef.FindAllStringSubmatch(string(b), -1) {
			n := m[1] + m[2]
			stages, ok := rows[n]
			switch {
			case !ok:
				t.Errorf("%s names row %s of docs/PARITY.md, which has no such row", stage, n)
			case !coversStage(stages, stage[:2]):
				t.Errorf("%s names row %s of docs/PARITY.md, a row of stages %s", stage, n, stages)
			}
		}
	}
}

// coversStage reports whether a row's stage column ("01, 09", "01–12")
// includes stage nn.
func coversStage(col, nn string) bool {
	for part := range strings.SplitSeq(col, ",") {
		part = strings.TrimSpace(part)
		if lo, hi, ok := strings.Cut(part, "–"); ok {
			if lo <= nn && nn <= hi {
				return true
			}
		} else if part == nn {
			return true
		}
	}
	return false
}

// jobLink matches a card's link to a graduation job's source.
var jobLink = regexp.MustCompile(`\(\.\./\.\./(flink/src/main/java/dev/flkbyo/flink/jobs/Stage(\d\d)\w+\.java)\)`)

// TestCardsLinkTheirGraduationJob certifies that every stage card's Flink
// parity box links the graduation job of its own stage, and that the file
// is there.
func TestCardsLinkTheirGraduationJob(t *testing.T) {
	cards, _ := filepath.Glob("../../stages/*/README.md")
	for _, card := range cards {
		b, err := os.ReadFile(card)
		if err != nil {
			t.Fatal(err)
		}
		stage := filepath.Base(filepath.Dir(card))
		m := jobLink.FindStringSubmatch(parityBox(string(b)))
		switch {
		case m == nil:
			t.Errorf("%s: its Flink parity box links no graduation job (flink/src/main/java/dev/flkbyo/flink/jobs/StageNN….java)", stage)
		case m[2] != stage[:2]:
			t.Errorf("%s: its Flink parity box links %s, another stage's job", stage, m[1])
		default:
			if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
				t.Errorf("%s: its Flink parity box links %s: %v", stage, m[1], err)
			}
		}
	}
}
