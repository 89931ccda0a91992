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
	Fingerprints int     `json:"fingerprints"` // how many it has, the skeletons' subtracted
	Flagged      bool    `json:"flagged"`      // Share ≥ CopyThreshold, with enough fingerprints to judge
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
