// Package progress reads and writes a learner's progress file,
// .de/progress at the course root. It is a small plain-text file that the
// learner commits with lab/, so that a classroom CI run knows the stage.
//
// Format 1, one directive per line, '#' starts a comment:
//
//	format 1
//	current 02-keyed-partitioning
//	started 01-windows
//	passed 01-windows
//	hints 01-windows 2
//
// Stages are recorded by ID, not by position. Unknown stage IDs are kept
// but ignored by `de`, so reordering or removing a stage never corrupts a
// learner's progress.
package progress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Path is the progress file's location relative to the course root.
const Path = ".de/progress"

// Progress is what a learner has done.
type Progress struct {
	Current string          // ID of the stage being worked on; "" before `de start`
	Started map[string]bool // stages whose skeleton was copied into lab/
	Passed  map[string]bool // stages whose tests all passed in `de test`
	Hints   map[string]int  // how many hints of a stage were revealed
}

// New returns empty progress.
func New() *Progress {
	return &Progress{Started: map[string]bool{}, Passed: map[string]bool{}, Hints: map[string]int{}}
}

// Load reads the progress file under root. A missing file is empty
// progress, not an error; a file that does not parse is an error naming
// the line.
func Load(root string) (*Progress, error) {
	file := filepath.Join(root, Path)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read progress: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s %w (the file is written by de: fix or delete it; your lab/ is not affected)", Path, err)
	}
	return p, nil
}

// Parse parses the contents of a progress file.
func Parse(data []byte) (*Progress, error) {
	p := New()
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		bad := func(why string) error { return fmt.Errorf("line %d: %q: %s", n, line, why) }
		switch {
		case f[0] == "format" && len(f) == 2:
			if f[1] != "1" {
				return nil, bad("unknown format (this de reads format 1)")
			}
		case f[0] == "current" && len(f) == 2:
			p.Current = f[1]
		case f[0] == "started" && len(f) == 2:
			p.Started[f[1]] = true
		case f[0] == "passed" && len(f) == 2:
			p.Passed[f[1]] = true
		case f[0] == "hints" && len(f) == 3:
			k, err := strconv.Atoi(f[2])
			if err != nil || k < 0 {
				return nil, bad("hint count must be a whole number")
			}
			p.Hints[f[1]] = k
		default:
			return nil, bad("not a progress directive")
		}
	}
	return p, sc.Err()
}

// Bytes renders the progress file, with a header saying what it is.
// Directives are sorted, so equal progress gives equal bytes.
func (p *Progress) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("# FLK-BYO progress, written by `de`. Commit it with lab/; do not edit by hand.\n")
	b.WriteString("# Directives: current <stage>, started <stage>, passed <stage>, hints <stage> <n>.\n")
	b.WriteString("format 1\n")
	if p.Current != "" {
		fmt.Fprintf(&b, "current %s\n", p.Current)
	}
	for _, id := range sortedTrue(p.Started) {
		fmt.Fprintf(&b, "started %s\n", id)
	}
	for _, id := range sortedTrue(p.Passed) {
		fmt.Fprintf(&b, "passed %s\n", id)
	}
	ids := make([]string, 0, len(p.Hints))
	for id, n := range p.Hints {
		if n > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "hints %s %d\n", id, p.Hints[id])
	}
	return b.Bytes()
}

// Save writes the progress file under root, atomically (a temporary file
// renamed into place), so an interrupted `de` never leaves half a file.
func (p *Progress) Save(root string) error {
	file := filepath.Join(root, Path)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, p.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	return nil
}

func sortedTrue(m map[string]bool) []string {
	var ids []string
	for id, ok := range m {
		if ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
