package progress

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	p := New()
	p.Current = "02-keyed-partitioning"
	p.Started["01-windows"] = true
	p.Started["02-keyed-partitioning"] = true
	p.Passed["01-windows"] = true
	p.Hints["01-windows"] = 2
	root := t.TempDir()
	require.NoError(t, p.Save(root))
	got, err := Load(root)
	require.NoError(t, err)
	assert.Equal(t, p, got)
	assert.Equal(t, p.Bytes(), got.Bytes(), "equal progress, equal bytes")
}

func TestLoadMissingIsEmpty(t *testing.T) {
	p, err := Load(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, New(), p)
}

func TestUnknownStagesAreKept(t *testing.T) {
	p, err := Parse([]byte("format 1\ncurrent 09-gone\npassed 09-gone\n"))
	require.NoError(t, err, "a stage this version does not know is not corruption")
	assert.Equal(t, "09-gone", p.Current)
}

func TestCorruptFilesNameTheLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"format 2\n", `line 1: "format 2": unknown format`},
		{"format 1\n\ncurrent\n", `line 3: "current": not a progress directive`},
		{"hints 01-windows many\n", `line 1: "hints 01-windows many": hint count must be a whole number`},
		{"hints 01-windows -1\n", "hint count must be a whole number"},
		{"\x00\x01garbage\n", "not a progress directive"},
	} {
		_, err := Parse([]byte(tc.in))
		if assert.Error(t, err, "%q", tc.in) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".de"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, Path), []byte("nonsense\n"), 0o644))
	_, err := Load(root)
	require.Error(t, err)
	assert.Contains(t, err.Error(), ".de/progress line 1")
	assert.Contains(t, err.Error(), "your lab/ is not affected")
}
