// Package grade scores a student's course tree for an instructor: it runs
// the suites of the graded stages against lab/ with `go test -json`, gives
// each test its share of its stage's points (partial credit), checks the
// tree against the pristine course files the running `de` was built with
// (tamper evidence: no credit for a stage whose tests, bind files, kit or
// suite helpers were changed), and renders the result as text, JSON (a
// schema modelled on Exercism's test-runner results, documented in
// docs/GRADING.md), JUnit XML or a markdown summary.
package grade

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/labpolicy"
	"github.com/flk-byo/course/internal/sandbox"
)

// SchemaVersion is the version of the JSON report's schema. Version 2 added
// the status "review" and the report's lab_findings; version 3 measures
// similarity against each of the course's solutions as a whole (a
// similarity's solution and fingerprints, and an entry for the lab as a
// whole), withholds points for it by default, and adds similar_policy.
const SchemaVersion = 3

// Status is the outcome of a test, a stage or a whole grading run.
type Status string

// The outcomes. Error means there is no trustworthy result: the suite did
// not compile or run, its files were changed, or the lab imports code the
// student did not write. Review means the lab uses a construct that can
// forge or escape a test (internal/labpolicy): no points until a person has
// looked.
const (
	Pass   Status = "pass"
	Fail   Status = "fail"
	Error  Status = "error"
	Review Status = "review"
	// Skip is a test this system cannot run (a torn write off Linux): it is
	// left out of its stage's points, worth 0 of 0.
	Skip Status = "skip"
)

// Report is the result of grading one tree. Its JSON form is the schema
// documented in docs/GRADING.md.
type Report struct {
	Version int    `json:"version"`
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	Course  string `json:"course"`
	// DeVersion is the module version of the de that graded (its course
	// version, e.g. "v1.2.0"; "(devel)" for a de built from a checkout).
	DeVersion string       `json:"de_version,omitempty"`
	Points    int          `json:"points"`
	MaxPoints int          `json:"max_points"`
	Score     float64      `json:"score"` // percent of MaxPoints, one decimal
	Tampered  []FileChange `json:"tampered"`
	// LabFindings are the lab's uses of what a lab must not use.
	LabFindings []LabFinding `json:"lab_findings"`
	// Similarity says, for each lab file and for the lab as a whole, how
	// close it is to the closest of the course's own solutions.
	Similarity []Similarity `json:"similarity"`
	// SimilarPolicy is what a flagged similarity costs: Withhold or Credit.
	SimilarPolicy Policy        `json:"similar_policy"`
	Stages        []StageResult `json:"stages"`
	Tests         []TestResult  `json:"tests"`
}

// LabFinding is one use, in lab/, of something a lab must not use: an
// import (kind "import": no credit) or a construct that can forge or
// escape a test (kind "review").
type LabFinding struct {
	Kind   labpolicy.Kind `json:"kind"`
	File   string         `json:"file"` // slash-separated, from the course root: "lab/windows.go"
	Line   int            `json:"line"`
	Column int            `json:"column"`
	What   string         `json:"what"`
	Why    string         `json:"why"`
}

func (f LabFinding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Column, f.What, f.Why)
}

// StageResult is one graded stage.
type StageResult struct {
	TaskID      int    `json:"task_id"` // the stage number; for a drill 100 + its number (TaskID)
	Stage       string `json:"stage"`   // the stage ID, "03-lateness"
	Ref         string `json:"ref"`     // "FLK-BYO/03"
	Title       string `json:"title"`
	Status      Status `json:"status"`
	Message     string `json:"message,omitempty"`
	Points      int    `json:"points"`
	MaxPoints   int    `json:"max_points"`
	TestsPassed int    `json:"tests_passed"`
	TestsTotal  int    `json:"tests_total"`
}

// TestResult is one test of a graded stage.
type TestResult struct {
	Name      string  `json:"name"`
	Status    Status  `json:"status"`
	Message   string  `json:"message,omitempty"`
	TaskID    int     `json:"task_id"`
	Stage     string  `json:"stage"`
	Points    int     `json:"points"`
	MaxPoints int     `json:"max_points"`
	Certifies string  `json:"certifies,omitempty"`
	Duration  float64 `json:"duration_seconds"`
}

