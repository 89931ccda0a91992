// Command de drives the FLK-BYO course: it starts stages, tests the
// learner's lab/ (or the reference), reveals hints and shows progress.
// All of its logic lives in internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/flk-byo/course/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	dir, _ := os.Getwd()
	code := cli.Main(ctx, os.Args, cli.IO{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Dir: dir})
	stop()
	os.Exit(code)
}
