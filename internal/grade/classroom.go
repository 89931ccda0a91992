package grade

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flk-byo/course/internal/catalog"
)

// ClassroomResult is the result object of one GitHub Classroom grading
// step: what classroom-resources/autograding-grading-reporter reads from a
// step's output "result" (base64-encoded JSON), the same shape its own
// graders write. The reporter adds up tests[].score against max_score, so
// per-test points reach Classroom as partial credit; a step that exits
// non-zero loses nothing, since the reporter reads the output, not the
// exit code.
type ClassroomResult struct {
	Version  int             `json:"version"`   // 1, the reporter's format
	Status   string          `json:"status"`    // pass, fail or error
	MaxScore int             `json:"max_score"` // the graded stages' points
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one test of a ClassroomResult.
type ClassroomTest struct {
	Name     string `json:"name"`   // "FLK-BYO/01 TestName": unique across stages
	Status   string `json:"status"` // pass, fail or error
	Score    int    `json:"score"`  // points earned
	Message  string `json:"message"`
	TestCode string `json:"test_code"` // the one line the test certifies
	Filename string `json:"filename"`  // the stage's folder
	LineNo   int    `json:"line_no"`
	Duration int    `json:"duration"` // milliseconds

	// runner is the stage's or drill's own result this test belongs to
	// (Runner), allStages for an entry every stage's carries; max is the
	// points it was worth. Neither is the reporter's: ClassroomOutput
	// splits a result by them.
	runner string
	max    int
}

// Runner is the name of a stage's or a drill's own Classroom result, as
// ClassroomOutput writes it to $GITHUB_OUTPUT and the workflow hands it to
// the reporter: "stage-01", or for a drill "drill-03".
func Runner(taskID int) string {
	if taskID >= 100 {
		return fmt.Sprintf("drill-%02d", taskID-100)
	}
	return fmt.Sprintf("stage-%02d", taskID)
}

// classroomStatus maps a status to the reporter's three: a test to review
// earned nothing and is not a plain failure.
func classroomStatus(s Status) string {
	switch s {
	case Pass, Skip:
		return "pass" // Skip: worth 0 of 0 here, neither a failure nor an error
	case Fail:
		return "fail"
	}
	return "error"
}

// Classroom returns the report as a Classroom result: one test per graded
// test, scored with its points; lab findings and changed files are in the
// messages of the tests they cost.
func Classroom(r *Report) ClassroomResult {
	res := ClassroomResult{Version: 1, Status: classroomStatus(r.Status), MaxScore: r.MaxPoints, Tests: []ClassroomTest{}}
	refs := map[string]string{}
	for _, s := range r.Stages {
		refs[s.Stage] = s.Ref
	}
	for _, t := range r.Tests {
		res.Tests = append(res.Tests, ClassroomTest{
			Name: refs[t.Stage] + " " + t.Name, Status: classroomStatus(t.Status), Score: t.Points,
			Message: t.Message, TestCode: t.Certifies, Filename: "stages/" + t.Stage,
			Duration: int(t.Duration * 1000), runner: Runner(t.TaskID), max: t.MaxPoints,
		})
	}
	// A close copy is never a plain pass, whatever it scored: one more
	// entry, worth nothing, names it, and the result's status says a
	// person is to look (the reporter then marks the run failed).
	for _, x := range r.Similarity {
		if !x.Flagged {
			continue
		}
		res.Status = "error"
		t := ClassroomTest{Name: "close to the course's own solutions: " + x.File, Status: "error", Filename: x.File,
			Message: fmt.Sprintf("%.0f%% of its statements are in %s (most in %s): %s", x.Share*100, x.Solution, x.Reference, policyNote(r.SimilarPolicy)),
			runner:  allStages}
		if x.TaskID != 0 {
			t.Name, t.runner = "close to the drill's reference fix: "+x.File, Runner(x.TaskID)
			t.Message = fmt.Sprintf("%.0f%% of its %d changed statements as %s changed them, and %d of its comment lines: %s",
				x.Share*100, x.Fingerprints, x.Solution, x.CopiedComments, policyNote(r.SimilarPolicy))
		}
		res.Tests = append(res.Tests, t)
	}
	return res
}

// allStages is the runner of a Classroom entry that every stage's own
// result carries: a flag on the lab, which every stage compiles.
const allStages = "*"

// ClassroomFailure is the Classroom result of stages that could not be
// graded at all (no go, not a course, an unreadable tree): an error worth 0
// of the stages' points, so the reporter still runs and records 0 rather
// than breaking on a missing result.
func ClassroomFailure(stages []catalog.Stage, err error) ClassroomResult {
	res := ClassroomResult{Version: 1, Status: "error", Tests: []ClassroomTest{}}
	for _, st := range stages {
		res.MaxScore += st.Points
		res.Tests = append(res.Tests, ClassroomTest{
			Name: st.Ref() + " " + st.Title, Status: "error",
			Message: "de could not grade this stage: " + err.Error(), Filename: st.Dir(),
			runner: Runner(TaskID(st)), max: st.Points,
		})
	}
	return res
}

// WriteClassroom writes res as indented JSON, for a person or a file.
func WriteClassroom(w io.Writer, res ClassroomResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// ClassroomOutput returns the lines a grading step appends to
// $GITHUB_OUTPUT: "result=" and the base64 of res's compact JSON, then one
// such line for each stage and drill res grades, its own result under its
// Runner's name ("stage-01=…"). So one step that grades every stage gives
// the reporter a runner per stage, each worth that stage's points.
func ClassroomOutput(res ClassroomResult) (string, error) {
	var b strings.Builder
	line := func(name string, res ClassroomResult) error {
		data, err := json.Marshal(res)
		if err != nil {
			return err
		}
		b.WriteString(name + "=" + base64.StdEncoding.EncodeToString(data) + "\n")
		return nil
	}
	if err := line("result", res); err != nil {
		return "", err
	}
	var runners []string
	for _, t := range res.Tests {
		if t.runner != "" && t.runner != allStages && !slices.Contains(runners, t.runner) {
			runners = append(runners, t.runner)
		}
	}
	for _, runner := range runners {
		part := ClassroomResult{Version: res.Version, Status: "pass", Tests: []ClassroomTest{}}
		for _, t := range res.Tests {
			if t.runner != runner && !(t.runner == allStages && strings.HasPrefix(runner, "stage-")) {
				continue
			}
			part.Tests = append(part.Tests, t)
			part.MaxScore += t.max
			switch {
			case t.Status == "error" || part.Status == "error":
				part.Status = "error"
			case t.Status == "fail":
				part.Status = "fail"
			}
		}
		if err := line(runner, part); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// ReadClassroomOutput decodes what ClassroomOutput wrote under name
// ("result", "stage-01"): the last such line of a $GITHUB_OUTPUT file, as
// the reporter gets it.
func ReadClassroomOutput(file, name string) (ClassroomResult, error) {
	var line string
	for l := range strings.Lines(file) {
		if v, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), name+"="); ok {
			line = v
		}
	}
	if line == "" {
		return ClassroomResult{}, fmt.Errorf("no %s= line", name)
	}
	data, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		return ClassroomResult{}, fmt.Errorf("result is not base64: %w", err)
	}
	var res ClassroomResult
	if err := json.Unmarshal(data, &res); err != nil {
		return ClassroomResult{}, fmt.Errorf("result is not the reporter's JSON: %w", err)
	}
	return res, nil
}
