package catalog_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
	"github.com/flk-byo/course/internal/coursedir"
)

// drillCatalog is a course of two stages with the drills of drillsJSON.
func drillCatalog(t *testing.T, drillsJSON string) (*catalog.Catalog, error) {
	t.Helper()
	cat, err := catalog.Load(fstest.MapFS{"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "t", "stages": [
		{"slug": "a", "title": "A", "ready": true}, {"slug": "b", "title": "B", "ready": true}]}`)}})
	require.NoError(t, err)
	return cat, cat.LoadDrills(fstest.MapFS{
		"catalog.json":               {Data: []byte(`{"format": 1, "drills": [` + drillsJSON + `]}`)},
		"01-quiet/README.md":         {Data: []byte("# Drill 1 of 2 — Quiet\nbody\n## Hints\n### Hint 1: one\nfirst\n")},
		"01-quiet/EXPLAIN.md":        {Data: []byte("why it broke\n")},
		"01-quiet/_job/job.go":       {Data: []byte("package quiet\n")},
		"01-quiet/reproduce_test.go": {Data: []byte("package quiet\n\nimport \"testing\"\n\n// TestReproduceIt certifies that it breaks.\nfunc TestReproduceIt(t *testing.T) {}\n")},
	})
}

// TestDrillsLoad checks drills/catalog.json: each drill is a Stage of the
// Drill track, numbered among the drills, in drills/NN-slug, its job in
// lab/drills/<package>; a drill needs stages the catalogue has.
func TestDrillsLoad(t *testing.T) {
	cat, err := drillCatalog(t, `{"slug": "quiet", "title": "Quiet", "symptom": "s", "points": 100, "ready": true, "needs": ["02-b"], "package": "quiet"},
		{"slug": "hot", "title": "Hot", "package": "hot"}`)
	require.NoError(t, err)
	require.Len(t, cat.Drills, 2)
	d := cat.Drills[0]
	assert.Equal(t, catalog.Drill, d.Track)
	assert.Equal(t, "drills/01-quiet", d.ID(), "a drill's ID is its folder: progress keeps it apart from the stages'")
	assert.Equal(t, "drills/01-quiet", d.Dir())
	assert.Equal(t, "./drills/01-quiet", d.Package())
	assert.Equal(t, "lab/drills/quiet", d.JobDir())
	assert.Equal(t, "drill quiet", d.Ref())
	assert.Equal(t, "Drill 1 of 2", cat.Position(d))
	assert.Equal(t, []catalog.Stage{d}, cat.ReadyDrills(), "a drill not ready is left out")
	assert.Len(t, cat.Stages, 2, "drills are not stages: the stages' progression is unchanged")

	card, err := cat.Card(d)
	require.NoError(t, err)
	assert.Equal(t, "Drill 1 of 2 — Quiet", card.Title)
	assert.Len(t, card.Hints, 1)
	files, err := cat.SkeletonFiles(d)
	require.NoError(t, err)
	assert.Equal(t, []string{"job.go"}, files, "a drill's skeleton is its broken job, _job/")
	explain, err := cat.Explain(d)
	require.NoError(t, err)
	assert.Equal(t, "why it broke\n", explain)
	docs, err := cat.Tests(d)
	require.NoError(t, err)
	assert.Equal(t, []catalog.TestDoc{{Name: "TestReproduceIt", Certifies: "it breaks."}}, docs)

	found, ok := cat.Find("drills/01-quiet")
	assert.True(t, ok)
	assert.Equal(t, d, found)
	_, ok = cat.ByID("drills/01-quiet")
	assert.False(t, ok, "ByID finds stages only")

	for _, tc := range []struct{ json, want string }{
		{`{"slug": "x", "title": "X", "needs": ["07-nope"], "package": "x"}`, `drill 1 (x) needs stage "07-nope", which the catalogue does not have`},
		{`{"slug": "x", "title": "X"}`, "drill 1 has no slug, title or package"},
	} {
		_, err := drillCatalog(t, tc.json)
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestResolveDrill checks the names a learner may type for a drill, that
// an unknown one is an error listing the drills there are, and that one
// announced but not ready says so where it must be ready.
func TestResolveDrill(t *testing.T) {
	cat, err := drillCatalog(t, `{"slug": "quiet", "title": "Quiet", "ready": true, "package": "quiet"}, {"slug": "hot", "title": "Hot", "package": "hot"}`)
	require.NoError(t, err)
	for _, name := range []string{"quiet", "01-quiet", "drills/01-quiet", "01", "1", " Quiet "} {
		d, err := cat.ResolveReadyDrill(name)
		if assert.NoError(t, err, name) {
			assert.Equal(t, "quiet", d.Slug, name)
		}
	}
	for _, name := range []string{"", "3", "hotter", "01-windows"} {
		_, err := cat.ResolveDrill(name)
		assert.ErrorContains(t, err, "the drills are quiet (de drill list)", name)
	}
	for _, name := range []string{"hot", "02-hot", "2"} {
		d, err := cat.ResolveDrill(name)
		if assert.NoError(t, err, name) {
			assert.Equal(t, "hot", d.Slug, "ResolveDrill finds a drill not ready too (de check --mutants --drill names one being written)")
		}
		_, err = cat.ResolveReadyDrill(name)
		assert.EqualError(t, err, "drill hot is not in this version of the course yet; de drill list shows the drills there are", name)
	}
	none, err := drillCatalog(t, ``)
	require.NoError(t, err)
	_, err = none.ResolveDrill("quiet")
	assert.EqualError(t, err, "this version of the course has no drills yet")
}

// TestDrillEngine checks which engine a drill runs on: the learner's once
// every stage it needs has passed, else the reference's, naming what is
// left.
func TestDrillEngine(t *testing.T) {
	cat, err := drillCatalog(t, `{"slug": "quiet", "title": "Quiet", "ready": true, "needs": ["01-a", "02-b"], "package": "quiet"}`)
	require.NoError(t, err)
	d := cat.Drills[0]
	passed := map[string]bool{}
	tags, missing := cat.DrillEngine(d, func(id string) bool { return passed[id] })
	assert.Equal(t, catalog.DrillReferenceEngine, tags)
	assert.Equal(t, []string{"01-a", "02-b"}, ids(missing))
	passed["01-a"] = true
	_, missing = cat.DrillEngine(d, func(id string) bool { return passed[id] })
	assert.Equal(t, []string{"02-b"}, ids(missing))
	passed["02-b"] = true
	tags, missing = cat.DrillEngine(d, func(id string) bool { return passed[id] })
	assert.Equal(t, catalog.DrillOwnEngine, tags)
	assert.Empty(t, missing)
}

func ids(sts []catalog.Stage) []string {
	var out []string
	for _, s := range sts {
		out = append(out, s.ID())
	}
	return out
}

// TestDrillContent is the course's self-check of its drills, as
// TestCourseContent is of its stages: every ready drill has a card titled
// "Drill N of M — Title" with three hints, a worked explanation, a broken
// job in package <package>, its engine binding (engine/engine_lab.go and
// engine_ref.go), bind files, a test that
// reproduces the symptom, a reference fix and at least five catalogued
// wrong fixes. It reports every problem at once, one line each.
func TestDrillContent(t *testing.T) {
	cat := load(t)
	require.NoError(t, cat.LoadDrills(course.Drills()))
	var problems []string
	add := func(d catalog.Stage, format string, args ...any) {
		problems = append(problems, d.ID()+": "+fmt.Sprintf(format, args...))
	}
	// A student template has no reference (the drills' reference engine and
	// fixes) nor mutants: what needs them is checked in the full course.
	full := coursedir.HasReference("../..")
	for _, d := range cat.ReadyDrills() {
		card, err := cat.Card(d)
		if err != nil {
			add(d, "%v", err)
			continue
		}
		if want := cat.Position(d) + " — " + d.Title; card.Title != want {
			add(d, "card title %q, want %q", card.Title, want)
		}
		if len(card.Hints) != 3 {
			add(d, "card has %d hints, want 3", len(card.Hints))
		}
		if text, err := cat.Explain(d); err != nil || strings.TrimSpace(text) == "" {
			add(d, "no worked explanation (EXPLAIN.md): %v", err)
		}
		names, err := cat.SkeletonFiles(d)
		if err != nil || len(names) == 0 {
			add(d, "no broken job in _job/ (%v)", err)
		}
		for _, name := range names {
			src, _ := cat.SkeletonFile(d, name)
			if !strings.Contains(string(src), "package "+d.JobPackage+"\n") {
				add(d, "job file %s is not package %s", name, d.JobPackage)
			}
		}
		for _, bind := range []string{"bind_lab_test.go", "bind_solution_test.go", "engine/engine_lab.go", "engine/engine_ref.go"} {
			if bind == "engine/engine_ref.go" && !full {
				continue
			}
			if _, err := fs.Stat(course.Drills(), path.Join(path.Base(d.Dir()), bind)); err != nil {
				add(d, "missing %s", bind)
			}
		}
		tests, err := cat.Tests(d)
		if err != nil {
			add(d, "%v", err)
		}
		reproduce := 0
		for _, tc := range tests {
			if strings.HasPrefix(tc.Name, "TestReproduce") {
				reproduce++
			}
			if tc.Certifies == "" {
				add(d, "%s has no doc comment of the form \"// %s certifies that ….\"", tc.Name, tc.Name)
			}
		}
		if reproduce == 0 {
			add(d, "no TestReproduce… test: a drill starts from a test that shows the symptom on the untouched job")
		}
		if !full {
			continue
		}
		if fix, err := os.ReadDir("../../solutions/drills/" + d.JobPackage); err != nil || len(fix) == 0 {
			add(d, "no reference fix in solutions/drills/%s (%v)", d.JobPackage, err)
		}
		if wrong, _ := os.ReadDir("../../mutants/" + d.ID()); len(wrong) < 5 {
			add(d, "mutants/%s has %d wrong fixes, want at least 5", d.ID(), len(wrong))
		}
	}
	if len(problems) > 0 {
		t.Errorf("the drills have %d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
