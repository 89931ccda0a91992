package coursedir_test

import (
	"os"
	"path/filepath"
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
