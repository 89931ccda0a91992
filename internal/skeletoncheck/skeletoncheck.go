// Package skeletoncheck proves that the course's tests are tests: for each
// stage N, a scratch copy of the course gets a lab/ composed of the
// untouched skeletons 01..N, suites 01..N must compile against it, and no
// test of stage N may pass there. A test that passes on a skeleton cannot
// fail, and so certifies nothing.
//
// A drill is checked the same way against its untouched job (copied into
// lab/drills/, run on the reference engine): its reproduce tests, named
// TestReproduce…, must fail there, since a drill starts from the symptom.
// Its other checks may pass on the broken job (results that are right,
// only late, are right), so only the reproduce tests are held to it.
package skeletoncheck

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/gotest"
)

// SkeletonResult is the check of one stage against skeletons 01..N.
type SkeletonResult struct {
	Stage    catalog.Stage
	Tests    int      // tests of stage N that ran
	Failed   int      // of those, how many failed (all of them, if sound)
	Problems []string // what is wrong; empty when the stage is sound
}

// Skeletons checks every given stage. It returns an error only when the
// check itself could not run; unsound stages are reported in the results.
// progress, when not nil, is told as each stage starts.
func Skeletons(ctx context.Context, root string, cat *catalog.Catalog, stages []catalog.Stage, progress func(catalog.Stage)) ([]SkeletonResult, error) {
	var results []SkeletonResult
	for _, st := range stages {
		if progress != nil {
			progress(st)
		}
		check := checkStage
		if st.Track == catalog.Drill {
			check = checkDrill
		}
		r, err := check(ctx, root, cat, st)
		if err != nil {
			return results, fmt.Errorf("skeleton check of %s: %w", st.ID(), err)
		}
		results = append(results, r)
	}
	return results, nil
}

func checkStage(ctx context.Context, root string, cat *catalog.Catalog, st catalog.Stage) (SkeletonResult, error) {
	res := SkeletonResult{Stage: st}
	scratch, err := os.MkdirTemp("", "flk-skeleton-"+st.ID()+"-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(scratch)
	if err := coursedir.CopyForSuites(root, scratch); err != nil {
		return res, err
	}
	upTo := cat.ReadyThrough(st.Number)
	if _, err := coursedir.CopySkeletons(scratch, cat, upTo); err != nil {
		return res, err
	}
	opts := gotest.Options{Dir: scratch, Tags: "lab", Timeout: 2 * time.Minute}
	for _, s := range upTo {
		opts.Packages = append(opts.Packages, s.Package())
	}
	// A test that crashes the binary on the skeleton must not hide the
	// tests after it: run them past the crash.
	out, err := gotest.RunPastCrashes(ctx, opts, cat.TestsByPackage(upTo), nil)
	if err != nil {
		return res, err
	}
	for _, s := range upTo {
		pkg := out.Package(s.Package())
		switch {
		case pkg == nil:
			res.Problems = append(res.Problems, fmt.Sprintf("suite %s did not run against skeletons 01..%02d: %s", s.ID(), st.Number, strings.Join(out.Errors, "; ")))
		case pkg.BuildError != "":
			res.Problems = append(res.Problems, fmt.Sprintf("suite %s does not compile against skeletons 01..%02d:\n%s", s.ID(), st.Number, pkg.BuildError))
		case s.Number == st.Number:
			for _, t := range pkg.Tests {
				res.Tests++
				if t.Status == gotest.Fail {
					res.Failed++
				} else {
					res.Problems = append(res.Problems, fmt.Sprintf("%s %s on the untouched skeleton: it cannot catch a learner who has done nothing", t.Name, t.Status))
				}
			}
			docs, err := cat.Tests(s)
			if err != nil {
				return res, err
			}
			for _, d := range docs {
				if !slices.ContainsFunc(pkg.Tests, func(t gotest.Test) bool { return t.Name == d.Name }) {
					res.Problems = append(res.Problems, fmt.Sprintf("%s did not run on the untouched skeleton", d.Name))
				}
			}
			if res.Tests == 0 {
				res.Problems = append(res.Problems, "no test of the stage ran")
			}
		}
	}
	// The stage's rerun passes (stage 12: stages 01 and 03 on its
	// BackendProcessor) must build against the skeletons too, and fail
	// every test there: the learner's BackendProcessor is still a TODO.
	for _, r := range st.Reruns {
		ro := opts
		ro.Tags, ro.Packages = r.Tags("lab"), nil
		for _, s := range r.Stages {
			ro.Packages = append(ro.Packages, s.Package())
		}
		out, err := gotest.RunPastCrashes(ctx, ro, cat.TestsByPackage(r.Stages), nil)
		if err != nil {
			return res, err
		}
		for _, s := range r.Stages {
			pkg := out.Package(s.Package())
			switch {
			case pkg == nil:
				res.Problems = append(res.Problems, fmt.Sprintf("suite %s under -tags %s did not run against skeletons 01..%02d: %s", s.ID(), ro.Tags, st.Number, strings.Join(out.Errors, "; ")))
			case pkg.BuildError != "":
				res.Problems = append(res.Problems, fmt.Sprintf("suite %s under -tags %s does not compile against skeletons 01..%02d:\n%s", s.ID(), ro.Tags, st.Number, pkg.BuildError))
			default:
				for _, t := range pkg.Tests {
					if t.Status != gotest.Fail {
						res.Problems = append(res.Problems, fmt.Sprintf("%s of %s %s under -tags %s on the untouched skeleton", t.Name, s.ID(), t.Status, ro.Tags))
					}
				}
			}
		}
	}
	return res, nil
}

// ReproducePrefix starts the name of every test of a drill that reproduces
// its symptom: each must fail on the untouched job.
const ReproducePrefix = "TestReproduce"

func checkDrill(ctx context.Context, root string, cat *catalog.Catalog, d catalog.Stage) (SkeletonResult, error) {
	res := SkeletonResult{Stage: d}
	scratch, err := os.MkdirTemp("", "flk-drill-"+d.Slug+"-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(scratch)
	if err := coursedir.CopyForSuites(root, scratch); err != nil {
		return res, err
	}
	if _, err := coursedir.CopySkeletons(scratch, cat, []catalog.Stage{d}); err != nil {
		return res, err
	}
	opts := gotest.Options{Dir: scratch, Tags: catalog.DrillReferenceEngine, Timeout: 2 * time.Minute, Packages: []string{d.Package()}}
	out, err := gotest.RunPastCrashes(ctx, opts, cat.TestsByPackage([]catalog.Stage{d}), nil)
	if err != nil {
		return res, err
	}
	pkg := out.Package(d.Package())
	switch {
	case pkg == nil:
		res.Problems = append(res.Problems, fmt.Sprintf("drill %s did not run against its untouched job: %s", d.Slug, strings.Join(out.Errors, "; ")))
		return res, nil
	case pkg.BuildError != "":
		res.Problems = append(res.Problems, fmt.Sprintf("drill %s does not compile against its untouched job:\n%s", d.Slug, pkg.BuildError))
		return res, nil
	}
	for _, t := range pkg.Tests {
		if !strings.HasPrefix(t.Name, ReproducePrefix) {
			continue
		}
		res.Tests++
		if t.Status == gotest.Fail {
			res.Failed++
		} else {
			res.Problems = append(res.Problems, fmt.Sprintf("%s %s on the untouched job: it does not reproduce the symptom", t.Name, t.Status))
		}
	}
	if res.Tests == 0 {
		res.Problems = append(res.Problems, "no "+ReproducePrefix+"… test ran: a drill starts from a test that shows the symptom")
	}
	return res, nil
}
