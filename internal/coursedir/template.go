package coursedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ReferenceDir is the reference solution's folder, relative to the root.
const ReferenceDir = "solutions"

// HasReference reports whether root holds the reference solution: a copy
// made with WriteTemplate does not.
func HasReference(root string) bool {
	fi, err := os.Stat(filepath.Join(root, ReferenceDir))
	return err == nil && fi.IsDir()
}

// templateLeavesOut are the parts of the course a student template does
// not have: the answers (the reference and the catalogue of mistakes made
// from it), the course's own CI, and whatever a learner, a checkout or a
// build (the Flink module's Maven output) left in the tree.
var templateLeavesOut = []string{ReferenceDir, "mutants", ".ci", LabDir, ".de", ".git", "flink/target"}

// templateLeavesOutFiles are patterns (path.Match, from the root) of files
// that need the reference to build and that nothing needs in a template:
// the demos of the stages, which run it (the template's
// internal/demo/stages.go lists none), and the drills' binding to the
// reference engine (a template's drills run on the learner's own; de grade
// never builds that file, so its absence is no change to a graded file).
var templateLeavesOutFiles = []string{"internal/demo/stage[0-9]*.go", "drills/*/engine/engine_ref.go"}

// templateReplaces are the files of de that need the reference to build,
// and what a template has in their place, so that de still builds there:
// no demos (they run the reference) and no embedded reference files (for
// the similarity measure of de grade, which instructors run with a de
// built from the full course).
var templateReplaces = map[string]string{
	"internal/demo/stages.go": `package demo

// demos is empty in a student template: the demos run the reference
// solution, which is not part of this copy of the course.
var demos = map[int]demo{}
`,
	"reference.go": `package course

import "embed"

// Reference is empty in a student template: the reference solution is not
// part of this copy of the course. Grade with a de built from the full
// course, whose Reference holds it.
var Reference embed.FS

// Independent is empty in a student template, as Reference is.
var Independent embed.FS
`,
}

// templateNote is put before the README of a template.
const templateNote = `> **This is a student copy of the course.** The reference solution (solutions/) and the
> catalogue of classic mistakes (mutants/) are not part of it, so ` + "`de solution`, `de test --solution`," + `
> ` + "`de demo` and `de bench`" + ` say so instead of running, and a drill runs on your own engine once you
> have passed the stages it builds on (` + "`de drill list`" + ` says which). Test your work with
> ` + "`go run ./cmd/de test`" + `; ` + "`go test ./...`" + ` tests the course's own tooling, and passes here. The course's
> test command below (` + "`go test -tags solution ./...`" + `) needs the reference: it is for the full course.
> Your instructor grades with ` + "`de`" + ` built from the full course.

`

// WriteTemplate writes into dst, which must not exist or be empty, a copy
// of the course at root for students: everything but the parts in
// templateLeavesOut, with the classroom workflow as it is, the demos taken
// out of de (they run the reference) and a note at the top of README.md.
// It returns the paths written, relative to dst. It never overwrites a
// file.
func WriteTemplate(root, dst string) ([]string, error) {
	if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: de classroom template writes into a new or empty folder, and overwrites nothing", dst)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if rel, err := filepath.Rel(root, dst); err == nil && !strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is inside the course: write the template somewhere else", dst)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	var written []string
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, file)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if slices.Contains(templateLeavesOut, rel) {
			if d.IsDir() {
				return fs.SkipDir
			}
			// A file: .git is one in a git worktree or submodule. SkipDir
			// for a file would skip the rest of its folder, here the root.
			return nil
		}
		if slices.ContainsFunc(templateLeavesOutFiles, func(pattern string) bool {
			ok, _ := path.Match(pattern, rel)
			return ok
		}) {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if repl, ok := templateReplaces[rel]; ok {
			data = []byte(repl)
		}
		if rel == "README.md" {
			data = append([]byte(templateNote), data...)
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
		written = append(written, rel)
		return nil
	})
	if err != nil {
		return written, fmt.Errorf("write the template: %w", err)
	}
	return written, nil
}
