// Package reset puts stages' skeleton files back into lab/ (and a drill's
// broken job back into lab/drills/<package>/) without losing the learner's
// work: every file that differs from its skeleton is first moved, byte for
// byte, to .de/backup/<timestamp>/, under its path from the course root.
//
// Goals: nothing is ever deleted or overwritten without a copy in the
// backup; a reset that fails half-way leaves every file either in lab/ or
// in the backup. Non-goals: restoring a backup (copy the files back by
// hand) and pruning old backups.
package reset

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
)

// BackupDir is where backups go, relative to the course root.
const BackupDir = ".de/backup"

// Plan says what a reset will do with each skeleton file, by its path
// relative to the course root ("lab/windows.go").
type Plan struct {
	Move      []string // the learner's version differs: it goes to the backup
	Create    []string // missing from lab/: the skeleton is written
	Unchanged []string // identical to the skeleton already: left alone
}

// Empty reports whether the reset would change nothing.
func (p Plan) Empty() bool { return len(p.Move)+len(p.Create) == 0 }

// PlanFor compares the learner's tree under root with the skeleton files
// of stages (a drill's are its job's, in its WorkDir).
func PlanFor(root string, cat *catalog.Catalog, stages []catalog.Stage) (Plan, error) {
	var p Plan
	for _, st := range stages {
		names, err := cat.SkeletonFiles(st)
		if err != nil {
			return p, err
		}
		for _, name := range names {
			rel := st.WorkDir() + "/" + name
			want, err := cat.SkeletonFile(st, name)
			if err != nil {
				return p, fmt.Errorf("stage %s: %w", st.ID(), err)
			}
			have, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				p.Create = append(p.Create, rel)
			case err != nil:
				return p, fmt.Errorf("read %s: %w", rel, err)
			case bytes.Equal(have, want):
				p.Unchanged = append(p.Unchanged, rel)
			default:
				p.Move = append(p.Move, rel)
			}
		}
	}
	return p, nil
}

// Result is what Reset did.
type Result struct {
	Plan
	Backup string // the backup folder relative to the root; "" when nothing was moved
}

// Reset carries out PlanFor(root, cat, stages): it moves each differing
// file to a new folder .de/backup/<now as 20060102-150405>/ (keeping its
// path relative to the root), then writes the skeletons. A backup folder
// that exists already is never reused: a suffix -2, -3 … is added.
func Reset(root string, cat *catalog.Catalog, stages []catalog.Stage, now time.Time) (Result, error) {
	p, err := PlanFor(root, cat, stages)
	if err != nil {
		return Result{}, err
	}
	res := Result{Plan: p}
	if len(p.Move) > 0 {
		res.Backup, err = newBackupDir(root, now)
		if err != nil {
			return res, err
		}
		for _, rel := range p.Move {
			dst := filepath.Join(root, filepath.FromSlash(res.Backup), filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return res, fmt.Errorf("back up %s: %w", rel, err)
			}
			if err := move(filepath.Join(root, filepath.FromSlash(rel)), dst); err != nil {
				return res, fmt.Errorf("back up %s: %w (nothing else was changed for it)", rel, err)
			}
		}
	}
	// Every file to write is now absent from lab/; coursedir.CopySkeletons
	// creates files exclusively and keeps any that reappeared meanwhile.
	if _, err := coursedir.CopySkeletons(root, cat, stages); err != nil {
		return res, err
	}
	return res, nil
}

// newBackupDir creates and returns a fresh backup folder, relative to root.
func newBackupDir(root string, now time.Time) (string, error) {
	base := BackupDir + "/" + now.Format("20060102-150405")
	if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(BackupDir)), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", BackupDir, err)
	}
	for i := 1; ; i++ {
		rel := base
		if i > 1 {
			rel = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(filepath.Join(root, filepath.FromSlash(rel)), 0o755)
		if err == nil {
			return rel, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create %s: %w", rel, err)
		}
	}
}

// move renames src to dst; across file systems it copies, checks the copy
// and only then removes src.
func move(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
		return err
	}
	back, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(back, data) {
		return fmt.Errorf("the copy in %s does not match; %s left in place", dst, src)
	}
	return os.Remove(src)
}
