package mutants

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course/internal/coursedir"
	"github.com/flk-byo/course/internal/testcourse"
)

const good = `mistake: Add subtracts
file: solutions/calc.go
caught-by: TestAdd TestAddZero
note: first line
note: second line
race: true
-- find --
	return a + b
-- replace --
	return a - b
-- find 2 --
// Add
-- replace 2 --
// Add, wrongly,
`

func TestParseReadsHeaderAndPairs(t *testing.T) {
	m, err := Parse("01-calc", "subtracts", []byte(good))
	require.NoError(t, err)
	assert.Equal(t, Mutant{
		Stage: "01-calc", Name: "subtracts", Mistake: "Add subtracts", File: "solutions/calc.go",
		CaughtBy: []string{"TestAdd", "TestAddZero"}, Note: "first line second line", Race: true,
		Pairs: []Pair{{"\treturn a + b", "\treturn a - b"}, {"// Add", "// Add, wrongly,"}},
	}, m)
	assert.Equal(t, "01-calc/subtracts", m.ID())
	assert.Equal(t, "./stages/01-calc", m.Package())
	assert.Equal(t, "solution", m.Tags())

	// A mutant caught by a rerun pass runs the earlier stage's suite under
	// the pass's tag.
	r, err := Parse("12-calc", "subtracts", []byte("rerun: 01-calc statebackend_heap\n"+good))
	require.NoError(t, err)
	assert.Equal(t, "./stages/01-calc", r.Package())
	assert.Equal(t, "solution,statebackend_heap", r.Tags())
}

func TestParseReportsEveryProblem(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", `no "mistake:" line`},
		{"empty", "", `no "file:" line`},
		{"empty", "", `no "caught-by:" line`},
		{"empty", "", `no "-- find --"`},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\nflavour: odd\n-- find --\na\n-- replace --\nb\n", `unknown header key "flavour"`},
		{"ok", "mistake: m\nfile: ../x.go\ncaught-by: TestX\n-- find --\na\n-- replace --\nb\n", `file "../x.go" is not a clean`},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: testX\n-- find --\na\n-- replace --\nb\n", `caught-by "testX" is not a top-level test name`},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\n-- find --\na\n", "pair 1 is incomplete"},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\n-- find --\na\n-- replace --\nb\n-- find 3 --\nc\n-- replace 3 --\nd\n", "pair 2 is incomplete"},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\n-- find --\na\n-- replace --\na\n", "replace text equals the find text"},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\n-- find --\na\n-- replace --\nb\n-- patch --\nc\n", `"patch" is neither`},
		{"ok", "mistake: m\nfile: solutions/x.go\nfile: solutions/y.go\ncaught-by: TestX\n-- find --\na\n-- replace --\nb\n", `"file" is repeated`},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\nrace: maybe\n-- find --\na\n-- replace --\nb\n", `race: "maybe"`},
		{"ok", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\nrerun: statebackend_heap\n-- find --\na\n-- replace --\nb\n", `rerun: "statebackend_heap" is not a stage folder and a build tag`},
		{"Bad_Name", "mistake: m\nfile: solutions/x.go\ncaught-by: TestX\n-- find --\na\n-- replace --\nb\n", "is not lower-case words"},
	} {
		_, err := Parse("01-calc", tc.name, []byte(tc.data))
		if assert.Error(t, err, tc.want) {
			assert.Contains(t, err.Error(), "01-calc/"+tc.name+".txtar: ")
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

func TestLoadReadsFoldersInOrderAndReportsStrays(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                  {Data: []byte("about the catalogue")},
		"02-b/second.txtar":          {Data: []byte(good)},
		"01-a/first.txtar":           {Data: []byte(good)},
		"01-a/another.txtar":         {Data: []byte(good)},
		"notes.txt":                  {Data: []byte("stray")},
		"01-a/notes.md":              {Data: []byte("stray")},
		"Stage3/x.txtar":             {Data: []byte(good)},
		"02-b/broken.txtar":          {Data: []byte("mistake: m\n")},
		"02-b/nested/deeper.txtar":   {Data: []byte(good)},
		"03-c/README-is-not-ok.txtx": {Data: []byte("")},
	}
	ms, err := Load(fsys)
	require.Error(t, err)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID())
	}
	assert.Equal(t, []string{"01-a/another", "01-a/first", "02-b/second"}, ids)
	for _, want := range []string{
		"6 problem(s)", "notes.txt: a stray file", "01-a/notes.md: a stray entry", "Stage3/: not a stage folder name",
		"02-b/broken.txtar: ", "02-b/nested: a stray entry", "03-c/README-is-not-ok.txtx: a stray entry",
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "README.md")

	ms, err = Load(fstest.MapFS{"01-a/first.txtar": {Data: []byte(good)}})
	require.NoError(t, err)
	assert.Len(t, ms, 1)
}

