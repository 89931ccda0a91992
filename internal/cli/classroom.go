package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/flk-byo/course/internal/coursedir"
)

func classroomCommand(io IO) *ucli.Command {
	return &ucli.Command{
		Name:     "classroom",
		Category: "instructor",
		Usage:    "tools for an instructor who runs the course as a GitHub Classroom assignment",
		Subcommands: []*ucli.Command{{
			Name:      "template",
			Usage:     "write a student copy of the course, without the reference solution and the mistake catalogue, into DIR",
			ArgsUsage: "DIR",
			Description: `Writes into DIR (new, or empty) a copy of this course for students: everything
but solutions/ (the reference), mutants/ (the classic mistakes, made from it),
.ci/ (the course's own CI), lab/, .de/ and .git/, with the Classroom workflow
ready and a note at the top of README.md. In the copy, de solution, de test
--solution, de demo and de bench say that the reference is not part of it.
Push DIR to a repository and make it the assignment's template; grade with a de
built from the full course (docs/GRADING.md). Nothing is overwritten.`,
			Action: func(c *ucli.Context) error {
				if c.NArg() != 1 {
					return errors.New("de classroom template takes one folder, e.g. de classroom template ../flk-byo-student")
				}
				e, err := loadEnv(io)
				if err != nil {
					return err
				}
				if !coursedir.HasReference(e.root) {
					return errors.New("this copy of the course is already a student template (it has no solutions/): make templates from the full course")
				}
				dst := c.Args().First()
				if !filepath.IsAbs(dst) {
					dst = filepath.Join(io.Dir, dst)
				}
				written, err := coursedir.WriteTemplate(e.root, dst)
				if err != nil {
					return err
				}
				e.printf("wrote %d files of a student template to %s (no solutions/, mutants/ or .ci/)\n", len(written), dst)
				e.printf("Next: push it to a repository, mark it as a template, and set COURSE_REPO and COURSE_REF\n" +
					"(the full course and the tag the class uses) as variables where the workflow runs.\n")
				return nil
			},
		}},
	}
}

// errNoReference is the error of a command that needs the reference in a
// copy of the course that does not have it (a student template).
func errNoReference(what string) error {
	return fmt.Errorf("the reference solution is not part of this copy of the course (a student template), and %s; "+
		"your instructor has the full course", what)
}
