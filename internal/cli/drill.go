package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/gotest"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/testreport"
	"github.com/flk-byo/course/internal/verdict"
)

// drillCommand is de drill and its subcommands: the incident drills, each a
// small broken job on the course's engine that the learner repairs and
// then defends.
func drillCommand(io IO) *ucli.Command {
	action := func(f func(e *env, c *ucli.Context) error) ucli.ActionFunc {
		return func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return f(e, c)
		}
	}
	return &ucli.Command{
		Name:  "drill",
		Usage: "incident drills: find the bug in a running job, fix it, and defend a number",
		Description: `A drill is a small job on the course's engine, broken the way real jobs break.
de drill start NAME copies it into lab/drills/ (never overwriting a file); de drill test
runs the check that reproduces the symptom and the checks of your fix; de drill explain
shows the worked explanation once it passes. A drill runs on your own engine once you have
passed the stages it needs, and on the reference engine until then; it says which.`,
		Subcommands: []*ucli.Command{
			{
				Name:   "list",
				Usage:  "show the drills, what each needs and how far you are",
				Action: action(func(e *env, c *ucli.Context) error { return e.drillList(c.Args().Slice()) }),
			},
			{
				Name:      "start",
				Usage:     "copy a drill's job into lab/drills/ (never overwriting a file) and show its card",
				ArgsUsage: "NAME",
				Action:    action(func(e *env, c *ucli.Context) error { return e.drillStart(c.Args().Slice()) }),
			},
			{
				Name:      "test",
				Usage:     "run a drill's checks on your job; exit 0 only when all pass",
				ArgsUsage: "[NAME]",
				Flags:     append(timeoutFlags(120*time.Second, 60*time.Second), verboseFlag),
				Action: action(func(e *env, c *ucli.Context) error {
					e.verbose = c.Bool("verbose")
					return e.drillTest(c, c.Args().Slice(), c.Duration("timeout"), c.Duration("test-timeout"))
				}),
			},
			{
				Name:      "hint",
				Usage:     "reveal the next hint of a drill",
				ArgsUsage: "[NAME]",
				Action: action(func(e *env, c *ucli.Context) error {
					d, err := e.startedDrill(c.Args().Slice(), "hint")
					if err != nil {
						return err
					}
					return e.nextHint(d)
				}),
			},
			{
				Name:      "reset",
				Usage:     "put a drill's untouched job back in lab/drills/, your versions moved to .de/backup/",
				ArgsUsage: "[NAME]",
				Description: `Every file of the drill's job that differs from the untouched job is first moved
to .de/backup/<timestamp>/lab/drills/<package>/<name>, byte for byte; then the
untouched job is written. Nothing is deleted. Asks before changing anything unless
--yes. The drill is no longer marked passed: de drill test records it again.`,
				Flags: []ucli.Flag{&ucli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"}},
				Action: action(func(e *env, c *ucli.Context) error {
					d, err := e.startedDrill(c.Args().Slice(), "reset")
					if err != nil {
						return err
					}
					return e.resetTo([]catalog.Stage{d}, d.Ref(), "de drill reset --yes "+d.Slug, c.Bool("yes"), e.Stdin, time.Now())
				}),
			},
			{
				Name:      "explain",
				Usage:     "show a passed drill's worked explanation: why it broke, the wrong fixes, follow-up questions",
				ArgsUsage: "[NAME]",
				Action:    action(func(e *env, c *ucli.Context) error { return e.drillExplain(c.Args().Slice()) }),
			},
		},
	}
}

