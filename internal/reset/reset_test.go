package reset

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
)

func TestResetKeepsEveryByte(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	st02, _ := cat.ByID("02-keyed-partitioning")
	sts := cat.Stages[:2]
	root := t.TempDir()
	_, err = coursedir.CopySkeletons(root, cat, sts)
	require.NoError(t, err)
	lab := filepath.Join(root, coursedir.LabDir)
	require.NoError(t, os.WriteFile(filepath.Join(lab, "windows.go"), []byte("package lab // my windows\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(lab, "stream.go")))
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

	for _, tc := range []struct {
		name       string
		stages     []catalog.Stage
		wantPlan   Plan
		wantBackup string
	}{
		{"stage 02 only: windows.go is not its file", []catalog.Stage{st02}, Plan{Create: []string{"lab/stream.go"}, Unchanged: []string{"lab/partition.go"}}, ""},
		{"both stages: windows.go is backed up", sts, Plan{Move: []string{"lab/windows.go"}, Unchanged: []string{"lab/partition.go", "lab/stream.go"}}, ".de/backup/20260304-050607"},
		{"again: nothing to do", sts, Plan{Unchanged: []string{"lab/windows.go", "lab/partition.go", "lab/stream.go"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Reset(root, cat, tc.stages, now)
			require.NoError(t, err)
			assert.Equal(t, tc.wantPlan, res.Plan)
			assert.Equal(t, tc.wantBackup, res.Backup)
		})
	}
	kept, err := os.ReadFile(filepath.Join(root, ".de/backup/20260304-050607/lab/windows.go"))
	require.NoError(t, err)
	assert.Equal(t, "package lab // my windows\n", string(kept))
	skel, _ := cat.SkeletonFile(cat.Stages[0], "windows.go")
	back, _ := os.ReadFile(filepath.Join(lab, "windows.go"))
	assert.Equal(t, skel, back)

	// A second reset in the same second gets its own folder.
	require.NoError(t, os.WriteFile(filepath.Join(lab, "windows.go"), []byte("package lab // again\n"), 0o644))
	res, err := Reset(root, cat, sts, now)
	require.NoError(t, err)
	assert.Equal(t, ".de/backup/20260304-050607-2", res.Backup)
}
