package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/integrity"
)

func checkCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:     "check",
		Category: "maintainer",
		Usage:    "prove every test of each stage fails on the untouched skeletons (course maintainers, CI)",
		Description: `For each ready stage N (or --stage N), composes the skeletons 01..N into a scratch
lab/ in a copy of the course, compiles suites 01..N against it, and fails if any
test of stage N passes there.`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "stage", Usage: "check only stage `NN`"},
		},
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			var sts []catalog.Stage
			if name := c.String("stage"); name != "" {
				st, err := e.cat.Resolve(name)
				if err != nil {
					return err
				}
				sts = append(sts, st)
			} else {
				for _, st := range e.cat.Stages {
					if st.Ready {
						sts = append(sts, st)
					}
				}
			}
			results, err := integrity.Skeletons(c.Context, e.root, e.cat, sts, func(st catalog.Stage) {
				fmt.Fprintf(e.Stderr, "checking %s against skeletons 01..%02d …\n", st.ID(), st.Number)
			})
			if err != nil {
				return err
			}
			return e.printSkeletonResults(results)
		},
	}
}

func (e *env) printSkeletonResults(results []integrity.SkeletonResult) error {
	s := e.style
	e.printf("%-24s %6s %18s  %s\n", "stage", "tests", "fail on skeleton", "result")
	bad := 0
	for _, r := range results {
		verdict := s.Green("ok")
		if len(r.Problems) > 0 {
			verdict = s.Red("UNSOUND")
			bad++
		}
		e.printf("%-24s %6d %18d  %s\n", r.Stage.ID(), r.Tests, r.Failed, verdict)
		for _, p := range r.Problems {
			e.printf("    %s\n", p)
		}
	}
	if bad > 0 {
		return fmt.Errorf("skeleton check: %d of %d stages have tests that cannot fail or suites that do not compile", bad, len(results))
	}
	return nil
}
