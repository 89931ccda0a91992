// Command de drives the FLK-BYO course: it starts stages, tests the
// learner's lab/ (or the reference), reveals hints and shows progress.
// All of its logic lives in internal/cli.
package main

import (
	"os"

	"github.com/flk-byo/course/internal/cli"
)

func main() {
	dir, _ := os.Getwd()
	os.Exit(cli.Exec(os.Args, cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Dir: dir}))
}
