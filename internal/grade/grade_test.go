package grade

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/labpolicy"
)

func TestShares(t *testing.T) {
	for _, tc := range []struct {
		points, n int
		want      []int
	}{
		{100, 4, []int{25, 25, 25, 25}},
		{100, 7, []int{15, 15, 14, 14, 14, 14, 14}},
		{100, 1, []int{100}},
		{2, 3, []int{1, 1, 0}},
	} {
		got := Shares(tc.points, tc.n)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Shares(%d, %d) = %v, want %v", tc.points, tc.n, got, tc.want)
		}
	}
}

func TestMinPoints(t *testing.T) {
	for _, tc := range []struct {
		value   string
		max     int
		want    int
		wantErr bool
	}{
		{"", 500, 500, false},
		{"100%", 500, 500, false},
		{"80%", 500, 400, false},
		{"33%", 100, 33, false},
		{"33.5%", 100, 34, false},
		{"0%", 500, 0, false},
		{"350", 500, 350, false},
		{"0", 500, 0, false},
		{"120%", 500, 0, true},
		{"-1", 500, 0, true},
		{"lots", 500, 0, true},
		{"3.5", 500, 0, true},
	} {
		got, err := MinPoints(tc.value, tc.max)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("MinPoints(%q, %d) = %d, %v; want %d, error %v", tc.value, tc.max, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestVerify(t *testing.T) {
	pristine := fstest.MapFS{
		"go.mod":                       {Data: []byte("module x\n")},
		"kit/event.go":                 {Data: []byte("package kit\n")},
		"kit/kit_test.go":              {Data: []byte("package kit\n")},
		"stages/01-a/a_test.go":        {Data: []byte("package a\n")},
		"stages/01-a/bind_lab_test.go": {Data: []byte("package a\n")},
		"stages/02-b/b_test.go":        {Data: []byte("package b\n")},
		"drills/01-q/q_test.go":        {Data: []byte("package q\n")},
		"drills/01-q/engine/lab.go":    {Data: []byte("package engine\n")},
		"drills/01-q/engine/ref.go":    {Data: []byte("//go:build !lab || drillref\n\npackage engine\n")},
	}
	for _, tc := range []struct {
		name string
		edit func(root string)
		want []string // "path change stage"
	}{
		{"pristine", func(string) {}, nil},
		{"CRLF checkout is not a change", func(root string) {
			write(t, root, "stages/01-a/a_test.go", "package a\r\n")
		}, nil},
		{"modified test", func(root string) {
			write(t, root, "stages/01-a/a_test.go", "package a // edited\n")
		}, []string{"stages/01-a/a_test.go modified 01-a"}},
		{"missing bind file", func(root string) {
			os.Remove(filepath.Join(root, "stages/01-a/bind_lab_test.go"))
		}, []string{"stages/01-a/bind_lab_test.go missing 01-a"}},
		{"added file in a stage and in kit", func(root string) {
			write(t, root, "stages/02-b/zz_test.go", "package b\n")
			write(t, root, "kit/cheat.go", "package kit\n")
		}, []string{"kit/cheat.go added ", "stages/02-b/zz_test.go added 02-b"}},
		{"ignored: kit tests, non-build files, _ and . files", func(root string) {
			write(t, root, "kit/kit_test.go", "package kit // edited\n")
			write(t, root, "kit/extra_test.go", "package kit\n")
			write(t, root, "stages/01-a/notes.md", "notes\n")
			write(t, root, "stages/01-a/_x.go", "package a\n")
		}, nil},
		{"go.mod", func(root string) {
			write(t, root, "go.mod", "module x\nreplace y => ./y\n")
		}, []string{"go.mod modified "}},
		{"not graded: a file -tags lab leaves out, missing or added", func(root string) {
			os.Remove(filepath.Join(root, "drills/01-q/engine/ref.go"))
			write(t, root, "stages/01-a/extra_test.go", "// A note.\n\n//go:build solution\n\npackage a\n")
		}, nil},
		{"graded: an added file only the drills' build (drillref) compiles, outside a drill's folder", func(root string) {
			write(t, root, "kit/forge.go", "//go:build drillref\n\npackage kit\n")
		}, []string{"kit/forge.go added "}},
		{"not compared: a drill folder's file only the drills' build compiles (de grade pins those)", func(root string) {
			write(t, root, "drills/01-q/engine/ref.go", "//go:build !lab || drillref\n\npackage engine // edited\n")
			write(t, root, "drills/01-q/engine/more.go", "//go:build drillref\n\npackage engine\n")
		}, nil},
		{"graded: an added file whose constraint -tags lab meets", func(root string) {
			write(t, root, "stages/01-a/extra_test.go", "//go:build lab || solution\n\npackage a\n")
		}, []string{"stages/01-a/extra_test.go added 01-a"}},
		{"a drill's test, and its engine binding", func(root string) {
			write(t, root, "drills/01-q/q_test.go", "package q // edited\n")
			write(t, root, "drills/01-q/zz_test.go", "package q\n")
			write(t, root, "drills/01-q/engine/lab.go", "package engine // edited\n")
		}, []string{"drills/01-q/engine/lab.go modified drills/01-q", "drills/01-q/q_test.go modified drills/01-q", "drills/01-q/zz_test.go added drills/01-q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, f := range pristine {
				write(t, root, p, string(f.Data))
			}
			tc.edit(root)
			changes, err := Verify(root, pristine)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, string(c.Path)+" "+string(c.Change)+" "+c.Stage)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestChangeAffects pins whose credit a changed file withholds: a stage's
// file its stage's, a drill's (its engine binding's included) its drill's,
// a shared file everyone's.
func TestChangeAffects(t *testing.T) {
	for _, tc := range []struct {
		stage string
		id    string
		want  bool
	}{
		{"01-a", "01-a", true}, {"01-a", "02-b", false}, {"01-a", "drills/01-q", false},
		{"drills/01-q", "drills/01-q", true}, {"drills/01-q", "drills/02-r", false}, {"drills/01-q", "01-a", false},
		{"", "01-a", true}, {"", "drills/01-q", true},
	} {
		if got := (FileChange{Stage: tc.stage}).Affects(tc.id); got != tc.want {
			t.Errorf("a change of %q affects %q: %v, want %v", tc.stage, tc.id, got, tc.want)
		}
	}
}

func write(t *testing.T, root, p, data string) {
	t.Helper()
	file := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPristineMatchesTheCourse proves the embedded files are this tree's
// and cover every course package a suite links: a suite that starts
// importing a new internal package fails here until Files embeds it.
func TestPristineMatchesTheCourse(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Verify(root, course.Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		t.Errorf("%s %s: the tree differs from the embedded course files", c.Path, c.Change)
	}
	manifest, err := Manifest(course.Files)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for p := range manifest {
		dirs[path.Dir(p)] = true
	}
	const module = "github.com/flk-byo/course/"
	fset := token.NewFileSet()
	for p := range manifest {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		src, _ := fs.ReadFile(course.Files, p)
		f, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			dir, ok := strings.CutPrefix(ip, module)
			// lab/ and solutions/ are what a suite tests, not what it
			// depends on: a drill's job and its reference fix too.
			if !ok || dir == "lab" || dir == "solutions" || strings.HasPrefix(dir, "lab/drills/") || strings.HasPrefix(dir, "solutions/drills/") {
				continue
			}
			if !dirs[dir] {
				t.Errorf("%s imports %s, whose files Files does not embed", p, ip)
			}
		}
	}
	if !dirs["stages/01-windows"] || manifest["go.mod"] == "" {
		t.Errorf("Files lacks the stage suites or go.mod")
	}
}

func TestBuild(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		t.Fatal(err)
	}
	st1, st2 := cat.Stages[0], cat.Stages[1]
	docs1, _ := cat.Tests(st1)
	docs2, _ := cat.Tests(st2)
	allPass := func(st catalog.Stage, docs []catalog.TestDoc) *gotest.Package {
		p := &gotest.Package{ImportPath: "github.com/flk-byo/course/" + st.Dir()}
		for _, d := range docs {
			p.Tests = append(p.Tests, gotest.Test{Name: d.Name, Status: gotest.Pass, Confirmed: true})
		}
		return p
	}
	for _, tc := range []struct {
		name       string
		pkgs       func() []*gotest.Package
		changes    []FileChange
		findings   []LabFinding
		status     Status
		points     int
		stageState []Status
	}{
		{"all pass", func() []*gotest.Package { return []*gotest.Package{allPass(st1, docs1), allPass(st2, docs2)} }, nil, nil, Pass, 200, []Status{Pass, Pass}},
		{"one failure is partial credit", func() []*gotest.Package {
			p := allPass(st2, docs2)
			p.Tests[0].Status, p.Tests[0].Output = gotest.Fail, []string{"want 3, got 4"}
			return []*gotest.Package{allPass(st1, docs1), p}
		}, nil, nil, Fail, 200 - Shares(100, len(docs2))[0], []Status{Pass, Fail}},
		{"a test that did not report earns nothing", func() []*gotest.Package {
			p := allPass(st2, docs2)
			p.Tests = p.Tests[1:]
			return []*gotest.Package{allPass(st1, docs1), p}
		}, nil, nil, Error, 200 - Shares(100, len(docs2))[0], []Status{Pass, Error}},
		{"a pass its suite's report did not confirm earns nothing", func() []*gotest.Package {
			p := allPass(st1, docs1)
			p.Tests[0].Confirmed, p.Tests[0].Unconfirmed = false, "its output holds 2 starts and 2 results for it, not one of each"
			return []*gotest.Package{p, allPass(st2, docs2)}
		}, nil, nil, Error, 200 - Shares(100, len(docs1))[0], []Status{Error, Pass}},
		{"a test this system cannot run is left out, its share to the others", func() []*gotest.Package {
			p := allPass(st1, docs1)
			p.Tests[0].Status, p.Tests[0].Confirmed, p.Tests[0].Unsupported = gotest.Skip, false, true
			return []*gotest.Package{p, allPass(st2, docs2)}
		}, nil, nil, Pass, 200, []Status{Pass, Pass}},
		{"skip earns nothing", func() []*gotest.Package {
			p := allPass(st1, docs1)
			p.Tests[0].Status = gotest.Skip
			return []*gotest.Package{p, allPass(st2, docs2)}
		}, nil, nil, Fail, 200 - Shares(100, len(docs1))[0], []Status{Fail, Pass}},
		{"build error", func() []*gotest.Package {
			return []*gotest.Package{{ImportPath: "x/" + st1.Dir(), BuildError: "lab/windows.go:3: syntax error"}, allPass(st2, docs2)}
		}, nil, nil, Error, 100, []Status{Error, Pass}},
		{"stage not run", func() []*gotest.Package { return []*gotest.Package{allPass(st2, docs2)} }, nil, nil, Error, 100, []Status{Error, Pass}},
		{"tampered stage", func() []*gotest.Package { return []*gotest.Package{allPass(st1, docs1), allPass(st2, docs2)} },
			[]FileChange{{Path: st2.Dir() + "/x_test.go", Change: Modified, Stage: st2.ID()}}, nil, Error, 100, []Status{Pass, Error}},
		{"tampered kit", func() []*gotest.Package { return []*gotest.Package{allPass(st1, docs1), allPass(st2, docs2)} },
			[]FileChange{{Path: "kit/cheat.go", Change: Added}}, nil, Error, 0, []Status{Error, Error}},
		{"a lab that imports the reference earns nothing", func() []*gotest.Package { return []*gotest.Package{allPass(st1, docs1), allPass(st2, docs2)} },
			nil, []LabFinding{{Kind: labpolicy.Import, File: "lab/windows.go", Line: 3, Column: 2, What: `import "github.com/flk-byo/course/solutions"`}}, Error, 0, []Status{Error, Error}},
		{"a lab that could forge its results is reviewed, for no points", func() []*gotest.Package {
			return []*gotest.Package{allPass(st1, docs1), allPass(st2, docs2)}
		}, nil, []LabFinding{{Kind: labpolicy.Review, File: "lab/x.go", Line: 5, Column: 1, What: "func init"}}, Review, 0, []Status{Review, Review}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Build(cat, []catalog.Stage{st1, st2}, Checks{Changes: tc.changes, Findings: tc.findings}, &gotest.Result{Packages: tc.pkgs()})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.status || r.Points != tc.points || r.MaxPoints != 200 {
				t.Errorf("status %s, %d/%d points; want %s, %d/200 (message %q)", r.Status, r.Points, r.MaxPoints, tc.status, tc.points, r.Message)
			}
			for i, s := range r.Stages {
				if s.Status != tc.stageState[i] {
					t.Errorf("stage %s: %s, want %s (%s)", s.Stage, s.Status, tc.stageState[i], s.Message)
				}
			}
			if len(r.Tests) != len(docs1)+len(docs2) {
				t.Errorf("%d tests, want %d", len(r.Tests), len(docs1)+len(docs2))
			}
			if r.Status != Pass && r.Message == "" {
				t.Error("no message for a run that did not pass")
			}
			assertRenders(t, r)
		})
	}
}

// assertRenders checks the report's JSON round-trips and its JUnit XML
// parses with counts that match.
func assertRenders(t *testing.T, r *Report) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("JSON does not decode: %v", err)
	}
	if back.Points != r.Points || len(back.Tests) != len(r.Tests) {
		t.Errorf("JSON round trip lost data")
	}
	buf.Reset()
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var suites junit.Testsuites
	if err := xml.Unmarshal(buf.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit XML does not parse: %v", err)
	}
	failed, skipped := 0, 0
	for _, tr := range r.Tests {
		switch tr.Status {
		case Pass:
		case Skip:
			skipped++
		default:
			failed++
		}
	}
	if suites.Skipped != skipped {
		t.Errorf("JUnit: %d skipped, want %d", suites.Skipped, skipped)
	}
	if suites.Tests != len(r.Tests) || suites.Failures+suites.Errors != failed || len(suites.Suites) != len(r.Stages) {
		t.Errorf("JUnit: %d tests, %d failures, %d errors in %d suites; want %d tests, %d not passed, %d suites",
			suites.Tests, suites.Failures, suites.Errors, len(suites.Suites), len(r.Tests), failed, len(r.Stages))
	}
	md := Markdown(r, r.MaxPoints)
	if !strings.Contains(md, "| stage | status | points | tests passed |") {
		t.Errorf("markdown summary has no stage table:\n%s", md)
	}
}

// TestClassroomWorkflowGradesEveryStage keeps .github/workflows/classroom.yml
// in step with the catalogue and with how de grade must run there: one
// grading step grades every stage (--all) as root, with the student's code
// run as another user that an earlier step creates (--as-user), writing
// its Classroom result (de grade --format classroom: one result per stage,
// each worth the stage's points, test by test) and its reports from the
// same run; the reporter collects the result of each ready stage, extensions
// included, and runs whatever happened before it.
func TestClassroomWorkflowGradesEveryStage(t *testing.T) {
	data, err := os.ReadFile("../../.github/workflows/classroom.yml")
	if err != nil {
		t.Fatal(err)
	}
	wf := string(data)
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		t.Fatal(err)
	}
	grading := strings.Index(wf, "id: grade\n")
	user := strings.Index(wf, "useradd --system --no-create-home --shell /usr/sbin/nologin flk-student")
	if grading < 0 || user < 0 || user > grading {
		t.Fatalf("the workflow must create the user flk-student before its grading step (id: grade)")
	}
	step, _, _ := strings.Cut(wf[grading:], "\n\n")
	for _, want := range []string{"sudo ", "/tmp/de grade --all --as-user flk-student --min-score 0", "--format classroom", "--report json=", "--report junit="} {
		if !strings.Contains(step, want) {
			t.Errorf("the grading step lacks %q:\n%s", want, step)
		}
	}
	var runners []string
	for _, st := range cat.Stages {
		if !st.Ready {
			continue
		}
		r := Runner(TaskID(st))
		runners = append(runners, r)
		env := strings.ToUpper(r) + "_RESULTS: \"${{ steps.grade.outputs." + r + " }}\""
		if !strings.Contains(wf, env) {
			t.Errorf("the reporter does not collect %s: no %q", st.Ref(), env)
		}
	}
	if !strings.Contains(wf, "runners: "+strings.Join(runners, ",")+"\n") {
		t.Errorf("the reporter's runners are not every ready stage's, %s", strings.Join(runners, ","))
	}
	reporter := strings.Index(wf, "uses: classroom-resources/autograding-grading-reporter@v1")
	if reporter < 0 || !strings.Contains(wf[max(0, reporter-80):reporter], "if: always()") {
		t.Errorf("the reporter step must run whatever happened before it (if: always())")
	}
}

