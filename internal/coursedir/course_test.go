package coursedir_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
)

func TestFindRootFromSubfolder(t *testing.T) {
	root, err := coursedir.FindRoot(".")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "stages", "catalog.json"))
	_, err = coursedir.FindRoot(t.TempDir())
	assert.ErrorIs(t, err, coursedir.ErrNoCourse)
}

func TestCopySkeletonsNeverOverwrites(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	st := cat.Stages[0]
	names, err := cat.SkeletonFiles(st)
	require.NoError(t, err)
	require.NotEmpty(t, names)

	root := t.TempDir()
	mine := filepath.Join(root, coursedir.LabDir, names[0])
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("package lab // mine\n"), 0o644))

	copied, err := coursedir.CopySkeletons(root, cat, cat.Stages[:1])
	require.NoError(t, err)
	assert.Equal(t, []string{"lab/" + names[0]}, copied.Kept)
	assert.Len(t, copied.Created, len(names)-1)
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, "package lab // mine\n", string(data), "the learner's file is untouched")

	again, err := coursedir.CopySkeletons(root, cat, cat.Stages[:1])
	require.NoError(t, err)
	assert.Empty(t, again.Created, "a second copy creates nothing")
	assert.Len(t, again.Kept, len(names))
}

// TestWriteTemplateFromAGitWorktree: in a git worktree or submodule .git
// is a file, not a folder; the template leaves it out and copies the rest.
func TestWriteTemplateFromAGitWorktree(t *testing.T) {
	for _, gitIsDir := range []bool{false, true} {
		root := t.TempDir()
		for path, data := range map[string]string{
			"README.md":               "# course\n",
			"stages/01-x/card.md":     "card\n",
			"solutions/answer.go":     "package solutions\n",
			"zz-after-dot-git/file.t": "kept\n",
		} {
			p := filepath.Join(root, filepath.FromSlash(path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git := filepath.Join(root, ".git")
		if gitIsDir {
			if err := os.MkdirAll(filepath.Join(git, "objects"), 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(git, []byte("gitdir: /elsewhere/.git/worktrees/x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		written, err := coursedir.WriteTemplate(root, filepath.Join(t.TempDir(), "student"))
		if err != nil {
			t.Fatalf(".git a folder = %v: WriteTemplate = %v", gitIsDir, err)
		}
		slices.Sort(written)
		want := []string{"README.md", "stages/01-x/card.md", "zz-after-dot-git/file.t"}
		if !slices.Equal(written, want) {
			t.Errorf(".git a folder = %v: WriteTemplate wrote %q, want %q (everything but .git and the answers)", gitIsDir, written, want)
		}
	}
}
