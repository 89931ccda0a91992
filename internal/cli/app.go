// Package cli is the `de` command: the urfave/cli application, its
// commands, and how they print. cmd/de only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/grade"
	"github.com/flk-byo/course/internal/progress"
	"github.com/flk-byo/course/internal/sandbox"
	"github.com/flk-byo/course/internal/term"
)

// IO is what a run of de reads and writes: its streams, its environment and
// its working directory. Tests pass their own; cmd/de passes the process's.
type IO struct {
	Stdin          io.Reader // keys for de watch, answers for de reset, Enter for de demo --step
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Dir            string
	// Solutions are the course's own solutions de grade measures a lab
	// against; nil means all of them (the root package's Reference and
	// Independent). A test gives fewer, to grade a lab as one the course
	// has never seen.
	Solutions []grade.Solution

	// program is how de was run (Main's args[0]), for a command that runs
	// de again: de grade --as-user's launcher.
	program string
}

// The exit codes of de, so that a CI step or an instructor's script can
// tell a student's failure from a broken setup.
const (
	// ExitFailed: the work was checked and failed. Tests failed (de test),
	// the score is below --min-score (de grade), a check found a problem
	// (de check), the lab does not build or run (de bench).
	ExitFailed = 1
	// ExitCannotRun: the command could not do its job. A bad flag or
	// argument, not inside a course, no go on PATH, an unreadable progress
	// file, a refused request (a stage not yet unlocked), any other error.
	ExitCannotRun = 2
)

// Exec runs de as a process does: Main, with a context that Ctrl-C
// (SIGINT), SIGTERM or a closing terminal (SIGHUP) cancels, so that a run
// in progress stops, with everything it started, and says so. cmd/de and
// the script tests' de both run through it.
func Exec(args []string, io IO) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return Main(ctx, args, io)
}

// Main runs de with args (args[0] is the program name) and returns the
// process exit code: 0, ExitFailed or ExitCannotRun. Every error is printed
// as one line "de: …".
func Main(ctx context.Context, args []string, io IO) int {
	if len(args) > 1 && args[1] == sandbox.ExecCommand {
		// The launcher of de grade --as-user, run by go test in place of a
		// test binary: not a command of de's, and it never returns on
		// success.
		fmt.Fprintln(io.Stderr, "de: "+sandbox.Exec(args[2:]).Error())
		return ExitCannotRun
	}
	if len(args) > 0 {
		io.program = args[0]
	}
	app := newApp(io)
	err := checkCommandName(app, args)
	if err == nil {
		err = app.RunContext(ctx, hoistFlags(app, args))
	}
	if err == nil {
		return 0
	}
	code := ExitCannotRun
	var exit *exitError
	if errors.As(err, &exit) {
		code, err = exit.code, exit.err
	}
	if err != nil {
		st := term.For(io.Stderr, io.Getenv)
		fmt.Fprintln(io.Stderr, st.Red("de: ")+err.Error())
	}
	return code
}

// exitError ends de with a code, and with err's message if err is set
// (otherwise the command has already said what went wrong: a test report).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// failed marks err as the work failing (ExitFailed), not the command: it is
// printed as any error is, and de exits 1.
func failed(err error) error { return &exitError{code: ExitFailed, err: err} }

// quietFailure ends de with ExitFailed after the command printed its own
// report.
var quietFailure = &exitError{code: ExitFailed}

// maxArgs is how many arguments each command takes (absent: none). A
// command given more says so instead of ignoring them: de hint FLK-BYO/05
// must not quietly spend a hint of the current stage.
// Subcommands go by their full name: "drill start".
var maxArgs = map[string]int{"start": 1, "solution": 1, "demo": 1, "flink": 1, "completion": 1, "classroom template": 1,
	"drill start": 1, "drill test": 1, "drill hint": 1, "drill explain": 1, "drill reset": 1}

// argsHint says, for a command that takes no arguments, what to do instead.
var argsHint = map[string]string{
	"grade": "name stages with --stage",
	"test":  "test stages 01..NN with --stage NN",
	"hint":  "de hint reveals the current stage's hints; de start moves to another stage",
	"reset": "it resets the current stage (--all: every started one)",
	"watch": "it watches lab/ and tests the current stage (de start picks it)",
}

