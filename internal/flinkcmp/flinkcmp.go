// Package flinkcmp is `de flink`: it runs a stage's demo stream
// (internal/demostream) through the learner's lab/ and through the stage's
// graduation job on Apache Flink (flink/jobs.md), and shows the two outputs
// side by side, after the conventions of docs/PARITY.md.
//
// The lab's side is a driver compiled with lab/ (internal/labjob/stageNN,
// build tags lab and labjob) and run as a child process, so that the learner's code
// never runs inside de; Flink's side is the job's main, run by
// internal/flinkrun's Java once the module is built. Everything the lab's
// side writes goes under the course's .de/flink/.
//
// The jobs apply the course's conventions themselves (docs/PARITY.md):
// they drop redeliveries before Flink's operators (deliberate difference
// 1), and their per-event watermarks are Flink's BoundedOutOfOrderness
// ones, max − delay − 1, the course's max − delay in Flink's terms. What is
// left to map is the order of the output, which Compare does.
package flinkcmp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/flk-byo/course/internal/demostream"
	"github.com/flk-byo/course/internal/flinkrun"
	"github.com/flk-byo/course/internal/jobio"
	"github.com/flk-byo/course/internal/term"
)

// Options is one run of de flink.
type Options struct {
	// Root is the course.
	Root string
	// Stage is the stage to compare (1-based).
	Stage int
	// Out receives the side-by-side view and the verdict.
	Out io.Writer
	// Style colors Out; the zero value is plain.
	Style term.Style
	// Progress receives the Flink module's build progress (Maven, the
	// first time: minutes), as one line redrawn in place when Live (a
	// terminal), or as plain lines.
	Progress io.Writer
	Live     bool
}

// LabError is the lab's side failing: its driver does not build, or the
// lab panics (a skeleton's TODO: not written yet) or returns an error.
// The work failed, not the command.
type LabError struct{ Msg string }

func (e *LabError) Error() string { return e.Msg }

// Run compares stage o.Stage and reports whether the two sides agree. An
// error is either a *LabError or the comparison not being possible: a
// stage with nothing to compare, Java or Maven missing (one line saying
// what to install), the Flink module failing to build or run.
func Run(ctx context.Context, o Options) (bool, error) {
	ok, why := Comparable(o.Stage)
	if !ok {
		return false, errors.New(why)
	}
	j := jobs[o.Stage]
	s, _ := demostream.Of(o.Stage)
	env, err := flinkrun.Find(o.Root)
	if err != nil {
		return false, fmt.Errorf("de flink needs Java %d and Maven: %w", flinkrun.MinJava, err)
	}
	dir := filepath.Join(o.Root, ".de", "flink", fmt.Sprintf("stage%02d", o.Stage))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	var events bytes.Buffer
	if err := jobio.WriteEvents(&events, s.Events); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), events.Bytes(), 0o644); err != nil {
		return false, err
	}
	rules := filepath.Join(dir, "rules.jsonl")
	if len(s.Rules) > 0 {
		rs := make([]jobio.Rule, len(s.Rules))
		for i, r := range s.Rules {
			rs[i] = jobio.Rule(r)
		}
		var b bytes.Buffer
		if err := jobio.WriteRules(&b, rs); err != nil {
			return false, err
		}
		if err := os.WriteFile(rules, b.Bytes(), 0o644); err != nil {
			return false, err
		}
	}
	st := o.Style
	fmt.Fprintf(o.Out, "%s\n", st.Bold(fmt.Sprintf("Stage %02d's demo stream (%s, as de demo FLK-BYO/%02d shows them) through your lab/ and through Apache Flink (%s)", o.Stage, count(s), o.Stage, j.class)))
	for _, n := range j.notes {
		fmt.Fprintf(o.Out, "%s\n", st.Dim("  "+n))
	}

	labOut, err := runLab(ctx, o.Root, o.Stage, dir, events.Bytes())
	if err != nil {
		return false, err
	}
	flinkOut, err := runFlink(ctx, env, o, j.class, j.flags(s, rules), events.Bytes())
	if err != nil {
		return false, err
	}
	c := Compare(labOut, flinkOut, s)
	render(o.Out, st, c)
	return c.Agree(), nil
}