// drillList prints every drill with its state and the engine it runs on.
func (e *env) drillList(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("de drill list takes no arguments, got %q", strings.Join(args, " "))
	}
	s := e.style
	drills := e.cat.ReadyDrills()
	if len(drills) == 0 {
		e.printf("This version of the course has no drills yet.\n")
		return nil
	}
	e.printf("%s\n", s.Bold("Incident drills: a broken job, a symptom, a fix to defend"))
	slugs, titles := 0, 0
	for _, d := range drills {
		slugs, titles = max(slugs, len(d.Slug)), max(titles, utf8.RuneCountInString(d.Title))
	}
	for _, d := range drills {
		state := s.Dim("not started")
		switch id := d.ID(); {
		case e.prog.Passed[id]:
			state = s.Green("✓ passed")
		case e.prog.Started[id]:
			state = s.Cyan("▶ started")
		}
		e.printf("  %02d  %-*s  %-*s  %s\n", d.Number, slugs, d.Slug, titles, d.Title, state)
		e.printf("      %s\n", s.Dim(d.Concept+"; "+e.engineLine(d)))
	}
	e.printf("\nStart one with %s.\n", s.Cyan("de drill start "+drills[0].Slug))
	return nil
}

// engineLine says which engine d runs on, and why.
func (e *env) engineLine(d catalog.Stage) string {
	_, missing := e.cat.DrillEngine(d, func(id string) bool { return e.prog.Passed[id] })
	switch {
	case len(missing) == 0:
		return "runs on your engine (you passed " + refs(e.needs(d)) + ")"
	case !coursedir.HasReference(e.root):
		return "runs on your engine once you pass " + refs(missing) + " (this copy of the course has no reference engine to run it on before that)"
	}
	return "runs on the reference engine until you pass " + refs(missing)
}

// needs returns the stages d needs.
func (e *env) needs(d catalog.Stage) []catalog.Stage {
	var out []catalog.Stage
	for _, id := range d.Needs {
		if st, ok := e.cat.ByID(id); ok {
			out = append(out, st)
		}
	}
	return out
}

