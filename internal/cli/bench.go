package cli

import (
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/bench"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/flinkrun"
)

func benchCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "bench",
		Usage: "measure what the cards promise about cost, on your lab/ beside the reference",
		Description: `Runs the benchmarks of the stage you are at on your lab/ and on the reference,
in one go test run, and prints ratios, each against a baseline measured in the same
run. At a stage without benchmarks of its own it runs the latest stage's before it;
--all runs those of every stage you have reached. The stages' benchmarks:

   01  your processor's throughput as a fraction of the reference's (the
       benchmark stream at 250 000 events, --full at 1M; 10k keys, bounded
       disorder, 1 s windows), with allocations per event; and
       the scaling ratio: the cost per event with 10 000 windows open divided by
       the cost with 2. Flat, about 1×, is the goal; a processor that visits
       every open window on each event shows 10× or far more. And your cost
       per event over three baselines timed beside it, at 100 000 events
       (--full: 10 000 to 4 000 000): a plain fold, the fold with a map of
       seen IDs, and a naive first try with the same results.
   03  the same with 10 000 fired windows waiting out their allowed lateness:
       a processor that scans its state to drop expired windows shows 10× or more.
   04  Snapshot and RestoreProcessor, in ns per window and bytes per window, at
       100 000 windows divided by at 1 000 (with --full, the card's 1 000 000
       by 10 000). Linear is about 1× (caches make more windows somewhat
       dearer); 10× or more means a step that grows with the state.
   09  the SlidingProcessor's CPU time per event at Size/Slide 1, 4, 16 and 64,
       over a naive strategy (an update per window) and a sliced one (an update
       per event, a merge per firing) timed beside it.
   10  the cost per event with the tight seen-ID TTL over without one, and the IDs
       each remembers, at 10 000 and 100 000 events (with --full, 100 000 and
       1 000 000): with the TTL, as many at both lengths.
   11  the BroadcastProcessor's CPU time per event over the ParallelProcessor's
       alone, at 1, 10 and 100 rule prefixes.
   12  your BackendProcessor on your Pebble backend over on your heap backend:
       CPU per event, Go heap per open window (far below 1×), and the wall time
       of a first checkpoint and of the next ones (Pebble's cost what changed).

Times are the test binary's CPU time (garbage collection included) where the system
reports it, so that other processes' use of the CPU does not count. By default each
benchmark runs one pass (-benchtime 1x), 3 times (-count 3), and every ratio is printed
with its range over the 3: a quick answer, with the noise floor beside it (how far the
reference's own runs were apart; a lab identical to the reference reads within it).
--full runs go's default benchtime 5 times, stage 01's baselines to 4 000 000 events
and stage 04 at a million windows: minutes, not seconds, and narrower ranges. A line is
printed as each benchmark finishes. Where Java 17 and Maven are there, --full ends by
timing Apache Flink beside the reference (not lab/): the benchmark stream through the
same window job in Flink, on its heap and RocksDB state backends, results checked equal;
Flink's cost per event over the reference's, with ranges (docs/PERFORMANCE.md, Flink
beside the reference). Without them it says in one line that it skipped Flink.

The test binaries it builds are kept in .de/bench/, one per package, so a run at the
same stage with lab/ unchanged links nothing, and after an edit to lab/ only the lab's is
linked again. A second de bench started in the same course while one runs stops with one
line (exit 2). docs/PERFORMANCE.md has the reference's numbers, how long a run takes, and
how each table is reproduced.

Exit status: 0 when every benchmark ran, 1 when your lab/ failed (it does not compile,
a benchmark panicked or failed), 2 when de bench could not run.`,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "count", Value: quickCount, Usage: "run each benchmark `N` times; ratios show their mean and range (go test -count)"},
			&ucli.StringFlag{Name: "benchtime", Value: quickBenchtime, Usage: "go test -benchtime, e.g. 1x or 3s"},
			&ucli.BoolFlag{Name: "full", Usage: fmt.Sprintf("the full run: go's default benchtime, %d times (unless -count or -benchtime say otherwise), stage 01's baselines to 4 000 000 events and stage 04 at a million windows", fullCount)},
			&ucli.BoolFlag{Name: "all", Usage: "run the benchmarks of every stage up to the current one (or --stage), not only its own: the whole picture, in a run several times longer"},
			&ucli.StringFlag{Name: "stage", Usage: "benchmark stage `NN` instead of the current one (with --all, 01..NN)"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			if !coursedir.HasReference(e.root) {
				return errNoReference("de bench measures your lab/ beside it")
			}
			last, err := e.benchStage(c.String("stage"))
			if err != nil {
				return err
			}
			o := bench.Options{Root: e.root, Stage: last, All: c.Bool("all"), Count: c.Int("count"), Benchtime: c.String("benchtime"), Full: c.Bool("full"), Progress: e.Stderr}
			if o.Full {
				if !c.IsSet("count") {
					o.Count = fullCount
				}
				if !c.IsSet("benchtime") {
					o.Benchtime = ""
				}
			}
			if err := o.Validate(); err != nil {
				return err
			}
			e.printf("benchmarking stage(s) %s on your lab/ and on the reference (go test -bench -count %d%s)…\n", bench.StageList(o.Selected()), o.Count, benchtimeArg(o.Benchtime))
			if scope := o.Scope(); scope != "" {
				e.printf("  %s\n", scope)
			}
			m, err := bench.Run(c.Context, o)
			if m != nil {
				bench.Report(e.Stdout, m)
			}
			var work *bench.WorkError
			if errors.As(err, &work) {
				return failed(err) // the lab's failure: exit 1
			}
			if err != nil || !o.Full {
				return err // nil, or de bench could not run: exit 2
			}
			return e.benchFlink(c, o.Count)
		},
	}
}