// TestLoadReadsTheDrillsWrongFixes checks mutants/drills/NN-slug/: a
// drill's wrong fixes load like a stage's mistakes, run its drill's
// package, and strays there are reported too.
func TestLoadReadsTheDrillsWrongFixes(t *testing.T) {
	ms, err := Load(fstest.MapFS{
		"01-a/first.txtar":               {Data: []byte(good)},
		"drills/01-quiet/too-long.txtar": {Data: []byte(good)},
	})
	require.NoError(t, err)
	require.Len(t, ms, 2)
	assert.Equal(t, "01-a/first", ms[0].ID())
	assert.False(t, ms[0].Drill())
	assert.Equal(t, "drills/01-quiet/too-long", ms[1].ID())
	assert.True(t, ms[1].Drill())
	assert.Equal(t, "./drills/01-quiet", ms[1].Package())
	assert.Equal(t, "./stages/01-a", ms[0].Package())

	_, err = Load(fstest.MapFS{"drills/notes.txt": {Data: []byte("stray")}, "drills/Quiet/x.txtar": {Data: []byte(good)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "drills/notes.txt: a stray file")
	assert.Contains(t, err.Error(), "drills/Quiet/: not a stage folder name")
}

func TestMutateAppliesPairsInOrderAndNeedsUniqueFinds(t *testing.T) {
	m := Mutant{Pairs: []Pair{{"a + b", "a - b"}, {"a - b\n", "a - b // changed\n"}}}
	out, err := m.Mutate([]byte("x := a + b\n"))
	require.NoError(t, err)
	assert.Equal(t, "x := a - b // changed\n", string(out), "pair 2 sees what pair 1 left")

	_, err = m.Mutate([]byte("x := a * b\n"))
	var ae *ApplyError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, ApplyError{Pair: 1, Count: 0, Find: "a + b"}, *ae)
	assert.Equal(t, `find text 1 not found: "a + b"`, err.Error())

	_, err = m.Mutate([]byte("x := a + b\ny := a + b\n"))
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 2, ae.Count)
	assert.Contains(t, err.Error(), "found 2 times")

	del := Mutant{Pairs: []Pair{{"\tif x {\n\t\ty()\n\t}\n", ""}}}
	out, err = del.Mutate([]byte("func f() {\n\tif x {\n\t\ty()\n\t}\n\tz()\n}\n"))
	require.NoError(t, err)
	assert.Equal(t, "func f() {\n\tz()\n}\n", string(out), "an empty replace deletes")
}

func TestWriteOverlayMapsReferenceToMutatedCopy(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "solutions"), 0o755))
	ref := filepath.Join(root, "solutions", "calc.go")
	orig := "package solutions\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
	require.NoError(t, os.WriteFile(ref, []byte(orig), 0o644))
	m, err := Parse("01-calc", "subtracts", []byte("mistake: m\nfile: solutions/calc.go\ncaught-by: TestAdd\n-- find --\n\treturn a + b\n-- replace --\n\treturn a - b\n"))
	require.NoError(t, err)

	dir := t.TempDir()
	overlay, err := WriteOverlay(root, m, dir)
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(overlay))
	data, err := os.ReadFile(overlay)
	require.NoError(t, err)
	var o struct{ Replace map[string]string }
	require.NoError(t, json.Unmarshal(data, &o))
	require.Len(t, o.Replace, 1)
	absRef, _ := filepath.Abs(ref)
	mutated, ok := o.Replace[absRef]
	require.True(t, ok, "the overlay replaces the reference by its absolute path: %s", data)
	assert.True(t, filepath.IsAbs(mutated))
	assert.Equal(t, dir, filepath.Dir(mutated))
	got, err := os.ReadFile(mutated)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(orig, "a + b", "a - b", 1), string(got))
	kept, _ := os.ReadFile(ref)
	assert.Equal(t, orig, string(kept), "the reference is never touched")

	m.File = "solutions/gone.go"
	_, err = WriteOverlay(root, m, dir)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestFilterByStageAndName(t *testing.T) {
	ms := []Mutant{{Stage: "01-a", Name: "x"}, {Stage: "01-a", Name: "y"}, {Stage: "02-b", Name: "x"}}
	assert.Len(t, Filter(ms, "", ""), 3)
	assert.Len(t, Filter(ms, "01-a", ""), 2)
	assert.Len(t, Filter(ms, "", "x"), 2)
	assert.Equal(t, []Mutant{{Stage: "02-b", Name: "x"}}, Filter(ms, "", "02-b/x"))
	assert.Equal(t, []Mutant{{Stage: "01-a", Name: "y"}}, Filter(ms, "", "01-a/y.txtar"))
}

// TestOfReadyStagesLeavesOutStagesBeingWritten checks that a run of every
// mutant keeps only the ready stages' and drills', in catalogue order, so a
// stage whose suite does not catch its mutants yet fails no de check.
func TestOfReadyStagesLeavesOutStagesBeingWritten(t *testing.T) {
	ms := []Mutant{{Stage: "01-a", Name: "x"}, {Stage: "02-b", Name: "x"}, {Stage: "01-a", Name: "y"}, {Stage: "drills/01-d", Name: "z"}}
	ready := map[string]bool{"01-a": true, "drills/01-d": true}
	got := OfReadyStages(ms, func(stage string) bool { return ready[stage] })
	assert.Equal(t, []Mutant{{Stage: "01-a", Name: "x"}, {Stage: "01-a", Name: "y"}, {Stage: "drills/01-d", Name: "z"}}, got)
	assert.Empty(t, OfReadyStages(ms, func(string) bool { return false }))
}

// TestCatalogueLoads keeps the course's own catalogue well-formed, and each
// mutant's find text present in today's reference: a cheap check that
// runs with every go test. `de check --mutants` runs them.
func TestCatalogueLoads(t *testing.T) {
	testcourse.NeedsMutants(t)
	root, err := coursedir.FindRoot(".")
	require.NoError(t, err)
	ms, err := Load(os.DirFS(filepath.Join(root, "mutants")))
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	for _, m := range ms {
		if _, _, err := Apply(root, m, t.TempDir()); err != nil {
			t.Errorf("%s: %v (update mutants/%s%s to the current code)", m.ID(), err, m.ID(), Ext)
		}
		assert.True(t, strings.HasPrefix(m.File, "solutions/"), "%s changes %s, not a reference file", m.ID(), m.File)
	}
}
