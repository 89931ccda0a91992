// Package bench is `de bench`: it runs the same tumbling-window benchmark on
// the learner's lab/ and on the reference in solutions/, in one go test run,
// and compares them.
//
// No benchmark file lives in a stage folder or in lab/: Run writes the same
// benchmark body twice (package lab, package solutions) into a scratch
// folder and adds them to both packages with go test -overlay, so nothing a
// learner owns is touched.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Name is the benchmark Run adds to both packages.
const Name = "BenchmarkDeProcessor"

// Options says how to run the comparison.
type Options struct {
	Root      string // the course root (lab/ and solutions/ are under it)
	Count     int    // go test -count; ≥ 1
	Benchtime string // go test -benchtime; "" for go's default
}

// Measure is one package's benchmark, averaged over its runs.
type Measure struct {
	Runs         int
	NsPerEvent   float64
	AllocsPerEvt float64
}

// Result is the lab's and the reference's measures from the same run.
type Result struct {
	Lab, Reference Measure
}

// Ratio is the lab's throughput as a fraction of the reference's: above 1
// the lab is faster.
func (r Result) Ratio() float64 { return r.Reference.NsPerEvent / r.Lab.NsPerEvent }

const (
	labPkg = "github.com/flk-byo/course/lab"
	refPkg = "github.com/flk-byo/course/solutions"
)

// body is the benchmark both packages get: solutions/bench_test.go's
// BenchmarkTumbling/processor, on the same stream (kit.BenchmarkStream),
// using only stage 01's API.
const body = `package PKG

import (
	"runtime"
	"testing"

	"github.com/flk-byo/course/kit"
)

var deBenchSink []kit.Result

func BenchmarkDeProcessor(b *testing.B) {
	events := kit.BenchmarkStream()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		p, err := NewProcessor(Config{WindowSize: kit.BenchmarkWindow, WatermarkDelay: kit.BenchmarkDisorder})
		if err != nil {
			b.Fatal(err)
		}
		var out []kit.Result
		for _, e := range events {
			out = append(out[:0], p.Process(e)...)
		}
		deBenchSink = append(out[:0], p.Flush()...)
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	total := float64(b.N) * float64(len(events))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/event")
}
`

// Run runs the benchmark on lab/ and solutions/ in one go test run
// (packages one after the other, -p 1) and returns both measures. An error
// is one line: the lab does not compile, panicked, or go test failed.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Count < 1 {
		return Result{}, fmt.Errorf("-count must be at least 1, got %d", o.Count)
	}
	scratch, err := os.MkdirTemp("", "de-bench-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(scratch)
	replace := map[string]string{}
	for _, pkg := range []string{"lab", "solutions"} {
		src := filepath.Join(scratch, pkg+"_debench_test.go")
		if err := os.WriteFile(src, []byte(strings.Replace(body, "PKG", pkg, 1)), 0o644); err != nil {
			return Result{}, err
		}
		replace[filepath.Join(o.Root, pkg, "zz_debench_test.go")] = src
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return Result{}, err
	}
	overlay := filepath.Join(scratch, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return Result{}, err
	}

	args := []string{"test", "-p", "1", "-overlay", overlay, "-run", "^$", "-bench", "^" + Name + "$", "-benchmem", "-count", strconv.Itoa(o.Count)}
	if o.Benchtime != "" {
		args = append(args, "-benchtime", o.Benchtime)
	}
	args = append(args, "./lab", "./solutions")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = o.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	res, perr := Parse(bytes.NewReader(out.Bytes()))
	if runErr != nil || perr != nil {
		return Result{}, explain(out.String(), runErr, perr)
	}
	return res, nil
}

// explain turns a failed go test run into one line.
func explain(out string, runErr, perr error) error {
	first := func(pred func(string) bool) string {
		for line := range strings.Lines(out) {
			if l := strings.TrimSpace(line); pred(l) {
				return l
			}
		}
		return ""
	}
	if strings.Contains(out, labPkg+" [build failed]") || strings.Contains(out, labPkg+" [setup failed]") {
		msg := first(func(l string) bool { return strings.HasPrefix(l, "lab/") || strings.Contains(l, "/lab/") })
		return fmt.Errorf("your lab/ does not compile: %s", msg)
	}
	if l := first(func(l string) bool { return strings.HasPrefix(l, "panic: ") }); l != "" {
		if strings.Contains(l, "TODO") {
			return fmt.Errorf("your processor is not implemented yet (%s); finish stage 01 first", strings.TrimPrefix(l, "panic: "))
		}
		return fmt.Errorf("the benchmark panicked: %s", strings.TrimPrefix(l, "panic: "))
	}
	if runErr != nil {
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			return fmt.Errorf("could not run go test: %v", runErr)
		}
		if l := first(func(l string) bool { return strings.HasPrefix(l, "FAIL") || strings.Contains(l, "error") }); l != "" {
			return fmt.Errorf("go test -bench failed: %s", l)
		}
		return fmt.Errorf("go test -bench failed: %v", runErr)
	}
	return perr
}

// Parse reads go test -bench output for the two packages: "pkg:" headers
// and the standard benchmark lines, e.g.
//
//	BenchmarkDeProcessor-2   1   1230077506 ns/op   1.207 allocs/event   1230 ns/event   365377208 B/op   1206672 allocs/op
//
// and averages each package's ns/event and allocs/event over its runs.
func Parse(r interface{ Read([]byte) (int, error) }) (Result, error) {
	sums := map[string]*Measure{labPkg: {}, refPkg: {}}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !(f[0] == Name || strings.HasPrefix(f[0], Name+"-")) {
			continue
		}
		m := sums[pkg]
		if m == nil {
			continue
		}
		var ns, allocs float64
		seen := 0
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/event":
				ns, seen = v, seen+1
			case "allocs/event":
				allocs, seen = v, seen+1
			}
		}
		if seen != 2 {
			continue
		}
		m.Runs++
		m.NsPerEvent += ns
		m.AllocsPerEvt += allocs
	}
	if err := sc.Err(); err != nil {
		return Result{}, err
	}
	for name, m := range sums {
		if m.Runs == 0 {
			return Result{}, fmt.Errorf("go test printed no %s result for %s", Name, name)
		}
		m.NsPerEvent /= float64(m.Runs)
		m.AllocsPerEvt /= float64(m.Runs)
	}
	return Result{Lab: *sums[labPkg], Reference: *sums[refPkg]}, nil
}
