package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/bench"
)

func benchCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:  "bench",
		Usage: "compare your stage-01 processor's speed and allocations with the reference's",
		Description: `Runs the same benchmark (1M events, 10k keys, bounded disorder, 1 s tumbling
windows: NewProcessor, Process every event, Flush) on your lab/ and on the reference
in one go test run, and prints your throughput as a fraction of the reference's and
your allocations per event. A single run is noisy on a shared machine: use -count 5
or more before drawing conclusions.`,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "count", Value: 1, Usage: "run each benchmark `N` times and average (go test -count)"},
			&ucli.StringFlag{Name: "benchtime", Usage: "go test -benchtime, e.g. 1x or 3s (default go's 1s)"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			if _, err := e.current(); err != nil {
				return err
			}
			if err := e.checkLab(); err != nil {
				return err
			}
			e.printf("benchmarking your lab/ and the reference (go test -bench, this takes a while)…\n")
			res, err := bench.Run(c.Context, bench.Options{Root: e.root, Count: c.Int("count"), Benchtime: c.String("benchtime")})
			if err != nil {
				return err
			}
			e.printf("your processor: %.2f× the reference, %s allocs/event\n", res.Ratio(), allocs(res.Lab.AllocsPerEvt))
			e.printf("  lab/:       %8.1f ns/event, %s allocs/event (%d run(s))\n", res.Lab.NsPerEvent, allocs(res.Lab.AllocsPerEvt), res.Lab.Runs)
			e.printf("  reference:  %8.1f ns/event, %s allocs/event (%d run(s))\n", res.Reference.NsPerEvent, allocs(res.Reference.AllocsPerEvt), res.Reference.Runs)
			e.printf("note: the machine's noise (other processes, CPU frequency) affects single runs; use -count 5 or more for a ratio you can trust\n")
			return nil
		},
	}
}

// allocs renders allocations per event: whole numbers as such, else two
// significant decimals.
func allocs(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}
