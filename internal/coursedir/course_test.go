package coursedir_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

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

// TestCopySkeletonsCopiesADrillsJob checks that a drill's broken job goes to
// its own folder, lab/drills/<package>, and, like a skeleton, never
// replaces a file the learner has there.
func TestCopySkeletonsCopiesADrillsJob(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	require.NoError(t, cat.LoadDrills(fstest.MapFS{
		"catalog.json":         {Data: []byte(`{"format": 1, "drills": [{"slug": "quiet", "title": "Quiet", "ready": true, "package": "quiet"}]}`)},
		"01-quiet/_job/job.go": {Data: []byte("package quiet // broken\n")},
		"01-quiet/_job/src.go": {Data: []byte("package quiet // source\n")},
	}))
	d := cat.Drills[0]
	root := t.TempDir()
	mine := filepath.Join(root, "lab", "drills", "quiet", "job.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("package quiet // my fix\n"), 0o644))

	copied, err := coursedir.CopySkeletons(root, cat, []catalog.Stage{d})
	require.NoError(t, err)
	assert.Equal(t, []string{"lab/drills/quiet/src.go"}, copied.Created)
	assert.Equal(t, []string{"lab/drills/quiet/job.go"}, copied.Kept)
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, "package quiet // my fix\n", string(data), "the learner's fix is untouched")
	assert.NoFileExists(t, filepath.Join(root, "lab", "job.go"), "a drill's job stays out of package lab")
}