// TaskID returns the task_id of a stage's results, its number, or of a
// drill's, 100 + its number: drills are numbered among themselves, and a
// report that grades both must keep them apart.
func TaskID(st catalog.Stage) int {
	if st.Track == catalog.Drill {
		return 100 + st.Number
	}
	return st.Number
}

// Options describe one grading run.
type Options struct {
	Root        string           // the student's course root
	Catalog     *catalog.Catalog // the pristine catalogue: stages, points, the tests each suite must report
	Stages      []catalog.Stage  // the stages to grade
	Pristine    fs.FS            // the pristine files (the root package's Files)
	Reference   fs.FS            // the reference's files (the root package's Reference): the drills' engine
	Solutions   []Solution       // the course's own solutions a lab is measured against (Solutions)
	Race        bool             // build with the race detector
	Timeout     time.Duration    // per stage
	TestTimeout time.Duration    // per test (Linux): a test running longer is stopped and reported hung
	OnTest      func(pkg string, t gotest.Test)
	// Similar is what a lab flagged as close to the course's own solutions
	// costs: Withhold (the default, "") or Credit.
	Similar Policy
	// AsUser, when set, runs the tests as that user, in a copy of the tree
	// root owns (internal/sandbox), so that the code under test can change
	// nothing of the grader's; Launcher is the de binary that launches
	// them. It needs Linux and root.
	AsUser, Launcher string
}

// Run grades the tree. It returns an error only when grading itself could
// not happen (go missing, an unreadable tree); a student's failing,
// non-compiling or tampered-with stage is part of the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	var exec string
	if o.AsUser != "" {
		sb, err := sandbox.New(o.Root, o.AsUser, o.Launcher)
		if err != nil {
			return nil, err
		}
		defer sb.Close()
		o.Root, exec = sb.Tree(), sb.Exec()
	}
	changes, err := Verify(o.Root, o.Pristine)
	if err != nil {
		return nil, err
	}
	findings, err := CheckLab(o.Root, o.Catalog, o.Pristine)
	if err != nil {
		return nil, err
	}
	similar, err := Similarities(o.Root, o.Catalog, o.Solutions)
	if err != nil {
		return nil, err
	}
	if o.Reference != nil {
		var drills []catalog.Stage
		for _, st := range o.Stages {
			if st.Track == catalog.Drill {
				drills = append(drills, st)
			}
		}
		fixes, err := DrillSimilarities(o.Root, drills, o.Pristine, o.Reference)
		if err != nil {
			return nil, err
		}
		similar = append(similar, fixes...)
	}
	opts := gotest.Options{
		Dir: o.Root, Tags: "lab", Race: o.Race, Timeout: o.Timeout, TestTimeout: o.TestTimeout, OnTest: o.OnTest,
		// A test is credited only when its suite's own report confirms it
		// (internal/verdict): the lab's code runs inside the test binary,
		// and what the binary prints is the lab's to forge.
		Verdicts: true,
		Exec:     exec,
		// A go.work or vendor/ folder in the student's tree could swap the
		// code the suites link; grade the module as go.mod describes it.
		Env: []string{"GOWORK=off", "GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly")},
	}
	var stages, drills []catalog.Stage
	for _, st := range o.Stages {
		if st.Track == catalog.Drill {
			drills = append(drills, st)
		} else {
			stages = append(stages, st)
		}
	}
	for _, st := range stages {
		opts.Packages = append(opts.Packages, st.Package())
	}
	// A test that crashes its binary takes the points of the tests after
	// it only if they fail on their own: run them past the crash.
	res := &gotest.Result{}
	if len(stages) > 0 {
		if res, err = gotest.RunPastCrashes(ctx, opts, o.Catalog.TestsByPackage(stages), nil); err != nil {
			return nil, err
		}
	}
	if len(drills) > 0 {
		dres, err := runDrills(ctx, o, opts, drills)
		if err != nil {
			return nil, err
		}
		res.Errors = append(res.Errors, dres.Errors...)
		res.Packages = append(res.Packages, dres.Packages...)
	}
	// The graded stages' rerun passes (stage 12: stages 01 and 03 on its
	// BackendProcessor, once per backend), one go test each, their
	// packages kept apart from the plain ones by rerunPackage.
	for _, st := range o.Stages {
		for _, r := range st.Reruns {
			// Without -race: BackendProcessor is one goroutine's, and
			// Pebble's own code under the race detector takes minutes.
			ro := opts
			ro.Tags, ro.Packages, ro.Race, ro.TestTimeout = r.Tags("lab"), nil, false, r.TestTimeout(o.TestTimeout)
			for _, earlier := range r.Stages {
				ro.Packages = append(ro.Packages, earlier.Package())
			}
			rres, err := gotest.RunPastCrashes(ctx, ro, o.Catalog.TestsByPackage(r.Stages), nil)
			if err != nil {
				return nil, err
			}
			res.Errors = append(res.Errors, rres.Errors...)
			for _, p := range rres.Packages {
				cp := *p
				cp.ImportPath += rerunSuffix(r.Tag)
				res.Packages = append(res.Packages, &cp)
			}
		}
	}
	// Check again after the run: go test builds one stage's suite while
	// another's runs, and a lab that writes files (stages 05 and 08) could
	// write into a suite before it is compiled.
	after, err := Verify(o.Root, o.Pristine)
	if err != nil {
		return nil, err
	}
	for _, c := range after {
		if !slices.ContainsFunc(changes, func(b FileChange) bool { return b.Path == c.Path }) {
			c.Change += " while the tests ran"
			changes = append(changes, c)
		}
	}
	return Build(o.Catalog, o.Stages, Checks{Changes: changes, Findings: findings, Similar: similar, Policy: o.Similar}, res)
}