// refs joins stage references: "FLK-BYO/07 and FLK-BYO/08".
func refs(sts []catalog.Stage) string {
	names := make([]string, len(sts))
	for i, st := range sts {
		names[i] = st.Ref()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// drillStart copies a drill's job into lab/drills/ and shows its card.
func (e *env) drillStart(args []string) error {
	if len(args) != 1 {
		return errors.New("de drill start takes one drill, e.g. de drill start " + e.firstDrill())
	}
	d, err := e.cat.ResolveReadyDrill(args[0])
	if err != nil {
		return err
	}
	card, err := e.cat.Card(d)
	if err != nil {
		return err
	}
	copied, err := coursedir.CopySkeletons(e.root, e.cat, []catalog.Stage{d})
	if err != nil {
		return err
	}
	e.prog.Started[d.ID()] = true
	if err := e.prog.Save(e.root); err != nil {
		return err
	}
	s := e.style
	e.printf("%s\n\n", s.Bold(fmt.Sprintf("Drill %02d · %s", d.Number, d.Title)))
	e.printf("%s\n", e.markdown(strings.TrimSpace(card.Body)))
	e.printf("\n%s\n", s.Bold("The job's files"))
	for _, f := range copied.Created {
		e.printf("  %s %s\n", s.Green("created"), f)
	}
	for _, f := range copied.Kept {
		e.printf("  %s %s %s\n", s.Dim("kept"), f, s.Dim("(already there: yours, left as it is)"))
	}
	e.printf("\n%s\n", s.Dim("It "+e.engineLine(d)+"."))
	if _, missing := e.cat.DrillEngine(d, func(id string) bool { return e.prog.Passed[id] }); len(missing) > 0 && !coursedir.HasReference(e.root) {
		e.printf("%s pass %s first (%s): until then %s cannot run, here. The job is in lab/drills/ to read meanwhile.\n",
			s.Bold("Next:"), refs(missing), s.Cyan("de start "+missing[0].Ref()), s.Cyan("de drill test "+d.Slug))
		return nil
	}
	e.printf("%s run %s first: it reproduces the symptom. Then fix the job and defend your number. ", s.Bold("Next:"), s.Cyan("de drill test "+d.Slug))
	if n := len(card.Hints); n > 0 {
		e.printf("Stuck? %s reveals %s, one at a time.", s.Cyan("de drill hint "+d.Slug), plural(n, "hint"))
	}
	e.printf("\n")
	return nil
}

// startedDrill returns the drill args name, or, with no name, the one
// drill started; what is the command, for the error that asks for a name.
func (e *env) startedDrill(args []string, what string) (catalog.Stage, error) {
	switch len(args) {
	case 1:
		d, err := e.cat.ResolveReadyDrill(args[0])
		if err != nil {
			return d, err
		}
		if !e.prog.Started[d.ID()] {
			return d, fmt.Errorf("drill %s is not started: run de drill start %s first", d.Slug, d.Slug)
		}
		return d, nil
	case 0:
	default:
		return catalog.Stage{}, fmt.Errorf("de drill %s takes one drill, got %q", what, strings.Join(args, " "))
	}
	var started []catalog.Stage
	for _, d := range e.cat.ReadyDrills() {
		if e.prog.Started[d.ID()] {
			started = append(started, d)
		}
	}
	switch len(started) {
	case 0:
		return catalog.Stage{}, errors.New("no drill started yet: de drill list shows them, de drill start " + e.firstDrill() + " starts one")
	case 1:
		return started[0], nil
	}
	names := make([]string, len(started))
	for i, d := range started {
		names[i] = d.Slug
	}
	return catalog.Stage{}, fmt.Errorf("you have started %d drills (%s): say which, e.g. de drill %s %s", len(started), strings.Join(names, ", "), what, names[0])
}

// firstDrill is the slug the errors' examples name.
func (e *env) firstDrill() string {
	if ds := e.cat.ReadyDrills(); len(ds) > 0 {
		return ds[0].Slug
	}
	return "NAME"
}

// drillTest runs a drill's checks on the learner's job, on the engine
// DrillEngine picks, and records the drill as passed when all pass.
func (e *env) drillTest(c *ucli.Context, args []string, timeout, testTime time.Duration) error {
	d, err := e.startedDrill(args, "test")
	if err != nil {
		return err
	}
	tags, missing := e.cat.DrillEngine(d, func(id string) bool { return e.prog.Passed[id] })
	if len(missing) > 0 && !coursedir.HasReference(e.root) {
		return fmt.Errorf("drill %s runs on your engine once you pass %s; until then it needs the reference engine, which this copy of the course does not have", d.Slug, refs(missing))
	}
	s := e.style
	e.printf("%s\n", s.Dim("Drill "+d.Slug+" "+e.engineLine(d)+"."))
	run := &testreport.Run{Tags: tags, Stages: []catalog.Stage{d}}
	// As de test does: a job (or lab/) that imports what it must not, or
	// could forge a result, passes nothing, whatever its checks print.
	if run.Findings, err = grade.CheckLab(e.root, e.cat, course.Files); err != nil {
		return err
	}
	pictures, err := e.freshPictures()
	if err != nil {
		return err
	}
	live := newLiveLine(e.Stderr, e.style, e.Getenv)
	part := live.part("go test -tags %s on drill %s", tags, d.Slug)
	opts := gotest.Options{Dir: e.root, Tags: tags, Timeout: timeout, TestTimeout: testTime, Packages: []string{d.Package()}, OnTest: part.test,
		Verdicts: verdict.Supported(), HaltOnRepeatedHang: true, Env: []string{pictures}}
	run.Result, err = gotest.RunPastCrashes(c.Context, opts, e.cat.TestsByPackage(run.Stages), func(string, []string) {})
	part.end()
	live.done()
	if err != nil {
		return err
	}
	pr := e.printer()
	pr.VerboseCommand = "de drill test --verbose " + d.Slug
	pr.Stage(run, d)
	if !pr.Summary(run, d) {
		e.notePictures()
		return quietFailure
	}
	e.prog.Passed[d.ID()] = true
	return e.prog.Save(e.root)
}

// drillExplain shows a drill's worked explanation, once it has passed.
func (e *env) drillExplain(args []string) error {
	d, err := e.startedDrill(args, "explain")
	if err != nil {
		return err
	}
	if !e.prog.Passed[d.ID()] {
		return fmt.Errorf("drill %s has not passed yet: the explanation gives the answer away. Run de drill test %s until it passes (de drill hint %s helps)", d.Slug, d.Slug, d.Slug)
	}
	text, err := e.cat.Explain(d)
	if err != nil {
		return err
	}
	e.printf("%s\n", e.markdown(strings.TrimSpace(text)))
	return nil
}
