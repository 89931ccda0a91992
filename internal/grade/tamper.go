package grade

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/build/constraint"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/catalog"
)

// Change is how a graded file differs from the pristine course.
type Change string

// The ways a file can differ.
const (
	Modified Change = "modified" // present, with other contents
	Missing  Change = "missing"  // in the course, not in the student's tree
	Added    Change = "added"    // compiled into a suite, but not part of the course
)

// FileChange is one file of the student's tree that differs from the
// pristine course.
type FileChange struct {
	Path   string `json:"path"`   // slash-separated, relative to the course root
	Change Change `json:"change"` // modified, missing or added
	// Stage is the ID of the one stage or drill the file belongs to
	// ("03-lateness", "drills/01-quiet-partition"); "drills" for the
	// drills' shared engine binding, which affects every drill; empty
	// when it is shared (go.mod, kit, suite helpers) and so affects every
	// stage and drill.
	Stage string `json:"stage,omitempty"`
	Want  string `json:"sha256,omitempty"`       // the pristine file's SHA-256
	Got   string `json:"found_sha256,omitempty"` // the student's file's SHA-256
}

// Affects reports whether the change withholds credit from the stage with
// the given ID.
func (c FileChange) Affects(stageID string) bool {
	return c.Stage == "" || c.Stage == stageID
}

