package grade

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/similarity"
)

// CopyThreshold is the share of a lab file's statements, or of the whole
// lab's, found in one of the course's solutions at which the report flags
// it as a close copy. Calibrated on the course (internal/similarity's
// TestCalibration): the reference reshaped as a copier would (files
// merged, declarations reversed, renamed, statements swapped, functions
// split) is found at 0.99; a lab written apart from it from the cards
// alone shares 0.24 to 0.49 of its statements as a whole from stage 02 to
// 12, and at most 0.41 in a file.
const CopyThreshold = 0.7

// MinFileFingerprints is how many statements a lab file must have (its
// fingerprints, less the skeletons') to be judged alone: a small file, or
// a thin wrapper around an API (Pebble's), holds the statements any
// solution writes. It is judged as part of the lab.
const MinFileFingerprints = 30

// MinLabFingerprints is how many the lab as a whole must have to be
// judged: an untouched skeleton has none.
const MinLabFingerprints = 10

// LabWhole is the File of the Similarity that judges the lab as a whole.
const LabWhole = "lab/"

// Similarity is how close a lab file, or the lab as a whole, is to the
// closest of the course's own solutions.
type Similarity struct {
	File string `json:"file"` // "lab/windows.go", or "lab/" for the lab as a whole
	// Solution is the course's solution it is closest to: "solutions" (the
	// reference) or "solutions/independent" (a lab written apart from the
	// reference, which ships with the course too).
	Solution string `json:"solution"`
	// Reference is the file of that solution that holds most of it.
	Reference    string  `json:"reference"`
	Share        float64 `json:"share"`        // the share of its fingerprints found in the solution, 0 to 1, two decimals
	Fingerprints int     `json:"fingerprints"` // how many it has, the skeletons' subtracted (a drill's: its changed statements)
	// TaskID is, for a drill's job, its drill's task_id; 0 for the lab.
	TaskID int `json:"task_id,omitempty"`
	// CopiedComments is, for a drill's job, how many of the reference fix's
	// own comment lines it holds.
	CopiedComments int  `json:"copied_comments,omitempty"`
	Flagged        bool `json:"flagged"` // Share ≥ CopyThreshold with enough fingerprints to judge (a drill: or copied comments)
}

// Policy is what a flagged similarity costs.
type Policy string

// The policies: Withhold (the default) gives every stage of a flagged lab
// status review and no points until a person has looked, so that a copy
// never passes unseen; Credit keeps the points and marks the report, and
// Classroom's result, as not a plain pass.
const (
	Withhold Policy = "withhold"
	Credit   Policy = "credit"
)

// Solution is one of the course's own solutions, which ship with it and
// which a lab is measured against: the files of FS matching Patterns.
type Solution struct {
	Name     string   // how reports name it: "solutions", "solutions/independent"
	FS       fs.FS    // the files, from de's own copy (the root package's embeds)
	Patterns []string // which files of FS are its Go source (tests excluded)
}

// Solutions are the course's own solutions: the reference (both builds,
// and stage 12's Pebble backend) in ref, and the lab written apart from it
// in independent (the root package's Reference and Independent).
func Solutions(ref, independent fs.FS) []Solution {
	return []Solution{
		{Name: "solutions", FS: ref, Patterns: []string{"solutions/*.go", "solutions/pebblestate/*.go"}},
		{Name: "solutions/independent", FS: independent, Patterns: []string{"solutions/independent/*.go.txt"}},
	}
}

// solution is one of the course's own solutions, measured: its files'
// fingerprints.
type solution struct {
	dir   string
	files map[string]similarity.Set // path → fingerprints, the base subtracted
	all   similarity.Set
}

// Similarities compares each Go file of root/lab (tests excluded), and the
// lab as a whole, with each of sols, with what the skeletons of every
// stage share with any solution subtracted, and returns each lab file's
// closest solution, sorted by file, then the lab as a whole. A file that
// does not parse is left out (go test reports it).
func Similarities(root string, cat *catalog.Catalog, sols []Solution) ([]Similarity, error) {
	base, err := skeletonBase(cat)
	if err != nil {
		return nil, err
	}
	var measured []solution
	for _, s := range sols {
		sol := solution{dir: s.Name, files: map[string]similarity.Set{}, all: similarity.Set{}}
		for _, pattern := range s.Patterns {
			names, err := fs.Glob(s.FS, pattern)
			if err != nil {
				return nil, err
			}
			for _, name := range names {
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				data, err := fs.ReadFile(s.FS, name)
				if err != nil {
					return nil, fmt.Errorf("solution %s: %w", name, err)
				}
				fp, err := similarity.Fingerprints(data)
				if err != nil {
					return nil, fmt.Errorf("solution %s: %w", name, err)
				}
				sol.files[name] = fp.Minus(base)
				sol.all.Add(sol.files[name])
			}
		}
		if len(sol.files) > 0 {
			measured = append(measured, sol)
		}
	}
	labFiles, err := filepath.Glob(filepath.Join(root, "lab", "*.go"))
	if err != nil {
		return nil, err
	}
	out := []Similarity{}
	whole := similarity.Set{}
	for _, file := range labFiles {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		fp, err := similarity.Fingerprints(data)
		if err != nil {
			continue
		}
		fp = fp.Minus(base)
		whole.Add(fp)
		out = append(out, closest(path.Join("lab", filepath.Base(file)), fp, measured, MinFileFingerprints))
	}
	if len(out) > 0 {
		out = append(out, closest(LabWhole, whole, measured, MinLabFingerprints))
	}
	return out, nil
}

