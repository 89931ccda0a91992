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

// CopyThreshold is the share of a lab file found in a reference file at
// which the report flags the file as a close copy. A renamed and
// reformatted copy of the reference scores about 1, a solution written
// independently from the card about 0.1 (internal/similarity's
// calibration): the flag is for a person to look, and takes no points.
const CopyThreshold = 0.5

// Similarity is how close one lab file is to the reference.
type Similarity struct {
	File      string  `json:"file"`      // "lab/windows.go"
	Reference string  `json:"reference"` // the closest reference file, "solutions/windows.go"
	Share     float64 `json:"share"`     // the share of the file's fingerprints found there, 0 to 1, two decimals
	Flagged   bool    `json:"flagged"`   // Share ≥ CopyThreshold: a close copy
}

// Similarities compares each Go file of root/lab (tests excluded) with
// every file of the reference's plain build in ref, with what the
// skeletons of every stage share with any solution subtracted, and returns
// each lab file's closest reference file, sorted by file. A file that does
// not scan is left out (go test reports it).
func Similarities(root string, cat *catalog.Catalog, ref fs.FS) ([]Similarity, error) {
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
				for h := range fp {
					base[h] = struct{}{}
				}
			}
		}
	}
	refs := map[string]similarity.Set{}
	var names []string
	for _, pattern := range []string{"solutions/*.go", "solutions/pebblestate/*.go"} {
		found, err := fs.Glob(ref, pattern)
		if err != nil {
			return nil, err
		}
		names = append(names, found...)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_fast.go") {
			continue
		}
		data, err := fs.ReadFile(ref, name)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", name, err)
		}
		fp, err := similarity.Fingerprints(data)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", name, err)
		}
		refs[name] = fp.Minus(base)
	}
	labFiles, err := filepath.Glob(filepath.Join(root, "lab", "*.go"))
	if err != nil {
		return nil, err
	}
	out := []Similarity{}
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
		s := Similarity{File: path.Join("lab", filepath.Base(file))}
		for _, name := range slices.Sorted(maps.Keys(refs)) {
			if share := similarity.Share(fp, refs[name]); share > s.Share {
				s.Share, s.Reference = share, name
			}
		}
		s.Share = float64(int(s.Share*100+0.5)) / 100
		s.Flagged = s.Share >= CopyThreshold
		out = append(out, s)
	}
	return out, nil
}
