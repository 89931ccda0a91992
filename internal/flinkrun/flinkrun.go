// Package flinkrun runs scenarios through Apache Flink's own operators. It
// builds the course's Flink module (flink/, a Maven project) when its
// sources are newer than its build, starts the module's runner in one JVM
// and exchanges JSON lines with it: a scenario out (a kind of operator,
// its spec and the calls to make), one step per call back.
//
// The scenarios are said in Flink's terms: mapping the course's conventions
// onto Flink's (the course's watermark w is Flink's w − 1, dedup by ID
// happens before Flink) is the caller's business, written once in
// flink/parity.
package flinkrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MinJava is the oldest Java the module builds with (Flink 2.x needs 17).
const MinJava = 17

// ErrMissing is wrapped by the error Find returns when Java or Maven is
// not there: a learner without them loses nothing but `de flink`.
var ErrMissing = errors.New("not found")

// Env is a machine's Java and Maven and the course's Flink module.
type Env struct {
	// Module is the Flink module's folder: <course>/flink.
	Module string
	// Java and Maven are the commands' paths.
	Java, Maven string
	// JavaVersion is java's feature version (17, 21, …).
	JavaVersion int
}

// Find returns the Env of the course at root, or an error that says in one
// line what is missing: Java 17 or later, or Maven, on PATH.
func Find(root string) (*Env, error) {
	module, err := filepath.EvalSymlinks(filepath.Join(root, "flink")) // Stale walks the folder itself
	if err != nil {
		return nil, fmt.Errorf("the course's Flink module: %w", err)
	}
	e := &Env{Module: module}
	if _, err := os.Stat(filepath.Join(e.Module, "pom.xml")); err != nil {
		return nil, fmt.Errorf("the course's Flink module: %w", err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("java %w on PATH: install a JDK, %d or later (Debian: apt-get install openjdk-%d-jdk-headless)", ErrMissing, MinJava, MinJava)
	}
	v, err := javaVersion(java)
	if err != nil {
		return nil, err
	}
	if v < MinJava {
		return nil, fmt.Errorf("java %d is on PATH; Flink 2 needs %d or later (Debian: apt-get install openjdk-%d-jdk-headless)", v, MinJava, MinJava)
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return nil, fmt.Errorf("mvn (Maven) %w on PATH: install it (Debian: apt-get install maven)", ErrMissing)
	}
	e.Java, e.Maven, e.JavaVersion = java, mvn, v
	return e, nil
}

// javaVersionLine matches the version in `java -version`'s first line:
// `openjdk version "17.0.15" 2025-04-15`, or "1.8.0_402" for Java 8.
var javaVersionLine = regexp.MustCompile(`version "(1\.)?(\d+)`)

// javaVersion returns java's feature version.
func javaVersion(java string) (int, error) {
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s -version: %v", java, err)
	}
	m := javaVersionLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s -version printed no version: %q", java, firstLine(out))
	}
	v, _ := strconv.Atoi(string(m[2]))
	if m[1] != nil {
		v = 8 // "1.8.0": Java 8 numbered itself 1.8
	}
	return v, nil
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// classpathFile is where the module's build writes its runtime class path.
func (e *Env) classpathFile() string { return filepath.Join(e.Module, "target", "classpath.txt") }

// Stale reports whether the module needs building: no build yet, or a
// source (pom.xml, src/) newer than it.
func (e *Env) Stale() (bool, error) {
	built, err := os.Stat(e.classpathFile())
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	stale := false
	err = filepath.WalkDir(e.Module, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(e.Module, path); rel == "target" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".java") && filepath.Base(path) != "pom.xml" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(built.ModTime()) {
			stale = true
			return filepath.SkipAll
		}
		return nil
	})
	return stale, err
}

