// Package mutants runs the course's catalogue of classic mistakes: small
// deliberate bugs in a copy of the reference solution, each of which a
// named test of its stage must catch. A suite that passes on the reference
// and fails on the skeleton may still let the mistake a learner actually
// makes through; a mutant that survives shows where.
//
// The catalogue is data, one txtar file per mutant under mutants/NN-slug/
// (the folder names the stage). The comment of the archive is a header of
// "key: value" lines:
//
//	mistake: the mistake, in words
//	file: solutions/windows.go          the reference file it changes
//	caught-by: TestA TestB              the test(s) of the stage that must fail
//	note: optional, any number of lines
//	race: true                          optional: run the suite with -race
//	rerun: 01-windows statebackend_heap  optional: caught by a rerun pass
//
// A mutant with rerun: is caught by one of its stage's rerun passes
// (catalog.Stage.Reruns: stage 12 runs stages 01 and 03 on its
// BackendProcessor): its caught-by tests are the earlier stage's, run under
// the pass's build tag.
//
// and its files are pairs "find" / "replace" (then "find 2" / "replace 2",
// and so on), applied in order: each find text must occur exactly once in
// the file as the earlier pairs left it, and is replaced by its partner.
// The newline that ends every txtar section is not part of the text, so a
// find may be part of a line; an empty replace deletes the find text.
//
// Run builds the mutated file in a temporary folder and runs the stage's
// suite with go test -overlay mapping the reference file to it, so the
// course tree is never copied or changed.
//
// Non-goals: generating mutants automatically (each one is a mistake a
// person makes, chosen and described by the stage's author), and scoring
// a suite by a kill ratio: every mutant in the catalogue must be caught by
// the test it names, or the check fails.
package mutants

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// Ext is the extension of a mutant file.
const Ext = ".txtar"

// Pair is one change of a mutant: Find, which must occur exactly once, is
// replaced by Replace.
type Pair struct {
	Find, Replace string
}

// Mutant is one classic mistake: a change to one reference file and the
// tests that must catch it.
type Mutant struct {
	Stage    string   // the stage folder, e.g. "01-windows"; a drill's is "drills/01-quiet-partition"
	Name     string   // the file name without .txtar, e.g. "end-inclusive"
	Mistake  string   // what the mistake is, in words
	File     string   // the changed file, slash-separated from the course root: "solutions/windows.go"
	CaughtBy []string // top-level tests of the stage that must fail
	Note     string   // optional remarks
	Race     bool     // the suite must run with -race to catch it
	// RerunStage and RerunTag, when set, say that the tests in CaughtBy
	// are RerunStage's, run under the build tag RerunTag by one of Stage's
	// rerun passes.
	RerunStage, RerunTag string
	Pairs                []Pair
}

// ID returns the mutant's name within the catalogue: "01-windows/end-inclusive".
func (m Mutant) ID() string { return m.Stage + "/" + m.Name }

// Package returns the go test pattern of the mutant's stage,
// "./stages/01-windows", or drill, "./drills/01-quiet-partition".
func (m Mutant) Package() string {
	if m.RerunStage != "" {
		return "./stages/" + m.RerunStage
	}
	if m.Drill() {
		return "./" + m.Stage
	}
	return "./stages/" + m.Stage
}

// Tags returns the build tags its suite runs with: "solution", and the
// rerun pass's tag if it has one.
func (m Mutant) Tags() string {
	if m.RerunTag != "" {
		return "solution," + m.RerunTag
	}
	return "solution"
}

// Drill reports whether the mutant is a wrong fix of a drill's job rather
// than a mistake in a stage.
func (m Mutant) Drill() bool { return strings.HasPrefix(m.Stage, DrillsDir+"/") }

var (
	stageDirRe = regexp.MustCompile(`^[0-9]{2}-[a-z0-9][a-z0-9-]*$`)
	nameRe     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	testNameRe = regexp.MustCompile(`^Test[A-Za-z0-9_]*$`)
	pairRe     = regexp.MustCompile(`^(find|replace)(?: ([2-9]|[1-9][0-9]+))?$`)
)