// strictArgs makes cmd and its subcommands reject arguments they do not
// take, and report a usage error (an unknown flag, a bad value) as one
// line instead of the whole help page.
// parent is the full name of cmd's parent command, "" at the top.
func strictArgs(cmd *ucli.Command, parent string) {
	name := strings.TrimSpace(parent + " " + cmd.Name)
	if _, ok := maxArgs[name]; !ok && len(cmd.Subcommands) == 0 {
		before := cmd.Before
		cmd.Before = func(c *ucli.Context) error {
			if c.NArg() > 0 {
				hint := argsHint[name]
				if hint == "" {
					hint = fmt.Sprintf("de %s --help says what it does", name)
				}
				return fmt.Errorf("de %s takes no arguments (got %q); %s", name, c.Args().First(), hint)
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
	}
	cmd.OnUsageError = func(c *ucli.Context, err error, _ bool) error {
		return fmt.Errorf("%v: see de %s --help", err, name)
	}
	for _, sub := range cmd.Subcommands {
		strictArgs(sub, name)
	}
}

// version is de's version: the module version it was built at, or, built
// from a checkout, "(devel)" and the commit.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}

func newApp(io IO) *ucli.App {
	app := newAppCommands(io)
	for _, cmd := range app.Commands {
		strictArgs(cmd, "")
	}
	app.OnUsageError = func(c *ucli.Context, err error, _ bool) error {
		return fmt.Errorf("%v: see de --help", err)
	}
	return app
}

func newAppCommands(io IO) *ucli.App {
	return &ucli.App{
		Name:  "de",
		Usage: "start, test and get hints for the FLK-BYO stream-processing course",
		Description: `Build the core of a Flink-grade stream processor in eight stages, then, if
you want more, the extension track (de list shows both).

Examples:
   de start FLK-BYO/01     copy stage 01's skeleton into lab/ and show its card
   de test                 run stages 01..current against your lab/, current first
   de test --solution      the same against the reference (also LAB_MODULE=solution)
   de hint                 reveal the next hint of the current stage
   de list                 every stage with its state
   de demo FLK-BYO/03      watch the reference handle a late correction, step by step
   de flink FLK-BYO/03     the same stream through your lab/ and Apache Flink, side by side
   de watch                re-run the tests each time you save a file in lab/ (h: hint, q: quit)
   de reset                the current stage's skeleton back; your files go to .de/backup/
   de solution FLK-BYO/01  the reference files of a stage you have passed
   source <(de completion bash)   tab-complete commands and stages (also zsh, fish)`,
		Writer:                io.Stdout,
		ErrWriter:             io.Stderr,
		Version:               version(),
		EnableBashCompletion:  true,
		CustomAppHelpTemplate: "",
		ExitErrHandler:        func(*ucli.Context, error) {}, // Main prints errors and picks the code
		Commands: []*ucli.Command{
			startCommand(io),
			testCommand(io),
			hintCommand(io),
			listCommand(io),
			checkCommand(io),
			demoCommand(io),
			flinkCommand(io),
			gradeCommand(io),
			watchCommand(io), resetCommand(io), solutionCommand(io), completionCommand(io),
			benchCommand(io), classroomCommand(io), drillCommand(io),
		},
	}
}

// env is what most commands need: the course on disk, its catalogue and
// the learner's progress.
type env struct {
	IO
	verbose bool // de test --verbose: every failure in full
	root    string
	cat     *catalog.Catalog
	prog    *progress.Progress
	style   term.Style
}

func loadEnv(io IO) (*env, error) {
	root, err := coursedir.FindRoot(io.Dir)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(course.Stages())
	if err != nil {
		return nil, err
	}
	if err := cat.LoadDrills(course.Drills()); err != nil {
		return nil, err
	}
	prog, err := progress.Load(root)
	if err != nil {
		return nil, err
	}
	return &env{IO: io, root: root, cat: cat, prog: prog, style: term.For(io.Stdout, io.Getenv)}, nil
}

// current returns the stage being worked on, or an error that says how to
// start one.
func (e *env) current() (catalog.Stage, error) {
	if e.prog.Current == "" {
		return catalog.Stage{}, errors.New("no stage started yet: run de start FLK-BYO/01")
	}
	s, ok := e.cat.ByID(e.prog.Current)
	if !ok {
		return catalog.Stage{}, fmt.Errorf("%s names stage %q, which this version of the course does not have; run de start with a stage from de list", progress.Path, e.prog.Current)
	}
	return s, nil
}

// checkLab returns an error that says how to create lab/ if the course has
// none: a learner who cloned the course but started no stage, or deleted
// the folder.
func (e *env) checkLab() error {
	if coursedir.HasLab(e.root) {
		return nil
	}
	return fmt.Errorf("no lab/ folder yet: run de start %s first", e.cat.Stages[0].Ref())
}

func (e *env) printf(format string, args ...any) { fmt.Fprintf(e.Stdout, format, args...) }

// commandIndex returns the index in args of the command name: the first
// argument after the program name that is not a flag; -1 if there is none.
func commandIndex(args []string) int {
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			return i
		}
	}
	return -1
}

// checkCommandName rejects an unknown command with an error, which
// urfave/cli v2 would only print, exiting 0.
func checkCommandName(app *ucli.App, args []string) error {
	i := commandIndex(args)
	if i < 0 || app.Command(args[i]) != nil || args[i] == "help" || args[i] == "h" {
		return nil
	}
	return fmt.Errorf("unknown command %q; run de --help for the commands", args[i])
}

// hoistFlags moves flags written after a command's arguments in front of
// them. urfave/cli v2 stops parsing flags at the first argument, so without
// this `de start FLK-BYO/02 --force` would silently ignore --force. Flags
// that take a value carry it along; "--" ends flag hoisting. A
// subcommand's flags go after the subcommand (de drill reset NAME --yes).
func hoistFlags(app *ucli.App, args []string) []string {
	i := commandIndex(args)
	if i < 0 || slices.Contains(args, "--generate-bash-completion") { // completion wants it last
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	for i+1 < len(args) { // a subcommand's flags go after it: de drill test NAME --timeout 5s
		sub := cmd.Command(args[i+1])
		if sub == nil {
			break
		}
		i, cmd = i+1, sub
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(rest) {
			j++
			flags = append(flags, rest[j])
		}
	}
	out := slices.Clone(args[:i+1])
	out = append(out, flags...)
	return append(out, positional...)
}