// Build builds the module when it is stale: `mvn package` without tests,
// offline when everything is in Maven's local repository already, else
// online (the first time: Flink and its dependencies, about 220 MB).
// Maven's output goes to progress, which may be nil; on failure the error
// holds its last lines.
func (e *Env) Build(ctx context.Context, progress io.Writer) error {
	stale, err := e.Stale()
	if err != nil || !stale {
		return err
	}
	var tail tailBuffer
	w := io.Writer(&tail)
	if progress != nil {
		w = io.MultiWriter(progress, &tail)
	}
	args := []string{"-B", "-f", filepath.Join(e.Module, "pom.xml"), "package", "-DskipTests"}
	if err := e.mvn(ctx, io.Discard, append([]string{"-o", "-q"}, args...)...); err == nil {
		return nil
	}
	if err := e.mvn(ctx, w, args...); err != nil {
		return fmt.Errorf("building the Flink module (mvn %s): %w\n%s", strings.Join(args, " "), err, tail.String())
	}
	return nil
}

func (e *Env) mvn(ctx context.Context, out io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, e.Maven, args...)
	cmd.Stdout, cmd.Stderr = out, out
	return cmd.Run()
}

// tailBuffer keeps the last lines written to it, for an error message.
type tailBuffer struct{ lines []string }

func (t *tailBuffer) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		t.lines = append(t.lines, l)
		if len(t.lines) > 30 {
			t.lines = t.lines[1:]
		}
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.Join(t.lines, "\n") }

// Runner is one running JVM of the module's scenario runner. It is not safe
// for concurrent use.
type Runner struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	mu     sync.Mutex // guards stderr, written by exec's copying goroutine
}

// Start starts the runner in a JVM tuned to start fast and run short
// scenarios (fastJVM); Build first. Close stops it.
func (e *Env) Start(ctx context.Context) (*Runner, error) {
	return e.start(ctx, fastJVM...)
}

// fastJVM are the flags of a JVM that starts fast and runs short work:
// the C1 compiler only and the serial garbage collector.
var fastJVM = []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}

// TimingHeap is the heap of the JVM StartForTiming starts: fixed, so that
// every machine times Flink with the same heap, whatever its memory.
const TimingHeap = "2g"

// StartForTiming starts the runner as Start does, but in a JVM as a Flink
// task manager runs: both JIT compilers (C2 compiles the hot paths after
// C1) and the JVM's default garbage collector (G1), with a fixed heap of
// TimingHeap. It is for benchmarks, which warm it up before they time it:
// Start's flags make a JVM that starts fast and runs slower.
func (e *Env) StartForTiming(ctx context.Context) (*Runner, error) {
	return e.start(ctx, "-Xms"+TimingHeap, "-Xmx"+TimingHeap)
}

// JobCommand returns the command that runs one of the module's graduation
// jobs (flink/jobs.md), dev.flkbyo.flink.jobs.<job>, with args (its
// flags); the caller sets its standard streams. Build first.
func (e *Env) JobCommand(ctx context.Context, job string, args ...string) (*exec.Cmd, error) {
	return e.java(ctx, fastJVM, "dev.flkbyo.flink.jobs."+job, args...)
}

// java returns the command that runs the module's class main with args in
// a JVM with the flags jvm; Build first.
func (e *Env) java(ctx context.Context, jvm []string, main string, args ...string) (*exec.Cmd, error) {
	cp, err := os.ReadFile(e.classpathFile())
	if err != nil {
		return nil, fmt.Errorf("the Flink module is not built (%w): build it first", err)
	}
	classes := filepath.Join(e.Module, "target", "classes")
	argv := append(slices.Clone(jvm), "-Xss4m",
		"-Dlog4j2.level=OFF", "-Dorg.slf4j.simpleLogger.defaultLogLevel=off",
		"-cp", classes+string(os.PathListSeparator)+strings.TrimSpace(string(cp)),
		main)
	return exec.CommandContext(ctx, e.Java, append(argv, args...)...), nil
}

