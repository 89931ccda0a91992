package grade

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/flk-byo/course/internal/term"
)

// WriteJSON writes the report in its documented JSON form.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// JUnit returns the report as JUnit XML suites: one testsuite per stage
// (named by its reference, with its points as properties), one testcase per
// test. A failed test is a <failure>, an error (not compiled, not run, not
// credited) an <error>, each with the report's message.
func JUnit(r *Report) junit.Testsuites {
	suites := junit.Testsuites{Name: fmt.Sprintf("%s grade: %d/%d points", r.Course, r.Points, r.MaxPoints)}
	for i, s := range r.Stages {
		ts := junit.Testsuite{Name: fmt.Sprintf("%s %s", s.Ref, s.Title), ID: i, Package: "github.com/flk-byo/course/stages/" + s.Stage}
		ts.AddProperty("stage", s.Stage)
		ts.AddProperty("status", string(s.Status))
		ts.AddProperty("points", fmt.Sprint(s.Points))
		ts.AddProperty("max_points", fmt.Sprint(s.MaxPoints))
		if s.Message != "" && (s.Status == Error || s.Status == Review) {
			ts.AddProperty("message", s.Message)
		}
		for _, x := range r.Similarity {
			if x.Flagged {
				ts.AddProperty("close_to_reference", fmt.Sprintf("%s ~ %s %.0f%%", x.File, x.Reference, x.Share*100))
				ts.AddProperty("similar_policy", string(r.SimilarPolicy))
			}
		}
		total := 0.0
		for _, t := range r.Tests {
			if t.Stage != s.Stage {
				continue
			}
			total += t.Duration
			tc := junit.Testcase{Name: t.Name, Classname: s.Stage, Time: seconds(t.Duration), Status: string(t.Status)}
			first, _, _ := strings.Cut(t.Message, "\n")
			switch t.Status {
			case Fail:
				tc.Failure = &junit.Result{Message: first, Type: "fail", Data: t.Message}
			case Error, Review:
				tc.Error = &junit.Result{Message: first, Type: string(t.Status), Data: t.Message}
			case Skip:
				tc.Skipped = &junit.Result{Message: first, Data: t.Message}
			}
			ts.AddTestcase(tc)
		}
		ts.Time = seconds(total)
		suites.AddSuite(ts)
	}
	return suites
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// WriteJUnit writes the report as JUnit XML, with the XML header.
func WriteJUnit(w io.Writer, r *Report) error {
	if _, err := io.WriteString(w, xmlHeader); err != nil {
		return err
	}
	suites := JUnit(r)
	return suites.WriteXML(w)
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// WriteText writes the report for a person: every stage with its points,
// every test with its share, each failure's first lines, the changed
// files, and the total against the minimum.
func WriteText(w io.Writer, r *Report, minPoints int, s term.Style) {
	if len(r.Tampered) > 0 {
		fmt.Fprintf(w, "%s\n", s.Red(s.Bold("Files that differ from the course (no credit for the stages they affect):")))
		for _, c := range r.Tampered {
			scope := "every stage"
			if c.Stage != "" {
				scope = "stage " + c.Stage
			}
			fmt.Fprintf(w, "  %s %s %s\n", s.Red(string(c.Change)), c.Path, s.Dim("("+scope+")"))
		}
	}
	if len(r.LabFindings) > 0 {
		fmt.Fprintf(w, "%s\n", s.Red(s.Bold("The lab uses what a lab must not (imports: no credit; the rest: needs review, no points):")))
		for _, f := range r.LabFindings {
			fmt.Fprintf(w, "  %s %s\n", s.Red(string(f.Kind)), f)
		}
	}
	if slices.ContainsFunc(r.Similarity, func(x Similarity) bool { return x.Flagged }) {
		fmt.Fprintf(w, "%s\n", s.Yellow(s.Bold(fmt.Sprintf("Close to the course's own solutions (%.0f%% or more of a file's statements, or of the lab's, found in one), %s:",
			CopyThreshold*100, policyNote(r.SimilarPolicy)))))
		for _, x := range r.Similarity {
			line := fmt.Sprintf("  %3.0f%%  %s ~ %s", x.Share*100, x.File, x.Reference)
			if x.Flagged {
				fmt.Fprintf(w, "%s\n", s.Yellow(line))
			} else {
				fmt.Fprintf(w, "%s\n", s.Dim(line))
			}
		}
	}
	for _, st := range r.Stages {
		score := fmt.Sprintf("%d/%d points, %d/%d tests passed", st.Points, st.MaxPoints, st.TestsPassed, st.TestsTotal)
		switch st.Status {
		case Pass:
			score = s.Green(score)
		case Review:
			score = s.Red(score + " — needs review")
		default:
			score = s.Red(score + " — " + string(st.Status))
		}
		fmt.Fprintf(w, "\n%s  %s\n", s.Bold(st.Ref+" "+st.Title), score)
		if st.Status == Error || st.Status == Review {
			fmt.Fprintf(w, "  %s\n", s.Red(indentAfterFirst(st.Message, "    ")))
		}
		for _, t := range r.Tests {
			if t.Stage != st.Stage {
				continue
			}
			pts := fmt.Sprintf("%d/%d", t.Points, t.MaxPoints)
			switch t.Status {
			case Pass:
				fmt.Fprintf(w, "  %s %-6s %s\n", s.Green("✓"), pts, t.Name)
			case Fail:
				first, _, _ := strings.Cut(t.Message, "\n")
				fmt.Fprintf(w, "  %s %-6s %s %s\n", s.Red("✗"), pts, t.Name, s.Dim(first))
			case Skip:
				fmt.Fprintf(w, "  %s %-6s %s %s\n", s.Yellow("-"), pts, t.Name, s.Dim("not gradable on this system: left out of the points"))
			default:
				fmt.Fprintf(w, "  %s %-6s %s\n", s.Red("!"), pts, t.Name)
			}
		}
	}
	line := fmt.Sprintf("score: %d/%d points (%.1f%%), %s; minimum %d", r.Points, r.MaxPoints, r.Score, r.Status, minPoints)
	if r.Points >= minPoints {
		fmt.Fprintf(w, "\n%s\n", s.Green(s.Bold(line)))
	} else {
		fmt.Fprintf(w, "\n%s\n", s.Red(s.Bold(line+" — below the minimum")))
	}
}

// policyNote says what a flagged similarity costs under policy.
func policyNote(p Policy) string {
	if p == Credit {
		return "credited, for a person to judge (--similar credit)"
	}
	return "no points until a person has looked (--similar credit keeps them)"
}

func indentAfterFirst(text, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix)
}

// Markdown renders the report as a GitHub step summary: the total, a
// table of stages, the changed files and the failed tests.
func Markdown(r *Report, minPoints int) string {
	var b strings.Builder
	verdict := "✅"
	if r.Points < minPoints {
		verdict = "❌"
	}
	fmt.Fprintf(&b, "## %s grade: %d/%d points (%.1f%%) %s\n\n", r.Course, r.Points, r.MaxPoints, r.Score, verdict)
	fmt.Fprintf(&b, "Status **%s**; minimum %d points.\n\n", r.Status, minPoints)
	b.WriteString("| stage | status | points | tests passed |\n|---|---|---|---|\n")
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "| %s %s | %s | %d/%d | %d/%d |\n", s.Ref, mdEscape(s.Title), s.Status, s.Points, s.MaxPoints, s.TestsPassed, s.TestsTotal)
	}
	if len(r.LabFindings) > 0 {
		b.WriteString("\n### What the lab must not use\n\nImports: no credit. The rest: needs review, no points until a person has looked.\n\n")
		for _, f := range r.LabFindings {
			fmt.Fprintf(&b, "- %s `%s:%d` %s: %s\n", f.Kind, f.File, f.Line, mdEscape(f.What), mdEscape(f.Why))
		}
	}
	if slices.ContainsFunc(r.Similarity, func(x Similarity) bool { return x.Flagged }) {
		fmt.Fprintf(&b, "\n### Close to the course's own solutions\n\n%.0f%% or more of a file's statements, or of the lab's, found in one: %s.\n\n",
			CopyThreshold*100, policyNote(r.SimilarPolicy))
		for _, x := range r.Similarity {
			if x.Flagged {
				fmt.Fprintf(&b, "- `%s`: %.0f%% of its statements in `%s`, most in `%s`\n", x.File, x.Share*100, x.Solution, x.Reference)
			}
		}
	}
	if len(r.Tampered) > 0 {
		b.WriteString("\n### Files that differ from the course\n\nNo credit for the stages they affect.\n\n")
		for _, c := range r.Tampered {
			scope := "every stage"
			if c.Stage != "" {
				scope = "stage " + c.Stage
			}
			fmt.Fprintf(&b, "- `%s` %s (%s)\n", c.Path, c.Change, scope)
		}
	}
	var failed []string
	for _, t := range r.Tests {
		if t.Status != Pass {
			first, _, _ := strings.Cut(t.Message, "\n")
			failed = append(failed, fmt.Sprintf("- `%s` (%s, %s): %s", t.Name, t.Stage, t.Status, mdEscape(first)))
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n<details><summary>Tests without credit</summary>\n\n")
		b.WriteString(strings.Join(failed, "\n"))
		b.WriteString("\n\n</details>\n")
	}
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