// TestBuildCreditsReruns checks how a stage with reruns (stage 12: stages
// 01 and 03 on its BackendProcessor, on each backend) is graded: each rerun
// suite is one item of the stage beside its own tests, passing only when
// every test of that suite passed in its pass, failing with the names of
// those that did not, and an error when its pass did not run or the
// earlier stage's files were changed.
func TestBuildCreditsReruns(t *testing.T) {
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		t.Fatal(err)
	}
	st := cat.Stages[11]
	if len(st.Reruns) == 0 {
		t.Fatalf("%s has no reruns in the catalogue", st.ID())
	}
	docs, _ := cat.Tests(st)
	pass := func(importPath string, docs []catalog.TestDoc) *gotest.Package {
		p := &gotest.Package{ImportPath: importPath}
		for _, d := range docs {
			p.Tests = append(p.Tests, gotest.Test{Name: d.Name, Status: gotest.Pass, Confirmed: true})
		}
		return p
	}
	all := func() []*gotest.Package {
		pkgs := []*gotest.Package{pass("github.com/flk-byo/course/"+st.Dir(), docs)}
		for _, r := range st.Reruns {
			for _, earlier := range r.Stages {
				edocs, _ := cat.Tests(earlier)
				pkgs = append(pkgs, pass("github.com/flk-byo/course/"+earlier.Dir()+rerunSuffix(r.Tag), edocs))
			}
		}
		return pkgs
	}
	items := 0
	for _, r := range st.Reruns {
		items += len(r.Stages)
	}
	shares := Shares(st.Points, len(docs)+items)
	last := shares[len(shares)-1]
	first := st.Reruns[0].Stages[0]
	for _, tc := range []struct {
		name    string
		pkgs    func() []*gotest.Package
		changes []FileChange
		status  Status
		points  int
	}{
		{"all pass", all, nil, Pass, st.Points},
		{"one rerun test fails", func() []*gotest.Package {
			pkgs := all()
			pkgs[len(pkgs)-1].Tests[0].Status = gotest.Fail
			return pkgs
		}, nil, Fail, st.Points - last},
		{"a rerun pass did not run", func() []*gotest.Package { pkgs := all(); return pkgs[:len(pkgs)-1] }, nil, Error, st.Points - last},
		{"the earlier stage's files changed", all, []FileChange{{Path: first.Dir() + "/bind_lab_test.go", Change: Modified, Stage: first.ID()}},
			Error, st.Points - shares[len(docs)] - shares[len(docs)+len(st.Reruns[0].Stages)]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Build(cat, []catalog.Stage{st}, Checks{Changes: tc.changes}, &gotest.Result{Packages: tc.pkgs()})
			if err != nil {
				t.Fatal(err)
			}
			if r.Stages[0].Status != tc.status || r.Points != tc.points || r.Stages[0].TestsTotal != len(docs)+items {
				t.Errorf("stage %s: %s, %d points, %d tests; want %s, %d points, %d tests (%s)", st.ID(), r.Stages[0].Status, r.Points, r.Stages[0].TestsTotal,
					tc.status, tc.points, len(docs)+items, r.Message)
			}
			assertRenders(t, r)
		})
	}
}

// TestManifestHasTheRerunBuildsBindFiles checks that tamper evidence
// evaluates build constraints as every build de grade runs does: the lab's
// bind files of stage 12's rerun passes (-tags lab,statebackend_heap and
// lab,statebackend_pebble) are compared like the plain lab build's, and the
// reference's are not.
func TestManifestHasTheRerunBuildsBindFiles(t *testing.T) {
	manifest, err := Manifest(course.Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"stages/01-windows/bind_lab_test.go", "stages/01-windows/bind_lab_heap_test.go", "stages/03-lateness/bind_lab_pebble_test.go", "internal/onbackend/onbackend.go"} {
		if manifest[p] == "" {
			t.Errorf("%s is not in the manifest: a student could change it unseen", p)
		}
	}
	for _, p := range []string{"stages/01-windows/bind_solution_test.go", "stages/01-windows/bind_solution_pebble_test.go"} {
		if manifest[p] != "" {
			t.Errorf("%s is in the manifest, but no graded build compiles it", p)
		}
	}
}
