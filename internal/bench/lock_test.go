package bench

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecondRunAtOnceIsRefused certifies that a run in a course whose
// test-binary folder another run holds stops at once with ErrBusy, before
// it builds or times anything: two runs would write the same binaries and
// time their benchmarks beside each other. Once the first lets go, a run
// may take the folder.
func TestSecondRunAtOnceIsRefused(t *testing.T) {
	root := t.TempDir()
	bins := filepath.Join(root, BinDir)
	require.NoError(t, os.MkdirAll(bins, 0o755))
	unlock, err := lockBins(bins)
	require.NoError(t, err)

	m, err := Run(context.Background(), Options{Root: root, Stage: 1, Count: 1})
	assert.ErrorIs(t, err, ErrBusy, "a second run while the first holds the folder")
	assert.Nil(t, m, "nothing measured")
	entries, err := os.ReadDir(bins)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, "lock", e.Name(), "the refused run wrote nothing into %s", BinDir)
	}

	unlock()
	again, err := lockBins(bins)
	require.NoError(t, err, "the folder is free once the first run lets go")
	again()
}

// holdLockEnv, when set to a folder, makes the test binary a child that
// takes that folder's lock, says so on stdout, and waits to be killed.
const holdLockEnv = "DE_BENCH_TEST_HOLD_LOCK"

// TestLockOfAKilledRunIsFree certifies that a run killed with SIGKILL (a
// learner's kill -9, a CI job cancelled) leaves no lock behind: the next run
// takes the folder without anyone removing a file. The holder is a child
// process, killed for real.
func TestLockOfAKilledRunIsFree(t *testing.T) {
	if dir := os.Getenv(holdLockEnv); dir != "" {
		if _, err := lockBins(dir); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		select {} // until killed
	}
	bins := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestLockOfAKilledRunIsFree$")
	child.Env = append(os.Environ(), holdLockEnv+"="+bins)
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the child never said it holds the lock")
	require.Equal(t, "locked\n", line)

	_, err = lockBins(bins)
	assert.ErrorIs(t, err, ErrBusy, "while the child holds the lock")

	require.NoError(t, child.Process.Kill())
	_ = child.Wait()
	unlock, err := lockBins(bins)
	require.NoError(t, err, "a killed run's lock is free")
	unlock()
	assert.FileExists(t, filepath.Join(bins, "lock"), "the lock file stays; the lock is on it, not its presence")
}