// runDrills runs the drills' checks on the student's jobs, on the reference
// engine that de carries (o.Reference): -tags lab,drillref, with solutions/
// and each drill's folder and engine binding pinned to de's own copies
// (writePinOverlay). A drill grades the job, and the stages grade the
// engine: so a drill earns the same whether or not its stages have passed,
// and neither a changed solutions/ nor a student template without one
// changes it.
func runDrills(ctx context.Context, o Options, opts gotest.Options, drills []catalog.Stage) (*gotest.Result, error) {
	if _, err := fs.Stat(o.Reference, "solutions"); err != nil {
		return nil, errors.New("grading a drill needs the reference engine, which this de does not carry (it was built from a student template): grade with a de built from the full course")
	}
	tmp, err := os.MkdirTemp("", "de-grade-drills-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	pins := []pin{{FS: o.Reference, Dir: "solutions"}}
	for _, d := range drills {
		pins = append(pins, pin{FS: o.Pristine, Dir: d.Dir()}, pin{FS: o.Pristine, Dir: d.EngineDir()})
	}
	if opts.Overlay, err = writePinOverlay(o.Root, tmp, pins); err != nil {
		return nil, err
	}
	opts.Tags, opts.Packages = catalog.DrillReferenceEngine, nil
	for _, d := range drills {
		opts.Packages = append(opts.Packages, d.Package())
	}
	return gotest.RunPastCrashes(ctx, opts, o.Catalog.TestsByPackage(drills), nil)
}

// Checks are what grading finds in the tree itself, before any test runs.
type Checks struct {
	Changes  []FileChange // files that differ from the pristine course (tamper evidence)
	Findings []LabFinding // what the lab must not use
	Similar  []Similarity // how close each lab file, and the lab, is to the course's solutions
	Policy   Policy       // what a flagged similarity costs; "" is Withhold
}

// CheckLab checks the lab at root against internal/labpolicy's rules, with
// the imports the catalogue allows, and returns its findings.
func CheckLab(root string, cat *catalog.Catalog, pristine fs.FS) ([]LabFinding, error) {
	module, err := modulePath(pristine)
	if err != nil {
		return nil, err
	}
	found, err := labpolicy.Check(labpolicy.Options{
		Root: root, Module: module,
		AllowedImports: append([]string{module + "/kit"}, cat.LabImports()...),
		DrillImports:   drillImports(cat, module),
	})
	if err != nil {
		return nil, err
	}
	out := make([]LabFinding, len(found))
	for i, f := range found {
		out[i] = LabFinding{Kind: f.Kind, File: f.Pos.Filename, Line: f.Pos.Line, Column: f.Pos.Column, What: f.What, Why: f.Why}
	}
	return out, nil
}

// drillImports maps each drill job's folder name to the engine binding it
// may import: its own drill's (catalog.Stage.EngineDir).
func drillImports(cat *catalog.Catalog, module string) map[string][]string {
	m := map[string][]string{}
	for _, d := range cat.Drills {
		m[d.JobPackage] = []string{module + "/" + d.EngineDir()}
	}
	return m
}

// modulePath reads the module path from the pristine go.mod: imports of it
// (but kit) are the course's own code.
func modulePath(pristine fs.FS) (string, error) {
	data, err := fs.ReadFile(pristine, "go.mod")
	if err != nil {
		return "", fmt.Errorf("pristine go.mod: %w", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("pristine go.mod has no module line")
}

// Build scores the stages from a go test result and the checks of the tree.
func Build(cat *catalog.Catalog, stages []catalog.Stage, checks Checks, res *gotest.Result) (*Report, error) {
	if checks.Policy == "" {
		checks.Policy = Withhold
	}
	r := &Report{Version: SchemaVersion, Course: catalog.Course, Tampered: orEmpty(checks.Changes),
		LabFindings: orEmpty(checks.Findings), Similarity: orEmpty(checks.Similar), SimilarPolicy: checks.Policy,
		Stages: []StageResult{}, Tests: []TestResult{}}
	changes, findings := checks.Changes, checks.Findings
	for _, st := range stages {
		docs, err := cat.Tests(st)
		if err != nil {
			return nil, err
		}
		items, err := rerunItems(cat, st)
		if err != nil {
			return nil, err
		}
		var withheld string
		if close := closeCopies(checks.Similar, st); close != "" && checks.Policy == Withhold {
			withheld = "needs review: " + close + ", and its points wait for a person (de grade --similar credit keeps them)"
		}
		sr, tests := gradeStage(st, docs, items, changes, findings, withheld, res)
		r.Stages = append(r.Stages, sr)
		r.Tests = append(r.Tests, tests...)
		r.Points += sr.Points
		r.MaxPoints += sr.MaxPoints
	}
	if r.MaxPoints > 0 {
		r.Score = float64(r.Points*1000/r.MaxPoints) / 10
	}
	r.Status, r.Message = summarize(r)
	if checks.Policy == Credit && (r.Status == Pass || r.Status == Fail) && slices.ContainsFunc(checks.Similar, func(x Similarity) bool { return x.Flagged }) {
		// Credited, but never a plain pass: a person is to look.
		r.Message = strings.TrimPrefix(r.Message+"; close to the course's own solutions, credited for a person to judge", "; ")
		r.Status = Review
	}
	return r, nil
}

// closeCopies describes the flagged similarities that concern st, "" when
// none does: for a stage, the lab's ("the lab is close to the course's own
// solutions: lab/x.go (97% of its statements in solutions, most in
// solutions/x.go), …"); for a drill, its job's.
func closeCopies(sims []Similarity, st catalog.Stage) string {
	var parts []string
	for _, x := range sims {
		switch {
		case !x.Flagged:
		case st.Track == catalog.Drill && x.TaskID == TaskID(st):
			parts = append(parts, fmt.Sprintf("%.0f%% of its %d changed statements as %s changed them, %d of its comment lines",
				x.Share*100, x.Fingerprints, x.Solution, x.CopiedComments))
		case st.Track != catalog.Drill && x.TaskID == 0:
			what := x.File
			if what == LabWhole {
				what = "the lab as a whole"
			}
			parts = append(parts, fmt.Sprintf("%s (%.0f%% of its statements in %s, most in %s)", what, x.Share*100, x.Solution, x.Reference))
		}
	}
	switch {
	case len(parts) == 0:
		return ""
	case st.Track == catalog.Drill:
		return "the job is close to the drill's reference fix: " + strings.Join(parts, "; ")
	}
	return "the lab is close to the course's own solutions: " + strings.Join(parts, ", ")
}

// orEmpty returns xs, or an empty slice for nil: the report's arrays are
// always arrays in JSON.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// Shares splits a stage's points between its n tests as equally as whole
// points allow: the first points%n tests get one point more.
func Shares(points, n int) []int {
	shares := make([]int, n)
	for i := range shares {
		shares[i] = points / n
		if i < points%n {
			shares[i]++
		}
	}
	return shares
}

// rerunItem is one graded item of a stage with reruns: an earlier stage's
// whole suite, run again on this stage's code under one rerun tag. It
// counts as one test of the stage, which passes when every test of that
// suite passes: so the reruns weigh as much as a few of the stage's own
// tests, not as much as the earlier suites' dozens.
type rerunItem struct {
	name, certifies string
	earlier         catalog.Stage
	pkg             string // rerunPackage(earlier, tag)
	docs            []catalog.TestDoc
}

// rerunSuffix is what the import path of a rerun pass's package gets, so
// that its results stay apart from the plain pass's: " [statebackend_heap]".
func rerunSuffix(tag string) string { return " [" + tag + "]" }

// rerunPackage is the package pattern under which a graded Result holds the
// rerun pass of earlier under tag.
func rerunPackage(earlier catalog.Stage, tag string) string {
	return earlier.Package() + rerunSuffix(tag)
}

// rerunItems returns st's rerun items, in the catalogue's order.
func rerunItems(cat *catalog.Catalog, st catalog.Stage) ([]rerunItem, error) {
	var items []rerunItem
	for _, r := range st.Reruns {
		for _, earlier := range r.Stages {
			docs, err := cat.Tests(earlier)
			if err != nil {
				return nil, err
			}
			items = append(items, rerunItem{
				name:      fmt.Sprintf("%s/%s", earlier.ID(), r.Tag),
				certifies: fmt.Sprintf("every test of %s's suite (%d) passes on %s.", earlier.Ref(), len(docs), r.On),
				earlier:   earlier, pkg: rerunPackage(earlier, r.Tag), docs: docs,
			})
		}
	}
	return items, nil
}

// gradeRerun grades one rerun item from its pass's package: an error if
// the pass did not build or run or its stage's files were changed, a
// failure naming the tests that failed, else a pass.
func gradeRerun(it rerunItem, changes []FileChange, res *gotest.Result) (Status, string) {
	for _, c := range changes {
		if c.Affects(it.earlier.ID()) {
			return Error, fmt.Sprintf("not credited: files its tests depend on differ from the course: %s (%s)", c.Path, c.Change)
		}
	}
	pkg := res.Package(it.pkg)
	switch {
	case pkg == nil:
		return Error, "the suite did not run"
	case pkg.BuildError != "":
		return Error, "does not compile:\n" + strings.Join(limit(strings.Split(pkg.BuildError, "\n"), 20), "\n")
	}
	var missing, failed, unconfirmed []string
	for _, d := range it.docs {
		j := slices.IndexFunc(pkg.Tests, func(t gotest.Test) bool { return t.Name == d.Name })
		switch {
		case j < 0:
			missing = append(missing, d.Name)
		case pkg.Tests[j].Status != gotest.Pass:
			failed = append(failed, d.Name)
		case !pkg.Tests[j].Confirmed:
			unconfirmed = append(unconfirmed, d.Name+": "+pkg.Tests[j].Unconfirmed)
		}
	}
	switch {
	case len(missing) > 0:
		return Error, "did not run: " + strings.Join(limit(missing, 10), ", ")
	case len(unconfirmed) > 0:
		return Error, "not credited: " + strings.Join(limit(unconfirmed, 5), "; ")
	case len(failed) > 0:
		return Fail, fmt.Sprintf("%d of %d tests failed: %s", len(failed), len(it.docs), strings.Join(limit(failed, 10), ", "))
	}
	return Pass, ""
}

// gradeStage scores one stage. withheld, when set, puts every test of the
// stage to review, with no points, for that reason (a close copy, under
// Withhold), as the lab's review findings do.
func gradeStage(st catalog.Stage, docs []catalog.TestDoc, items []rerunItem, changes []FileChange, findings []LabFinding, withheld string, res *gotest.Result) (StageResult, []TestResult) {
	sr := StageResult{TaskID: TaskID(st), Stage: st.ID(), Ref: st.Ref(), Title: st.Title, MaxPoints: st.Points, TestsTotal: len(docs) + len(items)}
	var tampered []string
	for _, c := range changes {
		if c.Affects(st.ID()) {
			tampered = append(tampered, fmt.Sprintf("%s (%s)", c.Path, c.Change))
		}
	}
	var imports, review []string
	for _, f := range findings {
		if f.Kind == labpolicy.Import {
			imports = append(imports, f.String())
		} else {
			review = append(review, f.String())
		}
	}
	pkg := res.Package(st.Package())
	var stageErr, stageReview string
	switch {
	case len(tampered) > 0:
		stageErr = "not credited: files its tests depend on differ from the course: " + strings.Join(tampered, ", ")
	case len(imports) > 0:
		stageErr = "not credited: the lab imports code you did not write:\n" + strings.Join(limit(imports, 10), "\n")
	case len(review) > 0:
		stageReview = "needs review: the lab uses constructs that can forge or escape a test, so its results are not trusted:\n" +
			strings.Join(limit(review, 10), "\n")
	case withheld != "":
		stageReview = withheld
	case len(docs) == 0:
		stageErr = "the course has no tests for this stage"
	case pkg == nil:
		stageErr = "the suite did not run"
		if len(res.Errors) > 0 {
			stageErr += ": " + strings.Join(limit(res.Errors, 5), "; ")
		}
	case pkg.BuildError != "":
		stageErr = "does not compile:\n" + strings.Join(limit(strings.Split(pkg.BuildError, "\n"), 20), "\n")
	}
	// A test this system cannot run (suite.SkipUnsupported: a torn write
	// off Linux) is left out, its share going to the stage's other tests:
	// a grade here counts what can be graded here.
	unsupported := map[string]bool{}
	if pkg != nil && stageErr == "" && stageReview == "" {
		for _, t := range pkg.Tests {
			if t.Unsupported && slices.ContainsFunc(docs, func(d catalog.TestDoc) bool { return d.Name == t.Name }) {
				unsupported[t.Name] = true
			}
		}
	}
	sr.TestsTotal -= len(unsupported)
	shares := Shares(st.Points, max(len(docs)+len(items)-len(unsupported), 1))
	var tests []TestResult
	next := 0 // the next share to give
	for _, d := range docs {
		tr := TestResult{Name: d.Name, TaskID: TaskID(st), Stage: st.ID(), Certifies: d.Certifies}
		var t *gotest.Test
		if pkg != nil {
			if j := slices.IndexFunc(pkg.Tests, func(t gotest.Test) bool { return t.Name == d.Name }); j >= 0 {
				t = &pkg.Tests[j]
				tr.Duration = t.Elapsed.Seconds()
			}
		}
		if unsupported[d.Name] {
			tr.Status = Skip
			tr.Message = "not gradable on this system, and left out of the stage's points (its share goes to the stage's other tests); " +
				"where it runs (CI, on Linux) it is graded: " + strings.Join(t.Output, " ")
			tests = append(tests, tr)
			continue
		}
		tr.MaxPoints = shares[next]
		next++
		switch {
		case len(tampered) > 0 || len(imports) > 0:
			tr.Status, tr.Message = Error, stageErr
			if t != nil {
				tr.Message += fmt.Sprintf(" (the test itself: %s)", t.Status)
			}
		case stageReview != "" && stageErr == "":
			tr.Status, tr.Message = Review, stageReview
			if t != nil {
				tr.Message += fmt.Sprintf(" (the test itself: %s)", t.Status)
			}
		case stageErr != "":
			tr.Status, tr.Message = Error, stageErr
		case t == nil:
			tr.Status, tr.Message = Error, "did not run"
			switch {
			case pkg.Halted != "":
				tr.Message += ": " + pkg.Halted
			case pkg.TimedOut != "":
				tr.Message += ": " + pkg.TimedOut
			case pkg.Crash != "":
				tr.Message += ": the test binary failed outside any test:\n" + strings.Join(limit(strings.Split(pkg.Crash, "\n"), 20), "\n")
			}
		case t.Status == gotest.Pass && !t.Confirmed:
			tr.Status, tr.Message = Error, "not credited: its output says it passed, but "+t.Unconfirmed
		case t.Status == gotest.Pass:
			tr.Status, tr.Points = Pass, tr.MaxPoints
			sr.TestsPassed++
		case t.Status == gotest.Skip:
			tr.Status, tr.Message = Fail, "skipped: a skipped test earns no credit"
		case t.Hung:
			tr.Status, tr.Message = Fail, "hung: still running when the stage "+pkg.TimedOut
		case t.NotImplemented != "":
			tr.Status, tr.Message = Fail, gotest.NotImplemented+t.NotImplemented
		default:
			tr.Status, tr.Message = Fail, strings.Join(limit(t.Output, 40), "\n")
			if tr.Message == "" {
				tr.Message = "failed"
			}
		}
		sr.Points += tr.Points
		tests = append(tests, tr)
	}
	for k, it := range items {
		tr := TestResult{Name: it.name, TaskID: TaskID(st), Stage: st.ID(), MaxPoints: shares[next+k], Certifies: it.certifies}
		switch {
		case stageErr != "":
			tr.Status, tr.Message = Error, stageErr
		case stageReview != "":
			tr.Status, tr.Message = Review, stageReview
		default:
			tr.Status, tr.Message = gradeRerun(it, changes, res)
		}
		if tr.Status == Pass {
			tr.Points = tr.MaxPoints
			sr.TestsPassed++
		}
		sr.Points += tr.Points
		tests = append(tests, tr)
	}
	switch {
	case stageErr != "" || slices.ContainsFunc(tests, func(t TestResult) bool { return t.Status == Error }):
		sr.Status = Error
		sr.Message = stageErr
		if sr.Message == "" {
			n, first := 0, ""
			for _, t := range tests {
				if t.Status == Error {
					n++
					if first == "" {
						first, _, _ = strings.Cut(t.Message, "\n")
						first = t.Name + ": " + first
					}
				}
			}
			sr.Message = fmt.Sprintf("%d of %d tests did not run or were not credited (%s)", n, len(tests), first)
		}
	case stageReview != "":
		sr.Status, sr.Message = Review, stageReview
	case sr.TestsPassed < sr.TestsTotal:
		sr.Status = Fail
		sr.Message = fmt.Sprintf("%d of %d tests failed", sr.TestsTotal-sr.TestsPassed, sr.TestsTotal)
	default:
		sr.Status = Pass
	}
	return sr, tests
}

// summarize gives the run's status and message: error when some stage has
// no trustworthy result, fail when some test failed, pass otherwise.
func summarize(r *Report) (Status, string) {
	var errs, reviews, fails []string
	for _, s := range r.Stages {
		msg, _, _ := strings.Cut(s.Message, "\n")
		switch s.Status {
		case Error:
			errs = append(errs, fmt.Sprintf("%s: %s", s.Ref, msg))
		case Review:
			reviews = append(reviews, fmt.Sprintf("%s: %s", s.Ref, msg))
		case Fail:
			fails = append(fails, fmt.Sprintf("%s: %s", s.Ref, s.Message))
		}
	}
	switch {
	case len(r.Stages) == 0:
		return Error, "no stage was graded"
	case len(errs) > 0:
		return Error, strings.Join(slices.Concat(errs, reviews, fails), "; ")
	case len(reviews) > 0:
		return Review, strings.Join(slices.Concat(reviews, fails), "; ")
	case len(fails) > 0:
		return Fail, strings.Join(fails, "; ")
	}
	return Pass, ""
}

func limit(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(slices.Clone(lines[:n]), fmt.Sprintf("… %d more lines", len(lines)-n))
}

// MinPoints turns a --min-score value into points out of maxPoints:
// "100%" or "80%" is a share of maxPoints (rounded up), "350" a number of
// points. An empty value means everything: maxPoints.
func MinPoints(value string, maxPoints int) (int, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return maxPoints, nil
	}
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		var p float64
		if _, err := fmt.Sscanf(pct, "%g", &p); err != nil || p < 0 || p > 100 || strings.TrimSpace(pct) != pct {
			return 0, fmt.Errorf("--min-score %q: a percentage must be between 0%% and 100%%, e.g. 80%%", value)
		}
		need := int(p * float64(maxPoints) / 100)
		if float64(need)*100 < p*float64(maxPoints) {
			need++
		}
		return need, nil
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != v {
		return 0, fmt.Errorf("--min-score %q: give points (e.g. 350) or a percentage of the graded points (e.g. 80%%)", value)
	}
	return n, nil
}
