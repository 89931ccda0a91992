package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/flk-byo/course/internal/grade"
)

// cmdGradeJSON checks that FILE is a valid `de grade --format json` report
// (strict: no unknown fields, nothing after the object, totals that add
// up) and prints a digest a script can match line by line:
//
//	status fail
//	points 400/500
//	stage 05-2pc fail 0/100 tests 0/9
//	tampered stages/03-lateness/refire_test.go modified 03-lateness
//	finding review lab/forge.go:9 func init
//	similar lab/windows.go solutions/windows.go 1.00 flagged=true
//	test TestX 05-2pc fail 0/11
//
// Usage: gradejson FILE
func cmdGradeJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gradejson FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r grade.Report
	if err := dec.Decode(&r); err != nil {
		ts.Fatalf("%s is not a valid grade report: %v", args[0], err)
	}
	if dec.More() {
		ts.Fatalf("%s has data after the report", args[0])
	}
	if r.Version != grade.SchemaVersion {
		ts.Fatalf("version %d, want %d", r.Version, grade.SchemaVersion)
	}
	points, maxPoints := 0, 0
	for _, s := range r.Stages {
		sp, sm, passed, total := 0, 0, 0, 0
		for _, t := range r.Tests {
			if t.Stage != s.Stage {
				continue
			}
			if t.TaskID != s.TaskID {
				ts.Fatalf("test %s has task_id %d in stage %s (task_id %d)", t.Name, t.TaskID, s.Stage, s.TaskID)
			}
			sp += t.Points
			sm += t.MaxPoints
			total++
			if t.Status == grade.Pass {
				passed++
			}
		}
		if sp != s.Points || sm != s.MaxPoints || passed != s.TestsPassed || total != s.TestsTotal {
			ts.Fatalf("stage %s totals %d/%d points %d/%d tests do not add up to its tests' %d/%d, %d/%d", s.Stage, s.Points, s.MaxPoints, s.TestsPassed, s.TestsTotal, sp, sm, passed, total)
		}
		points += s.Points
		maxPoints += s.MaxPoints
	}
	if points != r.Points || maxPoints != r.MaxPoints {
		ts.Fatalf("report totals %d/%d do not add up to its stages' %d/%d", r.Points, r.MaxPoints, points, maxPoints)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status %s\npoints %d/%d\n", r.Status, r.Points, r.MaxPoints)
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "stage %s %s %d/%d tests %d/%d\n", s.Stage, s.Status, s.Points, s.MaxPoints, s.TestsPassed, s.TestsTotal)
	}
	for _, c := range r.Tampered {
		fmt.Fprintf(&b, "tampered %s %s %s\n", c.Path, c.Change, c.Stage)
	}
	for _, f := range r.LabFindings {
		fmt.Fprintf(&b, "finding %s %s:%d %s\n", f.Kind, f.File, f.Line, f.What)
	}
	for _, x := range r.Similarity {
		fmt.Fprintf(&b, "similar %s %s %s %.2f flagged=%v\n", x.File, x.Solution, x.Reference, x.Share, x.Flagged)
	}
	for _, t := range r.Tests {
		fmt.Fprintf(&b, "test %s %s %s %d/%d\n", t.Name, t.Stage, t.Status, t.Points, t.MaxPoints)
	}
	ts.Stdout().Write([]byte(b.String()))
}

// cmdJUnitXML checks that FILE is well-formed JUnit XML whose counts add up,
// and prints "suites N tests N failures N errors N".
//
// Usage: junitxml FILE
func cmdJUnitXML(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: junitxml FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var suites junit.Testsuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		ts.Fatalf("%s is not valid JUnit XML: %v", args[0], err)
	}
	tests, failures, errors := 0, 0, 0
	for _, s := range suites.Suites {
		if len(s.Testcases) != s.Tests {
			ts.Fatalf("suite %s says %d tests, has %d", s.Name, s.Tests, len(s.Testcases))
		}
		for _, c := range s.Testcases {
			if c.Failure != nil {
				failures++
			}
			if c.Error != nil {
				errors++
			}
		}
		tests += len(s.Testcases)
	}
	if tests != suites.Tests || failures != suites.Failures || errors != suites.Errors {
		ts.Fatalf("testsuites totals (%d tests, %d failures, %d errors) do not match its suites (%d, %d, %d)", suites.Tests, suites.Failures, suites.Errors, tests, failures, errors)
	}
	fmt.Fprintf(ts.Stdout(), "suites %d tests %d failures %d errors %d\n", len(suites.Suites), tests, failures, errors)
}

// cmdClassroomOutput decodes the last NAME= line (result= by default;
// stage-01= for one stage's) of FILE (a $GITHUB_OUTPUT file) as GitHub
// Classroom's grading reporter does, checks
// that its scores add up, and prints a digest:
//
//	status fail max_score 100 score 95 tests 20
//	test FLK-BYO/01 TestX fail 0
//
// Usage: classroomout FILE
func cmdClassroomOutput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: classroomout FILE [NAME]")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	name := "result"
	if len(args) == 2 {
		name = args[1]
	}
	res, err := grade.ReadClassroomOutput(string(data), name)
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if res.Version != 1 {
		ts.Fatalf("version %d, want 1 (the reporter's)", res.Version)
	}
	score := 0
	var b strings.Builder
	for _, t := range res.Tests {
		score += t.Score
		fmt.Fprintf(&b, "test %s %s %d\n", t.Name, t.Status, t.Score)
	}
	if score > res.MaxScore {
		ts.Fatalf("scores add up to %d, above max_score %d", score, res.MaxScore)
	}
	fmt.Fprintf(ts.Stdout(), "status %s max_score %d score %d tests %d\n%s", res.Status, res.MaxScore, score, len(res.Tests), b.String())
}