// skeletonBase is what the skeletons of every stage give any solution.
func skeletonBase(cat *catalog.Catalog) (similarity.Set, error) {
	base := similarity.Set{}
	for _, st := range cat.Stages {
		names, err := cat.SkeletonFiles(st)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			data, err := cat.SkeletonFile(st, name)
			if err != nil {
				return nil, err
			}
			if fp, err := similarity.Fingerprints(data); err == nil {
				base.Add(fp)
			}
		}
	}
	return base, nil
}

// closest measures fp, named file, against each solution and returns the
// closest, flagged when it has at least min fingerprints.
func closest(file string, fp similarity.Set, sols []solution, min int) Similarity {
	s := Similarity{File: file, Fingerprints: len(fp)}
	for _, sol := range sols {
		share := similarity.Share(fp, sol.all)
		if share <= s.Share && s.Solution != "" {
			continue
		}
		s.Share, s.Solution, s.Reference = share, sol.dir, ""
		most := 0.0
		for _, name := range slices.Sorted(maps.Keys(sol.files)) {
			if in := similarity.Share(fp, sol.files[name]); in > most {
				most, s.Reference = in, name
			}
		}
	}
	s.Share = float64(int(s.Share*100+0.5)) / 100
	s.Flagged = s.Share >= CopyThreshold && len(fp) >= min
	return s
}

// Drills' fixes are judged apart: the job is handed out whole and its fix
// is a few lines, so what a drill's job shares with the reference fix is
// measured on what each changed of the handed-out job, statement by
// statement (of at least drillMinTokens tokens), and by the reference
// fix's own comment lines found in the job. Calibrated on the six drills
// (TestDrillCalibration): a reference fix used as the job shares all its
// changed statements (3 to 38 of them) and 34 to 63 comment lines with
// itself; a fix written apart from it from the card alone shares 0.25 to
// 0.63 of its statements when it changed 4 or more (and all 3 of the
// one-setting fix, which is what any right answer looks like), and at most
// one comment line.
const (
	drillMinTokens = 4
	// drillShare is the share of its changed statements a fix must share
	// with the reference fix to be flagged by them, when it changed at
	// least drillMinFix: a fix retyped from the reference shares them all.
	drillShare  = 0.9
	drillMinFix = 8
	// drillCopiedComments is how many of the reference fix's own comment
	// lines (40 bytes or more, not the handed-out job's) flag a job: a
	// writer's explanation, word for word, is no coincidence.
	drillCopiedComments = 3
)

// DrillSimilarities measures the job in lab/drills/<package>/ of each of
// drills against its reference fix (solutions/drills/<package>/ in ref),
// with the handed-out job (the drill's _job/ in pristine) subtracted from
// both: one Similarity each, File the job's folder, Fingerprints the
// changed statements of the student's job, Share the part of them the
// reference fix changed alike, CopiedComments the reference fix's own
// comment lines found in it. A drill without a job in lab/ has no entry.
func DrillSimilarities(root string, drills []catalog.Stage, pristine, ref fs.FS) ([]Similarity, error) {
	var out []Similarity
	for _, d := range drills {
		jobDir := filepath.Join(root, filepath.FromSlash(d.JobDir()))
		if _, err := os.Stat(jobDir); err != nil {
			continue
		}
		handed, handedComments, err := goFiles(pristine, path.Join(d.Dir(), "_job"))
		if err != nil {
			return nil, err
		}
		fixDir := "solutions/drills/" + d.JobPackage
		fix, fixComments, err := goFiles(ref, fixDir)
		if err != nil {
			return nil, err
		}
		job, jobComments, err := goFiles(os.DirFS(root), d.JobDir())
		if err != nil {
			continue // a job that does not parse is go test's to report
		}
		changed, refChanged := job.Minus(handed), fix.Minus(handed)
		s := Similarity{File: d.JobDir() + "/", Solution: fixDir, Reference: fixDir, Fingerprints: len(changed), TaskID: TaskID(d)}
		s.Share = float64(int(similarity.Share(changed, refChanged)*100+0.5)) / 100
		for line := range fixComments {
			if !handedComments[line] && jobComments[line] {
				s.CopiedComments++
			}
		}
		s.Flagged = (s.Share >= drillShare && len(changed) >= drillMinFix) || s.CopiedComments >= drillCopiedComments
		out = append(out, s)
	}
	return out, nil
}

// goFiles reads the Go files (tests excluded) of folder dir of fsys: their
// statement fingerprints, at drillMinTokens, and their comment lines.
func goFiles(fsys fs.FS, dir string) (similarity.Set, map[string]bool, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	fps, comments := similarity.Set{}, map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, err
		}
		fp, err := similarity.FingerprintsMin(data, drillMinTokens)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		fps.Add(fp)
		lines, _ := similarity.CommentLines(data)
		for l := range lines {
			comments[l] = true
		}
	}
	return fps, comments, nil
}
