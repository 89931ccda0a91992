package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/gotest"
)

// TestWritePinOverlay pins the overlay de grade builds the drills with: each
// pinned folder holds de's copy of every build file, whatever the student's
// tree has there; a build file the student added is taken out; files that
// are no build files are left alone; and a folder the tree lacks (a student
// template's solutions/) is added whole.
func TestWritePinOverlay(t *testing.T) {
	own := fstest.MapFS{
		"solutions/windows.go":             {Data: []byte("package solutions // de's\n")},
		"solutions/bench_test.go":          {Data: []byte("package solutions\n")},
		"drills/01-q/engine/engine_ref.go": {Data: []byte("//go:build !lab || drillref\n\npackage engine // de's\n")},
	}
	root, tmp := t.TempDir(), t.TempDir()
	write(t, root, "solutions/windows.go", "package solutions // changed\n")
	write(t, root, "solutions/forged.go", "package solutions // added\n")
	write(t, root, "solutions/notes.md", "not a build file\n")
	// drills/01-q/engine/ is missing from the tree, as in a student template.

	file, err := writePinOverlay(root, tmp, []pin{{FS: own, Dir: "solutions"}, {FS: own, Dir: "drills/01-q/engine"}})
	require.NoError(t, err)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var overlay struct{ Replace map[string]string }
	require.NoError(t, json.Unmarshal(data, &overlay))

	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	at := func(rel string) string { return filepath.Join(abs, filepath.FromSlash(rel)) }
	assert.Len(t, overlay.Replace, 4, "windows.go and bench_test.go put in place, forged.go taken out, engine_ref.go added: %v", overlay.Replace)
	assert.Equal(t, "", overlay.Replace[at("solutions/forged.go")], "a build file the student added is deleted for the build")
	assert.NotContains(t, overlay.Replace, at("solutions/notes.md"), "not a build file: left alone")
	for rel, want := range map[string]string{
		"solutions/windows.go":             "package solutions // de's\n",
		"solutions/bench_test.go":          "package solutions\n",
		"drills/01-q/engine/engine_ref.go": "//go:build !lab || drillref\n\npackage engine // de's\n",
	} {
		copied, ok := overlay.Replace[at(rel)]
		if assert.True(t, ok, "%s is pinned", rel) {
			got, err := os.ReadFile(copied)
			require.NoError(t, err)
			assert.Equal(t, want, string(got), "%s is de's copy", rel)
		}
	}
}

// TestDrillsNeedTheReference pins what a de without the reference (one built
// from a student template) says when asked to grade a drill: one line saying
// what to use instead, not a build of the student's own solutions/.
func TestDrillsNeedTheReference(t *testing.T) {
	_, err := runDrills(t.Context(), Options{Root: t.TempDir(), Reference: fstest.MapFS{}}, gotest.Options{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "grade with a de built from the full course")
}
