package grade

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/flk-byo/course/internal/gotest"
)

// A pin is a folder of the student's tree that a build must see exactly as
// de's own copy has it: Dir (slash-separated, from the course root) holds
// the build files of Dir in FS, no more and no fewer.
type pin struct {
	FS  fs.FS
	Dir string
}

// writePinOverlay writes, in the folder tmp, a go build overlay (go help
// build, -overlay) that pins each folder of the student's tree at root: every
// build file of the pin's copy is put in its place, whatever the student's
// folder holds, and every build file the student's folder has beyond them is
// taken out of the build. A folder the student's tree lacks (a student
// template has no solutions/) is added whole. It returns the overlay file's
// path.
//
// de grade builds the drills this way: on the reference engine de carries
// (the root package's Reference) and with the drills' own files as de has
// them, so that neither a changed solutions/ nor a file added to a drill's
// folder under a tag only that build sets can change a drill's grade.
func writePinOverlay(root, tmp string, pins []pin) (string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	replace := map[string]string{}
	for _, p := range pins {
		entries, err := fs.ReadDir(p.FS, p.Dir)
		if err != nil {
			return "", fmt.Errorf("pin %s: %w", p.Dir, err)
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() || !slices.Contains(buildExts, path.Ext(e.Name())) {
				continue
			}
			names = append(names, e.Name())
			data, err := fs.ReadFile(p.FS, path.Join(p.Dir, e.Name()))
			if err != nil {
				return "", fmt.Errorf("pin %s: %w", p.Dir, err)
			}
			copyPath := filepath.Join(tmp, filepath.FromSlash(p.Dir), e.Name())
			if err := os.MkdirAll(filepath.Dir(copyPath), 0o755); err != nil {
				return "", fmt.Errorf("pin %s: %w", p.Dir, err)
			}
			if err := os.WriteFile(copyPath, data, 0o644); err != nil {
				return "", fmt.Errorf("pin %s: %w", p.Dir, err)
			}
			replace[filepath.Join(root, filepath.FromSlash(p.Dir), e.Name())] = copyPath
		}
		theirs, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(p.Dir)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("pin %s: %w", p.Dir, err)
		}
		for _, e := range theirs {
			if !e.IsDir() && slices.Contains(buildExts, path.Ext(e.Name())) && !slices.Contains(names, e.Name()) {
				replace[filepath.Join(root, filepath.FromSlash(p.Dir), e.Name())] = "" // "": deleted, for the build
			}
		}
	}
	return gotest.WriteOverlay(tmp, replace)
}
