package crashfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flk-byo/course/internal/suite"
	"github.com/flk-byo/course/kit"
)

// The checks are tested on a toy job: it publishes checkpoints 1..3, each
// output two pages and a bit of one letter, as out/<n>. A variant breaks it.
const (
	toyRole, checkRole   = "crashfs-toy", "crashfs-check"
	toyDirEnv, toyVarEnv = "FLK_CRASHFS_TOY_DIR", "FLK_CRASHFS_TOY"
	toyCheckpoints       = 3
)

// toyOutput is checkpoint c's output.
func toyOutput(c int) []byte { return bytes.Repeat([]byte{byte('a' + c - 1)}, 2*PageSize+100) }

// toyEmpty reports whether the toy job's checkpoint c has no output: in the
// variant "gap", checkpoint 2.
func toyEmpty(variant string) func(c int) bool {
	return func(c int) bool { return variant == "gap" && c == 2 }
}

// toyJob runs the toy job on dir: each checkpoint's output is written to a
// temporary file, fsynced, and renamed into out/ (the folder fsynced), so
// that a reader sees all of it or none. A restart skips what is in out/.
// The variant "copy" writes into out/ in place; "nosync" does not fsync out/
// after the rename; "gap" gives checkpoint 2 no output.
func toyJob(dir, variant string) error {
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	for c := 1; c <= toyCheckpoints; c++ {
		final := filepath.Join(out, strconv.Itoa(c))
		if _, err := os.Stat(final); err == nil {
			continue
		}
		if toyEmpty(variant)(c) {
			MarkStep("stored", int64(c))
			MarkStep("committed", int64(c))
			continue
		}
		tmp := filepath.Join(dir, "tmp")
		if variant == "copy" {
			tmp = final
		}
		if err := writeSynced(tmp, toyOutput(c)); err != nil {
			return err
		}
		if err := syncDir(filepath.Dir(tmp)); err != nil {
			return err
		}
		MarkStep("stored", int64(c))
		if err := os.Rename(tmp, final); err != nil {
			return err
		}
		if variant != "nosync" {
			if err := syncDir(out); err != nil {
				return err
			}
		}
		MarkStep("committed", int64(c))
	}
	return nil
}

// toyVisible is the toy job's reader: how many checkpoints out/ holds
// whole, counting those without output.
func toyVisible(dir string, empty func(int) bool) (int, error) {
	for k := 0; ; k++ {
		if k < toyCheckpoints && empty(k+1) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "out", strconv.Itoa(k+1)))
		if errors.Is(err, fs.ErrNotExist) {
			return k, nil
		}
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(data, toyOutput(k+1)) {
			return 0, fmt.Errorf("out/%d holds %d bytes, not its whole output", k+1, len(data))
		}
	}
}

func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// toy returns the toy job as the checks drive it, run by the test test.
func toy(test, variant string) Job {
	return Job{
		Command: func(dir string) *exec.Cmd {
			return suite.ChildCommand(test, toyRole, toyDirEnv+"="+dir, toyVarEnv+"="+variant)
		},
		Checkpoints: toyCheckpoints,
		Visible:     func(dir string) (int, error) { return toyVisible(dir, toyEmpty(variant)) },
		Empty:       toyEmpty(variant),
		Stored:      "stored",
		Committed:   "committed",
	}
}

// isToyChild runs the toy job when this process is its child.
func isToyChild(t *testing.T) bool {
	if suite.ChildRole() != toyRole {
		return false
	}
	if err := toyJob(os.Getenv(toyDirEnv), os.Getenv(toyVarEnv)); err != nil {
		t.Fatal(err)
	}
	return true
}

// TestChecksPassACorrectJob runs both checks on the correct toy job, and
// on one with a checkpoint without output.
func TestChecksPassACorrectJob(t *testing.T) {
	if isToyChild(t) {
		return
	}
	for _, variant := range []string{"", "gap"} {
		job := toy(t.Name(), variant)
		tr := RecordJob(t, job)
		CheckReaders(t, tr, job)
		CheckPowerLoss(t, tr, job, kit.NewRand(1), 4)
	}
}

// TestChecksCatchBrokenJobs runs each check, in a child process, on a toy
// job it must catch, and looks for the explanation in its failure.
func TestChecksCatchBrokenJobs(t *testing.T) {
	if isToyChild(t) {
		return
	}
	if suite.ChildRole() == checkRole {
		job := toy(t.Name(), os.Getenv(toyVarEnv))
		tr := RecordJob(t, job)
		CheckReaders(t, tr, job)
		CheckPowerLoss(t, tr, job, kit.NewRand(1), 8)
		return
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip(ErrNoStrace)
	}
	for _, c := range []struct{ variant, want string }{
		{"copy", "saw something that is not the output of whole checkpoints: out/1 holds 0 bytes, not its whole output"},
		{"nosync", "a reader sees the output of checkpoints 1..0, but checkpoint 1 was committed before it"},
	} {
		out, err := suite.RunChild(t.Name(), checkRole, toyVarEnv+"="+c.variant)
		if err == nil {
			t.Errorf("the checks passed the %q toy job, want them to fail\n%s", c.variant, out)
		} else if !strings.Contains(string(out), c.want) {
			t.Errorf("the checks failed the %q toy job without saying %q:\n%s", c.variant, c.want, out)
		}
	}
}