// Manifest returns the SHA-256 (hex) of every graded file in pristine, by
// slash-separated path: go.mod and every file the go tool compiles into a
// stage's test binary (kit's and the helpers' own tests are left out). Contents are hashed with CRLF line endings turned
// into LF, so a checkout on Windows (git autocrlf) matches.
func Manifest(pristine fs.FS) (map[string]string, error) {
	tags, err := rerunTags(pristine)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	err = fs.WalkDir(pristine, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (p != "go.mod" && !compiled(p)) {
			return err
		}
		data, err := fs.ReadFile(pristine, p)
		if err != nil {
			return err
		}
		if p != "go.mod" && !gradedBuild(data, buildTags(p, tags)) {
			return nil
		}
		m[p] = hashOf(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pristine course files: %w", err)
	}
	return m, nil
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	return hex.EncodeToString(sum[:])
}

// Verify compares the student's tree at root with the pristine files and
// returns every difference, sorted by path: pristine files that were
// modified or removed, and files added where they would be compiled into a
// suite (a stage folder, kit/, internal/suite/, internal/windowtest/). An
// added _test.go file in kit or a helper is ignored: go test never compiles
// a dependency's tests.
func Verify(root string, pristine fs.FS) ([]FileChange, error) {
	manifest, err := Manifest(pristine)
	if err != nil {
		return nil, err
	}
	tags, err := rerunTags(pristine)
	if err != nil {
		return nil, err
	}
	var changes []FileChange
	dirs := map[string]bool{}
	for p, want := range manifest {
		dirs[path.Dir(p)] = true
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, FileChange{Path: p, Change: Missing, Stage: stageOf(p), Want: want})
		case err != nil:
			return nil, fmt.Errorf("check %s: %w", p, err)
		default:
			if got := hashOf(data); got != want {
				changes = append(changes, FileChange{Path: p, Change: Modified, Stage: stageOf(p), Want: want, Got: got})
			}
		}
	}
	for dir := range dirs {
		if dir == "." {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // its files are all reported missing
		}
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", dir, err)
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if _, ok := manifest[p]; ok || e.IsDir() || !compiled(p) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				return nil, fmt.Errorf("check %s: %w", p, err)
			}
			if !gradedBuild(data, buildTags(p, tags)) {
				continue
			}
			changes = append(changes, FileChange{Path: p, Change: Added, Stage: stageOf(p), Got: hashOf(data)})
		}
	}
	slices.SortFunc(changes, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// buildExts are the file name extensions the go tool compiles or links
// into a package.
var buildExts = []string{".go", ".s", ".S", ".sx", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx"}

// compiled reports whether the go tool would build the file into the
// stage suites: a build file, not ignored (a leading _ or . in its name or
// a folder's), and for the shared packages not a test file.
func compiled(p string) bool {
	for _, elem := range strings.Split(p, "/") {
		if strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return false // the go tool ignores such files and folders (a stage's _skeleton/)
		}
	}
	if !slices.Contains(buildExts, path.Ext(p)) {
		return false
	}
	return stageOf(p) != "" || !strings.HasSuffix(p, "_test.go")
}

// stageOf returns the stage ID of a file in a stage folder
// ("stages/03-lateness/x_test.go" → "03-lateness") or the drill ID of a
// file in a drill's folder ("drills/01-quiet-partition/x_test.go" →
// "drills/01-quiet-partition", its engine binding's included), or "" for a
// file every stage shares.
func stageOf(p string) string {
	parts := strings.Split(p, "/")
	switch {
	case len(parts) == 3 && parts[0] == "stages":
		return parts[1]
	case len(parts) >= 3 && parts[0] == "drills":
		return "drills/" + parts[1] // its checks, and its engine binding (drills/NN-slug/engine/)
	}
	return ""
}

// rerunTags returns the build tags of the pristine catalogue's rerun passes
// (catalog.Stage.Reruns: statebackend_heap, statebackend_pebble), each a
// build of the suites that de grade runs beside -tags lab.
func rerunTags(pristine fs.FS) ([]string, error) {
	if _, err := fs.Stat(pristine, "stages/catalog.json"); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a course without a catalogue (a test's) has no passes
	}
	sub, err := fs.Sub(pristine, "stages")
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(sub)
	if err != nil {
		return nil, fmt.Errorf("pristine course files: %w", err)
	}
	var tags []string
	for _, st := range cat.Stages {
		for _, r := range st.Reruns {
			if !slices.Contains(tags, r.Tag) {
				tags = append(tags, r.Tag)
			}
		}
	}
	return tags, nil
}

// buildTags returns the extra tags of de grade's builds that can compile
// the file p, besides -tags lab: the rerun passes' (reruns), and drillref,
// the drills' build, for every file but a drill folder's own: runDrills pins
// those to de's copies, so a file there that only the drills' build would
// compile (the reference engine binding, engine_ref.go, which a student
// template does not have) cannot change a grade.
func buildTags(p string, reruns []string) []string {
	if strings.HasPrefix(p, "drills/") {
		return reruns
	}
	return append(slices.Clip(reruns), catalog.DrillReferenceEngineTag)
}

// gradedBuild reports whether a Go file's build constraint lets it into a
// build de grade runs (-tags lab, with or without -race and cgo, on this machine,
// and -tags lab,<tag> for each of tags: see buildTags). A file they all
// leave out cannot change a grade: the reference's bind files (-tags
// solution), for one. A file without a constraint, or one that does not
// parse, is graded.
func gradedBuild(src []byte, tags []string) bool {
	for line := range strings.Lines(string(src)) {
		line = strings.TrimSpace(line)
		if constraint.IsGoBuild(line) {
			expr, err := constraint.Parse(line)
			if err != nil {
				return true
			}
			// Every build de grade may run: each extra tag, with and without
			// -race (the reruns and --race=false build without it) and cgo
			// (a machine without a C compiler builds without it).
			for _, extra := range append([]string{""}, tags...) {
				for _, race := range []bool{true, false} {
					for _, cgo := range []bool{true, false} {
						if expr.Eval(func(tag string) bool { return gradeTag(tag, extra, race, cgo) }) {
							return true
						}
					}
				}
			}
			return false
		}
		if line != "" && !strings.HasPrefix(line, "//") {
			return true // the constraint must come before the package clause
		}
	}
	return true
}

// gradeTag reports whether tag is set in de grade's build with the extra
// tag extra ("" for none), with or without -race and cgo.
func gradeTag(tag, extra string, race, cgo bool) bool {
	switch tag {
	case "race":
		return race
	case "cgo":
		return cgo
	case "lab", "gc", runtime.GOOS, runtime.GOARCH:
		return true
	case "unix":
		return runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	}
	return (extra != "" && tag == extra) || strings.HasPrefix(tag, "go1.")
}
