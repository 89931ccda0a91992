package gotest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteOverlay writes, as dir/overlay.json, the file go build's -overlay
// flag reads (go help build), and returns its path for Options.Overlay:
// replace maps each absolute path the build would read to the file to read
// instead, or to "" to leave the file out of the build. It is how de swaps
// code into a build without writing into the learner's tree: a mutant of
// the reference, de bench's benchmarks, de grade's own copy of the
// reference engine.
func WriteOverlay(dir string, replace map[string]string) (string, error) {
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write the build overlay: %w", err)
	}
	return file, nil
}