// Load reads every mutant in fsys, whose root is the catalogue folder
// (mutants/): files NN-slug/<name>.txtar, and the drills' wrong fixes
// drills/NN-slug/<name>.txtar, in folder then name order. It reports every
// malformed entry at once, one line each, in one error; a stray file or
// folder is such an entry. An empty catalogue is not an error.
func Load(fsys fs.FS) ([]Mutant, error) {
	var ms []Mutant
	var problems []error
	if err := loadFolder(fsys, ".", &ms, &problems); err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return ms, fmt.Errorf("mutants: the catalogue has %d problem(s):\n%w", len(problems), errors.Join(problems...))
	}
	return ms, nil
}

// DrillsDir is the folder of the catalogue that holds the drills' wrong
// fixes, one NN-slug folder per drill, like the stages'.
const DrillsDir = "drills"

// loadFolder reads the NN-slug folders of dir (the catalogue's root, or
// its drills folder) into ms, and what is malformed into problems.
func loadFolder(fsys fs.FS, dir string, ms *[]Mutant, problems *[]error) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("mutants: %w", err)
	}
	for _, d := range entries {
		name := path.Join(dir, d.Name())
		switch {
		case dir == "." && d.IsDir() && d.Name() == DrillsDir:
			if err := loadFolder(fsys, DrillsDir, ms, problems); err != nil {
				return err
			}
			continue
		case !d.IsDir():
			if name != "README.md" {
				*problems = append(*problems, fmt.Errorf("%s: a stray file: mutants live in NN-slug/ folders", name))
			}
			continue
		case !stageDirRe.MatchString(d.Name()):
			*problems = append(*problems, fmt.Errorf("%s/: not a stage folder name (NN-slug)", name))
			continue
		}
		files, err := fs.ReadDir(fsys, name)
		if err != nil {
			*problems = append(*problems, fmt.Errorf("%s/: %w", name, err))
			continue
		}
		for _, f := range files {
			p := path.Join(name, f.Name())
			if f.IsDir() || !strings.HasSuffix(f.Name(), Ext) {
				*problems = append(*problems, fmt.Errorf("%s: a stray entry: a mutant is a %s file", p, Ext))
				continue
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				*problems = append(*problems, fmt.Errorf("%s: %w", p, err))
				continue
			}
			m, err := Parse(name, strings.TrimSuffix(f.Name(), Ext), data)
			if err != nil {
				*problems = append(*problems, err)
				continue
			}
			*ms = append(*ms, m)
		}
	}
	return nil
}