// start starts the runner in a JVM with the flags jvm.
func (e *Env) start(ctx context.Context, jvm ...string) (*Runner, error) {
	cmd, err := e.java(ctx, jvm, "dev.flkbyo.flink.Runner")
	if err != nil {
		return nil, err
	}
	r := &Runner{cmd: cmd, stderr: &tailBuffer{}}
	cmd.Stderr = lockedWriter{&r.mu, r.stderr}
	if r.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Flink runner: %w", err)
	}
	return r, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// answer is the runner's reply to one scenario: its steps, decoded by the
// caller, or an error.
type answer struct {
	Steps json.RawMessage `json:"steps"`
	Error string          `json:"error"`
}

// request is one scenario as the runner reads it.
type request struct {
	Kind string `json:"kind"`
	Spec any    `json:"spec"`
	Ops  any    `json:"ops"`
}

// Run runs one scenario through the Flink operator kind names (the runner's
// Runner.KINDS), built from spec, making the calls ops in order, and
// decodes Flink's steps, one per op, into steps, a pointer to a slice.
// spec and ops are any values encoding/json encodes as the kind reads them.
func (r *Runner) Run(kind string, spec, ops, steps any) error {
	line, err := json.Marshal(request{kind, spec, ops})
	if err != nil {
		return err
	}
	if _, err := r.in.Write(append(line, '\n')); err != nil {
		return r.died(err)
	}
	reply, err := r.out.ReadBytes('\n')
	if err != nil {
		return r.died(err)
	}
	var a answer
	if err := json.Unmarshal(reply, &a); err != nil {
		return fmt.Errorf("the Flink runner's reply %.200q: %w", reply, err)
	}
	if a.Error != "" {
		return fmt.Errorf("Flink failed on the scenario: %s", a.Error)
	}
	if err := json.Unmarshal(a.Steps, steps); err != nil {
		return fmt.Errorf("the Flink runner's steps %.200q: %w", a.Steps, err)
	}
	return nil
}

// RunWindows runs a window scenario: Flink's WindowOperator built from
// spec, one Step per Op.
func (r *Runner) RunWindows(spec WindowSpec, ops []Op) ([]Step, error) {
	return runSteps[Step](r, "window", spec, ops)
}

// RunSeenTTL runs a seen-TTL scenario: every delivery, redeliveries too,
// through Flink's keyed dedup function and then its WindowOperator, one
// Step per Op, with Dropped and Remembered set.
func (r *Runner) RunSeenTTL(spec SeenTTLSpec, ops []Op) ([]Step, error) {
	return runSteps[Step](r, "seenttl", spec, ops)
}

// RunBroadcast runs a broadcast scenario: events through Flink's
// WindowOperator and rules through a lateness function, both into Flink's
// CoBroadcastWithKeyedOperator; one BroadcastStep per BroadcastOp.
func (r *Runner) RunBroadcast(spec BroadcastSpec, ops []BroadcastOp) ([]BroadcastStep, error) {
	return runSteps[BroadcastStep](r, "broadcast", spec, ops)
}

// runSteps runs a scenario of kind through r and returns its steps, one
// per op: an answer with another number of steps is an error.
func runSteps[S, O any](r *Runner, kind string, spec any, ops []O) ([]S, error) {
	var steps []S
	if err := r.Run(kind, spec, ops, &steps); err != nil {
		return nil, err
	}
	if len(steps) != len(ops) {
		return nil, fmt.Errorf("the Flink runner answered %d steps for %d operations", len(steps), len(ops))
	}
	return steps, nil
}

// died wraps err with what the runner last wrote to its standard error.
func (r *Runner) died(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Errorf("the Flink runner stopped (%w); its last words:\n%s", err, r.stderr.String())
}

// Close ends the runner's input and waits for it to exit, at most ten
// seconds before killing it.
func (r *Runner) Close() error {
	r.in.Close()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		return <-done
	}
}
