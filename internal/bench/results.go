package bench

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/flk-byo/course/internal/gotest"
)

// Sample is one run of one benchmark: the value of each unit it reported,
// such as "ns/event".
type Sample map[string]float64

// Failure is a benchmark that failed (a panic in the code under test is
// one, with stagebench's message), or a test binary that crashed.
type Failure struct {
	Package   string // LabPkg or RefPkg; "" if go test's output did not say
	Benchmark string // full name; "" for a crash
	Message   string // the first line of the failure
}

// explain returns f as one line: a *WorkError unless the reference
// failed, which is the course's bug.
func (f Failure) explain() error {
	what := fmt.Sprintf("the benchmark %s failed: %s", f.Benchmark, f.Message)
	if f.Benchmark == "" {
		what = "the benchmarks crashed: " + f.Message
	}
	if f.Package == RefPkg {
		return fmt.Errorf("on the reference, %s (a bug in the course: please report it)", what)
	}
	// stagebench's suite.Recover reports a skeleton's panic("TODO …") as
	// gotest.NotImplemented and the message.
	if todo, ok := strings.CutPrefix(f.Message, gotest.NotImplemented); ok {
		stage := stageOf(f.Benchmark)
		msg := fmt.Sprintf("your code is not implemented yet (%s): finish stage %02d first", todo, stage)
		if stage == 1 {
			msg = fmt.Sprintf("your processor is not implemented yet (%s); finish stage 01 first", todo)
		} else if prev := Stages(stage - 1); len(prev) > 0 {
			msg += fmt.Sprintf(", or run de bench --stage %02d", prev[len(prev)-1])
		}
		return &WorkError{msg: msg}
	}
	if f.Package == LabPkg {
		what = "on your lab/, " + what
	}
	return &WorkError{msg: what}
}

// stageOf returns the stage of a benchmark's full name (BenchmarkDe04/…),
// or 0.
func stageOf(name string) int {
	for _, b := range Benchmarks {
		if strings.HasPrefix(name, TopLevel(b.Stage)) {
			return b.Stage
		}
	}
	return 0
}

// Measurements is what one go test run measured: the samples of every
// benchmark in each package, in run order, and what failed.
type Measurements struct {
	Stages   []int // the stages whose benchmarks ran (Options.Selected)
	Full     bool  // the full run's (Options.Full), not the quick one's
	samples  map[string]map[string][]Sample
	Failures []Failure
}

// Samples returns the samples of the benchmark named name (its full name)
// in pkg, one per run, in run order.
func (m *Measurements) Samples(pkg, name string) []Sample { return m.samples[pkg][name] }

// ran reports whether pkg printed any benchmark result.
func (m *Measurements) ran(pkg string) bool { return len(m.samples[pkg]) > 0 }

// add records a sample of name in pkg.
func (m *Measurements) add(pkg, name string, s Sample) {
	if m.samples[pkg] == nil {
		m.samples[pkg] = map[string][]Sample{}
	}
	m.samples[pkg][name] = append(m.samples[pkg][name], s)
}

// Parse reads go test -bench output for the two packages: "pkg:" headers,
// the standard result lines, e.g.
//
//	BenchmarkDe01/throughput-2   1   1230077506 ns/op   1.207 allocs/event   1230 cpu-ns/event
//
// failures ("--- FAIL: BenchmarkDe04/…" and the indented message after
// it) and crashes ("panic: …", "fatal error: …"). go test prints each
// package's output in one piece, ending with its "ok" or "FAIL" line, and
// prints the "pkg:" header only before a package's first result: so a
// result belongs to the package of the header before it, and a failure to
// the package of the summary line after it. A result whose line the code
// under test broke by printing (the name, then its output, then the
// numbers on a later line) is still read.
func Parse(r io.Reader) *Measurements {
	m := &Measurements{samples: map[string]map[string][]Sample{}}
	var (
		pkg        string // the package whose results these are
		pending    string // a benchmark whose name was printed but not yet its numbers
		failing    = -1   // the index of the failure whose message comes next
		unassigned []int  // failures awaiting their package's summary line
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg, pending = strings.TrimSpace(p), ""
			continue
		}
		if failing >= 0 {
			msg, ok := failureMessage(line)
			failing, m.Failures[failing].Message = -1, msg
			if ok {
				continue
			}
		}
		if p, ok := summaryPackage(line); ok {
			for _, i := range unassigned {
				m.Failures[i].Package = p
			}
			pkg, pending, unassigned = "", "", nil
			continue
		}
		if name, ok := strings.CutPrefix(trimmed, "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " ")
			if isLeaf(name) {
				m.Failures = append(m.Failures, Failure{Benchmark: name})
				failing = len(m.Failures) - 1
				unassigned = append(unassigned, failing)
			}
			continue
		}
		if isCrash(trimmed) {
			m.Failures = append(m.Failures, Failure{Message: trimmed})
			unassigned = append(unassigned, len(m.Failures)-1)
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if name, ok := benchmarkName(f[0]); ok {
			pending = name
			f = f[1:]
		}
		if pending == "" {
			continue
		}
		if s, ok := parseSample(f); ok {
			m.add(pkg, pending, s)
			pending = ""
		}
	}
	return m
}

// summaryPackage returns the package of go test's last line for it:
// "ok  	pkg	1.2s" or "FAIL	pkg	0.1s" (or "FAIL	pkg [build failed]").
func summaryPackage(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "ok  	")
	if !ok {
		rest, ok = strings.CutPrefix(line, "FAIL	")
	}
	if !ok {
		return "", false
	}
	p, _, _ := strings.Cut(rest, "	")
	p, _, _ = strings.Cut(p, " ")
	return p, p != ""
}

// failureMessage returns the message of an indented line that follows a
// "--- FAIL:" line, less its "file.go:NN: " position.
func failureMessage(line string) (string, bool) {
	if !strings.HasPrefix(line, "    ") {
		return "", false
	}
	msg := strings.TrimSpace(line)
	if pos, rest, ok := strings.Cut(msg, ": "); ok && strings.Contains(pos, ".go:") {
		msg = rest
	}
	return msg, true
}

// isLeaf reports whether name is one of the table's benchmarks (not the
// BenchmarkDeNN that fails because a sub-benchmark did).
func isLeaf(name string) bool {
	for _, b := range Benchmarks {
		if b.FullName() == name {
			return true
		}
	}
	return false
}

// benchmarkName returns the table's full name of field, a benchmark name
// as go test prints it, with or without its -GOMAXPROCS suffix.
func benchmarkName(field string) (string, bool) {
	for _, b := range Benchmarks {
		name := b.FullName()
		if rest, ok := strings.CutPrefix(field, name); ok && (rest == "" || isProcsSuffix(rest)) {
			return name, true
		}
	}
	return "", false
}

// isProcsSuffix reports whether s is "-N" for a number N.
func isProcsSuffix(s string) bool {
	n, ok := strings.CutPrefix(s, "-")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// parseSample reads the fields of a result after the name: the iteration
// count, then value-unit pairs. It needs at least the ns/op pair.
func parseSample(f []string) (Sample, bool) {
	if len(f) < 3 {
		return nil, false
	}
	if _, err := strconv.Atoi(f[0]); err != nil {
		return nil, false
	}
	s := Sample{}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, false
		}
		s[f[i+1]] = v
	}
	_, ok := s["ns/op"]
	return s, ok
}
