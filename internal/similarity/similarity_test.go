package similarity

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/testcourse"
)

func fingerprintsOf(t *testing.T, src string) Set {
	t.Helper()
	fp, err := Fingerprints([]byte(src))
	require.NoError(t, err)
	return fp
}

// setOf is the union of the fingerprints of srcs.
func setOf(t *testing.T, srcs map[string][]byte) Set {
	t.Helper()
	u := Set{}
	for name, src := range srcs {
		fp, err := Fingerprints(src)
		require.NoError(t, err, name)
		u.Add(fp)
	}
	return u
}

// TestShareSeesThroughRenamingAndReformatting: one file of the reference,
// renamed, recommented and reformatted, is found whole in it; the skeleton
// is the base and counts nothing.
func TestShareSeesThroughRenamingAndReformatting(t *testing.T) {
	testcourse.NeedsReference(t)
	src, err := os.ReadFile("../../solutions/windows.go")
	require.NoError(t, err)
	skel := setOf(t, testcourse.Files(t, "../../stages/01-windows/_skeleton/*.go"))
	ref := fingerprintsOf(t, string(src)).Minus(skel)
	disguised := string(src)
	for old, repl := range map[string]string{"Processor": "Engine", "watermark": "wm", "windows": "open", "cleanupTime": "expiry", "advanceTo": "raise"} {
		disguised = strings.ReplaceAll(disguised, old, repl)
	}
	disguised = regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(disguised, "")
	disguised = strings.ReplaceAll(disguised, "\t", "    ")
	copied := fingerprintsOf(t, disguised).Minus(skel)
	assert.Greater(t, Share(copied, ref), 0.95, "a renamed, reformatted copy")
	assert.Equal(t, 0.0, Share(skel.Minus(skel), ref), "the skeleton, once the base is subtracted")
}

// TestStatementsAreTheUnit pins what a fingerprint is: a statement,
// whatever its names and layout; its tokens, in order; no short ones.
func TestStatementsAreTheUnit(t *testing.T) {
	const a = `package p
func f(events []Event) (total int64) {
	for _, e := range events { total += e.Value * e.Weight + e.Bonus }
	return
}`
	const renamed = `package q

func g(xs []T) (sum int64) {
	for _, x := range xs {
		sum += x.Value*x.Weight + x.Bonus
	}
	return
}`
	const swapped = `package p
func f(events []Event) (total int64) {
	for _, e := range events { total += e.Bonus + e.Value * e.Weight }
	return
}`
	fa, fr, fs := fingerprintsOf(t, a), fingerprintsOf(t, renamed), fingerprintsOf(t, swapped)
	assert.NotEmpty(t, fa)
	assert.Equal(t, 1.0, Share(fa, fr), "renaming and layout change nothing")
	assert.Less(t, Share(fa, fs), 1.0, "the same tokens in another order are another statement")
	assert.Empty(t, fingerprintsOf(t, "package p\nfunc f() { i := 0; i++ }\n"), "statements shorter than MinTokens have no fingerprint")
}

func TestShareOfEmptyIsZero(t *testing.T) {
	assert.Equal(t, 0.0, Share(Set{}, Set{1: {}}))
	assert.Equal(t, 1.0, Share(Set{1: {}}, Set{1: {}, 2: {}}))
}

func TestFingerprintsRejectsWhatDoesNotParse(t *testing.T) {
	_, err := Fingerprints([]byte("package x\n\nvar s = \"unterminated\n"))
	assert.Error(t, err)
	_, err = Fingerprints([]byte("package x\n\nfunc {\n"))
	assert.Error(t, err)
}