// benchFlink is the end of de bench --full: the reference beside Apache
// Flink, count runs, where Java and Maven are there; where they are not, a
// line that says so. An error is de bench's (exit 2): Flink's results that
// differ from the reference's are the course's bug, not the lab's.
func (e *env) benchFlink(c *ucli.Context, count int) error {
	if _, err := flinkrun.Find(e.root); err != nil {
		e.printf("Flink beside the reference: skipped, %v\n", err)
		return nil
	}
	e.printf("timing Apache Flink beside the reference over the benchmark stream (%d runs, each a few Flink jobs; the first builds the Flink module if needed)…\n", count)
	samples, err := bench.RunFlinkPeer(c.Context, e.root, count, e.Stderr)
	if len(samples) > 0 {
		bench.ReportFlinkPeer(e.Stdout, samples)
	}
	if err != nil {
		return fmt.Errorf("Flink beside the reference: %w", err)
	}
	return nil
}

// The runs of de bench: the default one, quick, and --full's.
const (
	quickCount     = 3
	quickBenchtime = "1x"
	fullCount      = 5
)

// benchtimeArg renders a -benchtime for the first line of a run: "" for
// go's default.
func benchtimeArg(benchtime string) string {
	if benchtime == "" {
		return ""
	}
	return " -benchtime " + benchtime
}

// benchStage returns the last stage to benchmark: --stage if given, which
// must not be past the current stage (a later stage's benchmarks need API
// that lab/ does not have yet), else the current stage. It needs a lab/.
func (e *env) benchStage(flag string) (int, error) {
	cur, err := e.current()
	if err != nil {
		return 0, err
	}
	if err := e.checkLab(); err != nil {
		return 0, err
	}
	if flag == "" {
		return cur.Number, nil
	}
	st, err := e.cat.ResolveReady(flag)
	if err != nil {
		return 0, err
	}
	if st.Number > cur.Number {
		return 0, fmt.Errorf("--stage %s: you are at stage %02d, and a later stage's benchmarks need API your lab/ does not have yet", flag, cur.Number)
	}
	return st.Number, nil
}
