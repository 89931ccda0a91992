package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/catalog"
)

func solutionCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:      "solution",
		Usage:     "show the reference files of a stage you have passed (--force: before, spoiling it)",
		ArgsUsage: "[FLK-BYO/NN]",
		Description: `Prints the reference solution's files for a stage (the current one by default),
once de test has passed it. --force shows them anyway, and spoils the stage.

Which files: the files in solutions/ with the same names as the stage's skeleton
files (stage 01: windows.go; 02: partition.go, stream.go; …), plus the
reference's own helpers that those files use and no stage asks you to write
(stage 01: seen.go, the set of seen IDs). A stage without skeleton files
extends an earlier stage's files; stage 03 (allowed lateness) shows
windows.go, where lateness is implemented. Nothing is written to lab/.`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "force", Usage: "show the reference even though the stage has not passed (spoils it)"},
		},
		BashComplete: completeStages,
		Action: func(c *ucli.Context) error {
			e, err := loadEnv(io)
			if err != nil {
				return err
			}
			return e.solution(c.Args().Slice(), c.Bool("force"))
		},
	}
}

// extendedFiles names, for a stage without skeleton files, the earlier
// files it changes, and why; keyed by slug.
var extendedFiles = map[string]struct {
	files []string
	why   string
}{
	"lateness": {[]string{"windows.go"}, "stage 03 has no skeleton files: allowed lateness extends stage 01's windows.go"},
}

// helperFiles names, for a stage, the reference files its files use that
// are no stage's skeleton file, keyed by slug: shown with the first stage
// that uses them, so that the reference reads whole.
var helperFiles = map[string][]string{
	"windows": {"seen.go"},
}

// referenceFiles returns the files of solutions/ that belong to a stage
// (see the command's help for the rule), and a note when the rule's
// exception was used.
func referenceFiles(cat *catalog.Catalog, st catalog.Stage) (files []string, note string, err error) {
	names, err := cat.SkeletonFiles(st)
	if err != nil {
		return nil, "", err
	}
	if len(names) > 0 {
		return append(names, helperFiles[st.Slug]...), "", nil
	}
	ext, ok := extendedFiles[st.Slug]
	if !ok {
		return nil, "", fmt.Errorf("stage %s has no skeleton files and de does not know which reference files it extends", st.Ref())
	}
	return ext.files, ext.why, nil
}

func (e *env) solution(args []string, force bool) error {
	var st catalog.Stage
	var err error
	switch len(args) {
	case 0:
		st, err = e.current()
	case 1:
		st, err = e.cat.Resolve(args[0])
	default:
		err = errors.New("de solution takes at most one stage, e.g. de solution FLK-BYO/01")
	}
	if err != nil {
		return err
	}
	if !st.Ready {
		return fmt.Errorf("stage %s (%s) is not in this version of the course yet", st.Ref(), st.Slug)
	}
	s := e.style
	if !e.prog.Passed[st.ID()] {
		if !force {
			return fmt.Errorf("%s has not passed yet: the reference would spoil it. Pass it with de test (de hint helps), or see it anyway with de solution --force %s", st.Ref(), st.Ref())
		}
		fmt.Fprintf(e.Stderr, "%s\n", s.Yellow(fmt.Sprintf("Spoiler: %s has not passed yet; here is the reference anyway (--force).", st.Ref())))
	}
	files, note, err := referenceFiles(e.cat, st)
	if err != nil {
		return err
	}
	e.printf("%s\n", s.Bold(fmt.Sprintf("Reference solution for %s · %s", st.Ref(), st.Title)))
	if note != "" {
		e.printf("%s\n", s.Dim("("+note+")"))
	}
	shown := 0
	for _, name := range files {
		rel := "solutions/" + name
		data, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			continue // a skeleton file with no reference twin
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		shown++
		e.printf("\n%s\n\n%s\n", s.Cyan("── "+rel+" ──"), strings.TrimRight(string(data), "\n"))
	}
	if shown == 0 {
		return fmt.Errorf("no reference files for %s in solutions/ (looked for %s)", st.Ref(), strings.Join(files, ", "))
	}
	e.printf("\n%s\n", s.Dim("The reference is in package solutions; your lab/ is unchanged."))
	return nil
}
