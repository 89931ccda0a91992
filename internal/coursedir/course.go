// Package course works on the course folder on disk: finding its root from
// wherever `de` was started, and laying skeleton files into lab/ without
// ever overwriting a learner's file.
package coursedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flk-byo/course/internal/catalog"
)

// LabDir is the learner's package folder, relative to the root.
const LabDir = "lab"

// ErrNoCourse is returned by FindRoot outside a course checkout.
var ErrNoCourse = errors.New("no FLK-BYO course here: run de inside the course folder (the one with go.mod and stages/catalog.json)")

// FindRoot returns the nearest directory at or above dir that holds both
// go.mod and stages/catalog.json.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find course root: %w", err)
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, "stages", "catalog.json")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoCourse
		}
		dir = parent
	}
}

// HasLab reports whether root has a lab/ folder.
func HasLab(root string) bool {
	fi, err := os.Stat(filepath.Join(root, LabDir))
	return err == nil && fi.IsDir()
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Copied says what CopySkeletons did with each skeleton file, by its path
// relative to the root ("lab/windows.go").
type Copied struct {
	Created []string // written because lab/ had no such file
	Kept    []string // already present: the learner's version, left alone
}

// CopySkeletons writes the skeleton files of the given stages into
// root/lab, creating the folder if needed. A file that already exists is
// never overwritten, whatever it contains: it is the learner's work. New
// files are created exclusively (O_EXCL), so even a file that appears
// concurrently is not clobbered.
//
// A drill's skeleton is its broken job, copied the same way into its own
// folder under lab/ (Stage.JobDir).
func CopySkeletons(root string, cat *catalog.Catalog, stages []catalog.Stage) (Copied, error) {
	var c Copied
	for _, s := range stages {
		dir := s.WorkDir()
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(dir)), 0o755); err != nil {
			return c, fmt.Errorf("create %s/: %w", dir, err)
		}
		names, err := cat.SkeletonFiles(s)
		if err != nil {
			return c, err
		}
		for _, name := range names {
			rel := dir + "/" + name
			data, err := cat.SkeletonFile(s, name)
			if err != nil {
				return c, fmt.Errorf("stage %s: %w", s.ID(), err)
			}
			f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				c.Kept = append(c.Kept, rel)
				continue
			}
			if err != nil {
				return c, fmt.Errorf("create %s: %w", rel, err)
			}
			_, werr := f.Write(data)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return c, fmt.Errorf("write %s: %w", rel, werr)
			}
			c.Created = append(c.Created, rel)
		}
	}
	return c, nil
}

// suiteParts are the parts of the course that running its suites needs.
var suiteParts = []string{"go.mod", "go.sum", "kit", "internal", "stages", "drills", "solutions"}

// CopyForSuites copies what running the course's suites needs (go.mod,
// go.sum, kit, internal, stages, drills, solutions; not lab/ or .de/) from root
// into dst, for a scratch course that checks run in without touching the
// learner's tree. A part root does not have is left out: a student
// template has no solutions/.
func CopyForSuites(root, dst string) error {
	for _, name := range suiteParts {
		if _, err := os.Stat(filepath.Join(root, name)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := copyTree(filepath.Join(root, name), filepath.Join(dst, name)); err != nil {
			return fmt.Errorf("copy course: %w", err)
		}
	}
	return nil
}

// CopyForGrading copies what grading a learner's tree reads and builds
// (what CopyForSuites copies, and lab/) from root into dst, every folder
// 0755 and every file 0644 whatever they were, so that another user can
// read the copy and none can write it. It copies regular files only: a
// symbolic link in the learner's tree could name a file the learner may
// not read.
func CopyForGrading(root, dst string) error {
	if err := CopyForSuites(root, dst); err != nil {
		return err
	}
	if !HasLab(root) {
		return nil
	}
	if err := copyTree(filepath.Join(root, LabDir), filepath.Join(dst, LabDir)); err != nil {
		return fmt.Errorf("copy course: %w", err)
	}
	return nil
}

// copyTree copies a file or a folder recursively: its folders and regular
// files, not its symbolic links or devices.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			return os.Chmod(target, 0o755) // whatever the umask
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chmod(target, 0o644)
	})
}