// runLab builds stage's driver with lab/ into dir and runs it on events,
// with a fresh work folder dir/lab.
func runLab(ctx context.Context, root string, stage int, dir string, events []byte) (jobio.Output, error) {
	bin := filepath.Join(dir, "lab-driver")
	build := exec.CommandContext(ctx, "go", "build", "-tags", "lab,labjob", "-o", bin, fmt.Sprintf("./internal/labjob/stage%02d", stage))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return jobio.Output{}, fmt.Errorf("building your lab/ with stage %02d's driver: %w", stage, err)
		}
		first := firstError(out)
		if _, name, ok := strings.Cut(first, "undefined: lab."); ok {
			return jobio.Output{}, &LabError{fmt.Sprintf("your lab/ has no %s yet, which stage %02d's driver calls: de start FLK-BYO/%02d starts the stage", name, stage, stage)}
		}
		return jobio.Output{}, &LabError{fmt.Sprintf("your lab/ does not build with stage %02d's driver (%s): de test shows every compile error", stage, first)}
	}
	work := filepath.Join(dir, "lab")
	if err := os.RemoveAll(work); err != nil {
		return jobio.Output{}, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return jobio.Output{}, err
	}
	var stdout, stderr bytes.Buffer
	run := exec.CommandContext(ctx, bin, work)
	run.Dir = root
	run.Stdin, run.Stdout, run.Stderr = bytes.NewReader(events), &stdout, &stderr
	if err := run.Run(); err != nil {
		msg := lastLine(stderr.Bytes())
		if msg == "" {
			msg = fmt.Sprintf("stage %02d's lab driver: %v", stage, err)
		}
		return jobio.Output{}, &LabError{msg}
	}
	out, err := jobio.Parse(stdout.Bytes())
	if err != nil {
		return jobio.Output{}, fmt.Errorf("stage %02d's lab driver printed %w", stage, err)
	}
	return out, nil
}

// runFlink builds the Flink module if it is stale, showing progress, and
// runs the job class with flags on events.
func runFlink(ctx context.Context, env *flinkrun.Env, o Options, class string, flags []string, events []byte) (jobio.Output, error) {
	stale, err := env.Stale()
	if err != nil {
		return jobio.Output{}, err
	}
	if stale {
		p := &progress{w: o.Progress, live: o.Live}
		p.start()
		err := env.Build(ctx, p)
		p.end(err == nil)
		if err != nil {
			return jobio.Output{}, err
		}
	}
	cmd, err := env.JobCommand(ctx, class, flags...)
	if err != nil {
		return jobio.Output{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(events), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return jobio.Output{}, fmt.Errorf("Flink's job %s failed (%v): %s", class, err, lastLine(stderr.Bytes()))
	}
	out, err := jobio.Parse(stdout.Bytes())
	if err != nil {
		return jobio.Output{}, fmt.Errorf("Flink's job %s printed %w", class, err)
	}
	return out, nil
}

// firstError is the first line of go build's output that is a compile
// error (path:line:col: message), or its first line.
func firstError(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		return strings.TrimSpace(l)
	}
	return strings.TrimSpace(lines[0])
}

// lastLine is the last line of b that is not blank.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// render writes the side-by-side view and the verdict.
func render(w io.Writer, st term.Style, c Comparison) {
	const labHead, flinkHead = "your lab/", "Flink"
	width := utf8.RuneCountInString(labHead)
	for _, r := range c.Rows {
		width = max(width, utf8.RuneCountInString(r.Lab))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	fmt.Fprintf(w, "\n  %s │ %s\n", st.Cyan(pad(labHead)), st.Cyan(flinkHead))
	for _, r := range c.Rows {
		left, right := orNothing(r.Lab), orNothing(r.Flink)
		if r.Same {
			fmt.Fprintf(w, "  %s │ %s\n", pad(left), right)
			continue
		}
		fmt.Fprintf(w, "%s %s │ %s\n", st.Red("≠"), st.Red(pad(left)), st.Red(right))
	}
	if len(c.Rows) == 0 {
		fmt.Fprintf(w, "  %s │ %s\n", pad("(nothing)"), "(nothing)")
	}
	if c.Agree() {
		fmt.Fprintf(w, "\n%s\n", st.Green(fmt.Sprintf("✓ your lab/ and Flink agree, line for line (%d).", len(c.Rows))))
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Red(fmt.Sprintf("✗ your lab/ and Flink differ on %d of %d lines (≠); no deliberate difference in docs/PARITY.md explains that.", c.Differ(), len(c.Rows))))
	fmt.Fprintf(w, "%s\n", st.Dim("  de demo shows what the reference does with this stream; de test finds where your lab/ goes another way."))
}

// orNothing renders a missing line.
func orNothing(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// progress shows the Flink module's build: Maven's lines counted, on one
// line redrawn in place when live, or as a plain line every hundred.
type progress struct {
	w     io.Writer
	live  bool
	lines int
}

func (p *progress) start() {
	fmt.Fprintln(p.w, "Building the Flink module: the first time, Maven downloads Flink and its dependencies (about 220 MB, minutes); then it builds offline.")
}

func (p *progress) Write(b []byte) (int, error) {
	for _, c := range b {
		if c != '\n' {
			continue
		}
		p.lines++
		switch {
		case p.live:
			fmt.Fprintf(p.w, "\r  Maven: %d lines…", p.lines)
		case p.lines%100 == 0:
			fmt.Fprintf(p.w, "  Maven: %d lines…\n", p.lines)
		}
	}
	return len(b), nil
}

func (p *progress) end(ok bool) {
	if p.live && p.lines > 0 {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	if ok {
		fmt.Fprintln(p.w, "Built the Flink module.")
	}
}

// count says how many events, and rules, s has.
func count(s demostream.Stream) string {
	n := fmt.Sprintf("%d events", len(s.Events))
	if len(s.Rules) > 0 {
		n += fmt.Sprintf(" and %d rules", len(s.Rules))
	}
	return n
}
