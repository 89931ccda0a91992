package similarity

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustFingerprints(t *testing.T, path string) Set {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	return fingerprintsOf(t, string(src))
}

func fingerprintsOf(t *testing.T, src string) Set {
	t.Helper()
	fp, err := Fingerprints([]byte(src))
	require.NoError(t, err)
	return fp
}

// TestShareSeesThroughRenamingAndReformatting calibrates the measure on
// stage 01: the reference against itself renamed, recommented and
// reformatted (a copy: close to 1), against the skeleton (the base every
// solution shares), and against a solution written independently from the
// card (far below a copy).
func TestShareSeesThroughRenamingAndReformatting(t *testing.T) {
	refPath := "../../solutions/windows.go"
	ref := mustFingerprints(t, refPath)
	skel := mustFingerprints(t, "../../stages/01-windows/_skeleton/windows.go")

	src, err := os.ReadFile(refPath)
	require.NoError(t, err)
	disguised := string(src)
	for old, repl := range map[string]string{"Processor": "Engine", "watermark": "wm", "windows": "open", "cleanupTime": "expiry", "advanceTo": "raise"} {
		disguised = strings.ReplaceAll(disguised, old, repl)
	}
	disguised = regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(disguised, "")
	disguised = strings.ReplaceAll(disguised, "\t", "    ")
	copied := fingerprintsOf(t, disguised).Minus(skel)

	independent := mustFingerprints(t, "testdata/independent_windows.go.txt").Minus(skel)
	refBase := ref.Minus(skel)

	copyShare := Share(copied, refBase)
	indepShare := Share(independent, refBase)
	skelShare := Share(skel.Minus(skel), refBase)
	t.Logf("renamed copy %.2f, independent %.2f, skeleton %.2f", copyShare, indepShare, skelShare)
	assert.Greater(t, copyShare, 0.9, "a renamed, reformatted copy of the reference")
	assert.Less(t, indepShare, 0.3, "a solution written from the card alone")
	assert.Equal(t, 0.0, skelShare, "the skeleton, once the base is subtracted")
	assert.Greater(t, copyShare-indepShare, 0.6, "a copy and an independent solution are far apart")
}

func TestShareOfEmptyIsZero(t *testing.T) {
	assert.Equal(t, 0.0, Share(Set{}, Set{1: {}}))
	assert.Equal(t, 1.0, Share(Set{1: {}}, Set{1: {}, 2: {}}))
}

func TestFingerprintsRejectsWhatDoesNotScan(t *testing.T) {
	_, err := Fingerprints([]byte("package x\n\nvar s = \"unterminated\n"))
	assert.Error(t, err)
}

// TestShortFilesStillHaveFingerprints: a file shorter than one window
// keeps its lowest hash, so a tiny copied helper is not invisible.
func TestShortFilesStillHaveFingerprints(t *testing.T) {
	fp := fingerprintsOf(t, "package lab\n\nfunc f(a, b int) int { if a > b { return a }; return b }\n")
	assert.NotEmpty(t, fp)
}