// Parse parses the txtar data of mutant name in stage folder stage. The
// error names the file and every problem found.
func Parse(stage, name string, data []byte) (Mutant, error) {
	m := Mutant{Stage: stage, Name: name}
	where := stage + "/" + name + Ext
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !nameRe.MatchString(name) {
		bad("the name %q is not lower-case words joined by '-'", name)
	}

	ar := txtar.Parse(data)
	seen := map[string]bool{}
	var notes []string
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok {
			bad("header line %d %q is not \"key: value\"", i+1, line)
			continue
		}
		if seen[key] && key != "note" {
			bad("header key %q is repeated", key)
		}
		seen[key] = true
		switch key {
		case "mistake":
			m.Mistake = value
		case "file":
			m.File = value
		case "caught-by":
			m.CaughtBy = strings.Fields(value)
		case "note":
			notes = append(notes, value)
		case "race":
			b, err := strconv.ParseBool(value)
			if err != nil {
				bad("race: %q is not true or false", value)
			}
			m.Race = b
		case "rerun":
			f := strings.Fields(value)
			if len(f) != 2 || !stageDirRe.MatchString(f[0]) {
				bad("rerun: %q is not a stage folder and a build tag, e.g. \"01-windows statebackend_heap\"", value)
				continue
			}
			m.RerunStage, m.RerunTag = f[0], f[1]
		default:
			bad("unknown header key %q (known: mistake, file, caught-by, note, race, rerun)", key)
		}
	}
	m.Note = strings.Join(notes, " ")
	if m.Mistake == "" {
		bad("no \"mistake:\" line: say what the mistake is")
	}
	switch {
	case m.File == "":
		bad("no \"file:\" line: name the reference file it changes")
	case path.IsAbs(m.File) || strings.Contains(m.File, "\\") || path.Clean(m.File) != m.File || strings.HasPrefix(m.File, "../") || !strings.HasSuffix(m.File, ".go"):
		bad("file %q is not a clean, slash-separated path of a .go file inside the course", m.File)
	}
	if len(m.CaughtBy) == 0 {
		bad("no \"caught-by:\" line: name the test(s) of the stage that must fail")
	}
	for _, t := range m.CaughtBy {
		if !testNameRe.MatchString(t) {
			bad("caught-by %q is not a top-level test name (TestXxx)", t)
		}
	}

	finds, replaces := map[int]string{}, map[int]string{}
	for _, f := range ar.Files {
		sub := pairRe.FindStringSubmatch(f.Name)
		if sub == nil {
			bad("file section %q is neither \"find [N]\" nor \"replace [N]\"", f.Name)
			continue
		}
		n := 1
		if sub[2] != "" {
			n, _ = strconv.Atoi(sub[2])
		}
		target := finds
		if sub[1] == "replace" {
			target = replaces
		}
		if _, dup := target[n]; dup {
			bad("section %q is repeated", f.Name)
		}
		// txtar ends every section with a newline; it is not part of the
		// text, so that a find can be part of a line.
		target[n] = strings.TrimSuffix(string(f.Data), "\n")
	}
	if len(finds) == 0 {
		bad("no \"-- find --\" / \"-- replace --\" pair")
	}
	for n := 1; n <= max(len(finds), len(replaces)); n++ {
		find, okF := finds[n]
		repl, okR := replaces[n]
		switch {
		case !okF || !okR:
			bad("pair %d is incomplete: every find needs a replace, numbered 1 (no number), 2, 3 … without gaps", n)
		case strings.TrimSpace(find) == "":
			bad("pair %d: the find text is empty", n)
		case find == repl:
			bad("pair %d: the replace text equals the find text", n)
		default:
			m.Pairs = append(m.Pairs, Pair{Find: find, Replace: repl})
		}
	}
	if len(problems) > 0 {
		return m, fmt.Errorf("%s: %s", where, strings.Join(problems, "; "))
	}
	return m, nil
}

// ApplyError is the error of a mutant whose find text does not occur
// exactly once: the reference changed since the mutant was written.
type ApplyError struct {
	Pair  int // 1-based
	Count int // how many times the find text occurs
	Find  string
}

func (e *ApplyError) Error() string {
	what := "not found"
	if e.Count > 1 {
		what = fmt.Sprintf("found %d times (it must be unique)", e.Count)
	}
	return fmt.Sprintf("find text %d %s: %q", e.Pair, what, firstLine(e.Find))
}

// Mutate returns src with the mutant's pairs applied in order, or an
// *ApplyError naming the first find text that does not occur exactly once.
func (m Mutant) Mutate(src []byte) ([]byte, error) {
	text := string(src)
	for i, p := range m.Pairs {
		if n := strings.Count(text, p.Find); n != 1 {
			return nil, &ApplyError{Pair: i + 1, Count: n, Find: p.Find}
		}
		text = strings.Replace(text, p.Find, p.Replace, 1)
	}
	return []byte(text), nil
}

// Filter returns the mutants of the given stage folder ("" for any) whose
// ID or name is name ("" for any), in catalogue order.
func Filter(ms []Mutant, stage, name string) []Mutant {
	var out []Mutant
	for _, m := range ms {
		if (stage == "" || m.Stage == stage) && (name == "" || m.ID() == name || m.Name == name || m.ID()+Ext == name) {
			out = append(out, m)
		}
	}
	return out
}

// OfReadyStages returns the mutants of ms whose stage or drill ready reports
// ready, in order. A run of every mutant leaves out those of a stage being
// written: its suite may not catch them all yet, and they run when the stage
// is named.
func OfReadyStages(ms []Mutant, ready func(stage string) bool) []Mutant {
	var out []Mutant
	for _, m := range ms {
		if ready(m.Stage) {
			out = append(out, m)
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
