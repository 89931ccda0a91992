package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/flk-byo/course/internal/gotest"
)

// Apache Flink as the reference's performance peer (de bench --full,
// where Java is present): flink/parity's BenchmarkFlinkPeer times the
// benchmark stream through the reference and through Flink's own
// WindowOperator, in one run, in turns, and fails unless both produce the
// same results. It measures the reference, not lab/.
const (
	// FlinkPeerPkg is the package of BenchmarkFlinkPeer, from the course root.
	FlinkPeerPkg = "./flink/parity"
	// FlinkPeerEvents is the length of the benchmark stream --full times
	// through both: all of it, as stage 01's throughput benchmark.
	FlinkPeerEvents = ThroughputEvents
	// FlinkPeerTags are the build tags of the run: the Flink tests, and
	// the reference's tuned build, which de bench measures (RefTags).
	FlinkPeerTags = "flink " + RefTags
)

// FlinkPeerBenchmark is the sub-benchmark de bench --full runs.
var FlinkPeerBenchmark = fmt.Sprintf("BenchmarkFlinkPeer/events-%d", FlinkPeerEvents)

// FlinkPeerVariants are Flink's runs of the job that BenchmarkFlinkPeer
// times, by the name its metrics give them, with what each is.
var FlinkPeerVariants = []struct{ Name, About string }{
	{"flink-hashmap", "HashMapStateBackend"},
	{"flink-rocksdb", "EmbeddedRocksDBStateBackend"},
}

// RunFlinkPeer runs BenchmarkFlinkPeer over the whole benchmark stream in
// the course at root, count times (-benchtime 1x: one round each, after
// one untimed round for the JVM's JIT), and returns the samples, one per
// run. Java and Maven must be there (flinkrun.Find); the module is built
// if stale. progress, if not nil, gets a line as each run finishes.
func RunFlinkPeer(ctx context.Context, root string, count int, progress io.Writer) ([]Sample, error) {
	args := []string{"test", "-tags", FlinkPeerTags, "-run", "^$",
		"-bench", fmt.Sprintf("^BenchmarkFlinkPeer$/^events-%d$", FlinkPeerEvents),
		"-benchtime", "1x", "-count", strconv.Itoa(count),
		"-timeout", "1h", // go test's 10 minutes would end five runs on a busy machine
		FlinkPeerPkg}
	cmd, err := gotest.Command(ctx, gotest.Options{Dir: root, Env: []string{"FLK_FLINK=required"}}, args)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	w := io.Writer(&out)
	if progress != nil {
		w = io.MultiWriter(&out, &peerProgress{w: progress, total: count, start: time.Now()})
	}
	cmd.Stdout, cmd.Stderr = w, w
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	samples := ParseFlinkPeer(bytes.NewReader(out.Bytes()))
	if runErr != nil || len(samples) < count {
		if errors.Is(runErr, exec.ErrNotFound) {
			return nil, gotest.ErrNoGo
		}
		return samples, fmt.Errorf("go test %s failed: %s", strings.Join(args[1:], " "), failureOf(out.String()))
	}
	return samples, nil
}

// failureOf returns the lines of go test's output that say why a run
// failed: from its first "--- FAIL" or error line on, at most 12 lines.
func failureOf(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, l := range lines {
		if strings.Contains(l, "--- FAIL") || strings.HasPrefix(l, "parity:") || isCrash(strings.TrimSpace(l)) {
			return strings.Join(lines[i:min(len(lines), i+12)], "\n")
		}
	}
	return strings.Join(lines[max(0, len(lines)-12):], "\n")
}

// ParseFlinkPeer reads the samples of FlinkPeerBenchmark from go test's
// output, in run order.
func ParseFlinkPeer(r io.Reader) []Sample {
	var samples []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		rest, ok := strings.CutPrefix(f[0], FlinkPeerBenchmark)
		if !ok || !(rest == "" || isProcsSuffix(rest)) {
			continue
		}
		if s, ok := parseSample(f[1:]); ok {
			samples = append(samples, s)
		}
	}
	return samples
}

// peerProgress writes a line as each run of the benchmark finishes.
type peerProgress struct {
	w           io.Writer
	total, done int
	line        []byte
	start       time.Time
}

// Write takes what go test printed and reports each result line.
func (p *peerProgress) Write(b []byte) (int, error) {
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			return len(b), nil
		}
		if len(ParseFlinkPeer(bytes.NewReader(p.line[:i+1]))) > 0 {
			p.done++
			fmt.Fprintf(p.w, "  [%d/%d] Flink beside the reference (%s)\n", p.done, p.total, time.Since(p.start).Round(100*time.Millisecond))
		}
		p.line = p.line[i+1:]
	}
}

// peerRatio is one variant's unit over the reference's, run by run.
func peerRatio(samples []Sample, unit, refUnit string) (Ratio, bool) {
	var r Ratio
	for _, s := range samples {
		of, over := s[unit], s[refUnit]
		if of <= 0 || over <= 0 {
			continue
		}
		x := of / over
		if r.Runs == 0 {
			r.Min, r.Max = x, x
		}
		r.Runs++
		r.Mean += x
		r.Min, r.Max = min(r.Min, x), max(r.Max, x)
		r.Subject += of
		r.Baseline += over
	}
	if r.Runs == 0 {
		return Ratio{}, false
	}
	n := float64(r.Runs)
	r.Mean, r.Subject, r.Baseline = r.Mean/n, r.Subject/n, r.Baseline/n
	return r, true
}

// ReportFlinkPeer writes Flink's cost per event over the reference's, for
// each variant: CPU time (the JVM's, every thread's, against the test
// binary's) and wall time, each with its range over the runs.
func ReportFlinkPeer(w io.Writer, samples []Sample) {
	fmt.Fprintf(w, "Apache Flink beside the reference (the benchmark stream, %s events; the same window job, results checked equal), Flink ÷ reference, per event:\n", thousands(FlinkPeerEvents))
	fmt.Fprintln(w, "  Flink: a DataStream job (source, dedup by ID, WindowOperator, a digest sink) on a MiniCluster in one warm JVM, parallelism 1, object reuse, checkpoints off; CPU is the JVM's, every thread's")
	for _, v := range FlinkPeerVariants {
		label := fmt.Sprintf("%s (%s):", v.Name, v.About)
		cpu, ok := peerRatio(samples, v.Name+"-cpu-ns/event", "reference-cpu-ns/event")
		if !ok {
			fmt.Fprintf(w, "  %s not measured\n", label)
			continue
		}
		line := fmt.Sprintf("  %s CPU %s (%s → %s ns/event%s)", label, times(cpu.Mean), decimals(cpu.Baseline), decimals(cpu.Subject), spread(cpu, "; "))
		if wall, ok := peerRatio(samples, v.Name+"-records-ns/event", "reference-ns/event"); ok {
			line += fmt.Sprintf("; wall time %s (%s → %s ns/event%s)", times(wall.Mean), decimals(wall.Baseline), decimals(wall.Subject), spread(wall, "; "))
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "  wall time: Flink's from its first event to its last result, its tasks in threads of their own (docs/PERFORMANCE.md, Flink beside the reference)")
}
