package catalog_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/flk-byo/course"
	"github.com/flk-byo/course/internal/catalog"
)

func load(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(course.Stages())
	require.NoError(t, err)
	return cat
}

func TestResolveAliases(t *testing.T) {
	cat := load(t)
	for _, name := range []string{"FLK-BYO/02", "FLK-BYO/02-keyed-partitioning", "02-keyed-partitioning", "02", "2", "keyed-partitioning", "flk-byo/02", " 2 "} {
		st, err := cat.Resolve(name)
		if assert.NoError(t, err, name) {
			assert.Equal(t, "02-keyed-partitioning", st.ID(), name)
		}
	}
	for _, name := range []string{"", "0", "13", "FLK-BYO/", "FLK-BYO/13", "windowz", "01-keyed-partitioning"} {
		_, err := cat.Resolve(name)
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), "valid stages are FLK-BYO/01 (windows), FLK-BYO/02 (keyed-partitioning)")
		}
	}
}

func TestParseCardSplitsHints(t *testing.T) {
	card := catalog.ParseCard("# Stage 1 of 8 — X\nintro\n## Hints\n### Hint 1: nudge\none\n### Hint 2: closer\ntwo\nmore\n## Flink parity\nparity\n")
	assert.Equal(t, "Stage 1 of 8 — X", card.Title)
	assert.Equal(t, "# Stage 1 of 8 — X\nintro\n## Flink parity\nparity\n", card.Body, "the body keeps every section but the hints")
	assert.Equal(t, []catalog.Hint{{Title: "nudge", Text: "one"}, {Title: "closer", Text: "two\nmore"}}, card.Hints)
}

// TestCourseContent is the course's self-check of its catalogue and folders:
// it reports every problem at once, one line each.
func TestCourseContent(t *testing.T) {
	cat := load(t)
	var problems []string
	add := func(st catalog.Stage, format string, args ...any) {
		problems = append(problems, st.ID()+": "+fmt.Sprintf(format, args...))
	}
	for _, st := range cat.Stages {
		if !st.Ready {
			// A stage being written may have any part of its folder, or
			// none; a card it has already carries its place in its track.
			if _, err := fs.Stat(cat.FS(), path.Join(st.ID(), "README.md")); err != nil {
				continue
			}
			if card, err := cat.Card(st); err != nil {
				add(st, "%v", err)
			} else if want := cat.CardTitle(st); card.Title != want {
				add(st, "card title %q, want %q", card.Title, want)
			}
			continue
		}
		card, err := cat.Card(st)
		if err != nil {
			add(st, "%v", err)
			continue
		}
		if want := cat.CardTitle(st); card.Title != want {
			add(st, "card title %q, want %q", card.Title, want)
		}
		for _, section := range []string{"## New API this stage", "## This stage's task", "## Constraints", "## Run it", "## Flink parity", "## Questions you should be able to answer"} {
			if !strings.Contains(card.Body, "\n"+section+"\n") {
				add(st, "card has no %q section", section)
			}
		}
		if len(card.Hints) != 3 {
			add(st, "card has %d hints, want 3", len(card.Hints))
		}
		for i, h := range card.Hints {
			if h.Title == "" || h.Text == "" {
				add(st, "hint %d has no title or no text", i+1)
			}
		}
		names, err := cat.SkeletonFiles(st)
		if err != nil {
			add(st, "%v", err)
		}
		for _, name := range names {
			src, _ := cat.SkeletonFile(st, name)
			if !strings.Contains(string(src), "package lab") {
				add(st, "skeleton %s is not package lab", name)
			}
			if !strings.Contains(string(src), `panic("TODO`) {
				add(st, "skeleton %s has no TODO", name)
			}
		}
		for _, bind := range []string{"bind_lab_test.go", "bind_solution_test.go"} {
			if _, err := fs.Stat(cat.FS(), path.Join(st.ID(), bind)); err != nil {
				add(st, "missing %s", bind)
			}
		}
		tests, err := cat.Tests(st)
		if err != nil {
			add(st, "%v", err)
		}
		if len(tests) == 0 {
			add(st, "suite has no tests")
		}
		seen := map[string]bool{}
		for _, tc := range tests {
			if seen[tc.Name] {
				add(st, "%s is declared twice", tc.Name)
			}
			seen[tc.Name] = true
			if tc.Certifies == "" {
				add(st, "%s has no doc comment of the form \"// %s certifies that ….\"", tc.Name, tc.Name)
			}
		}
	}
	if len(problems) > 0 {
		t.Errorf("the course content has %d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestReadmeTableMatchesCatalog keeps README's stage and drill tables
// generated from the catalogues: one description of the course, not two.
func TestReadmeTableMatchesCatalog(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	cat := load(t)
	require.NoError(t, cat.LoadDrills(course.Drills()))
	for _, tc := range []struct{ name, want string }{
		{"stages", cat.MarkdownTable()},
		{"drills", cat.DrillsMarkdownTable()},
	} {
		begin, end := "<!-- "+tc.name+":begin -->\n", "<!-- "+tc.name+":end -->"
		_, rest, ok := strings.Cut(string(readme), begin)
		require.True(t, ok, "README.md has no %q marker", begin)
		table, _, ok := strings.Cut(rest, end)
		require.True(t, ok, "README.md has no %q marker", end)
		assert.Equal(t, tc.want, table, "README's %s table differs from the catalogue; replace it with:\n%s", tc.name, tc.want)
	}
}

// TestCardTitlesCountTheirOwnTrack pins the course's numbering policy: a core
// card counts the core ("Stage 3 of 8"), an extension card counts up to the
// last extension stage the catalogue lists, ready or not ("Stage 9 of 12").
func TestCardTitlesCountTheirOwnTrack(t *testing.T) {
	cat := load(t)
	core, ext := cat.Track(catalog.Core), cat.Track(catalog.Extension)
	require.Len(t, core, 8, "the core is the eight stages")
	require.NotEmpty(t, ext)
	assert.Equal(t, 8, cat.TrackEnd(catalog.Core))
	assert.Equal(t, 12, cat.TrackEnd(catalog.Extension), "the extension track is stages 09–12 (issue 14)")
	assert.Equal(t, "Stage 3 of 8 — Allowed lateness", cat.CardTitle(core[2]))
	assert.Equal(t, "Stage 9 of 12 — Sliding windows", cat.CardTitle(ext[0]))
	assert.Equal(t, []catalog.Track{catalog.Core, catalog.Extension}, cat.Tracks())
	assert.Equal(t, "The core: stages 01–08", cat.TrackHeading(catalog.Core))
}

// TestTracksLoad checks the "track" field: absent means the core, an unknown
// track is an error, and the extensions come after the core, never between
// its stages.
func TestTracksLoad(t *testing.T) {
	load := func(stages string) (*catalog.Catalog, error) {
		return catalog.Load(fstest.MapFS{"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "t", "stages": [` + stages + `]}`)}})
	}
	cat, err := load(`{"slug": "a", "title": "A"}, {"slug": "b", "title": "B", "track": "core"}, {"slug": "c", "title": "C", "track": "extension"}`)
	require.NoError(t, err)
	assert.Equal(t, []catalog.Track{catalog.Core, catalog.Core, catalog.Extension}, []catalog.Track{cat.Stages[0].Track, cat.Stages[1].Track, cat.Stages[2].Track})
	assert.Equal(t, "Stage 3 of 3", cat.Position(cat.Stages[2]))
	assert.Equal(t, "Stage 2 of 2", cat.Position(cat.Stages[1]))
	assert.Equal(t, "Extensions: stage 03, after the core", cat.TrackHeading(catalog.Extension))
	_, err = load(`{"slug": "a", "title": "A", "track": "bonus"}`)
	assert.ErrorContains(t, err, `stage 1 (a) has track "bonus"`)
	_, err = load(`{"slug": "a", "title": "A", "track": "extension"}, {"slug": "b", "title": "B"}`)
	assert.ErrorContains(t, err, "stage 2 (b) is in the core track, after a stage of the extension track")
}

func TestReadyStagesAndResolveReady(t *testing.T) {
	fsys := fstest.MapFS{"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "t", "stages": [
		{"slug": "a", "title": "A", "ready": true},
		{"slug": "b", "title": "B", "ready": false},
		{"slug": "c", "title": "C", "ready": true}]}`)}}
	cat, err := catalog.Load(fsys)
	require.NoError(t, err)
	numbers := func(sts []catalog.Stage) (out []int) {
		for _, s := range sts {
			out = append(out, s.Number)
		}
		return out
	}
	assert.Equal(t, []int{1, 3}, numbers(cat.Ready()))
	assert.Equal(t, []int{1}, numbers(cat.ReadyThrough(2)))
	assert.Equal(t, []int{3}, numbers(cat.ReadyAfter(1)))
	assert.Empty(t, cat.ReadyAfter(3))
	_, err = cat.ResolveReady("b")
	assert.ErrorContains(t, err, "stage FLK-BYO/02 (b) is not in this version of the course yet")
	st, err := cat.ResolveReady("3")
	require.NoError(t, err)
	assert.Equal(t, "c", st.Slug)
}

// TestRerunsLoad checks the "reruns" field: each pass names a tag, what it
// runs on and earlier stages by ID (a later or unknown one is an error),
// and in the course's own catalogue each stage a pass reruns has a lab and
// a solution bind file under the pass's tag, so that the pass builds.
func TestRerunsLoad(t *testing.T) {
	loadWith := func(rerun string) (*catalog.Catalog, error) {
		return catalog.Load(fstest.MapFS{"catalog.json": {Data: []byte(`{"format": 1, "course": "FLK-BYO", "title": "t", "stages": [` +
			`{"slug": "a", "title": "A"}, {"slug": "b", "title": "B", "reruns": [` + rerun + `]}, {"slug": "c", "title": "C"}]}`)}})
	}
	cat, err := loadWith(`{"tag": "x", "on": "your X", "stages": ["01-a"]}`)
	require.NoError(t, err)
	require.Len(t, cat.Stages[1].Reruns, 1)
	r := cat.Stages[1].Reruns[0]
	assert.Equal(t, "x", r.Tag)
	assert.Equal(t, "lab,x", r.Tags("lab"))
	assert.Equal(t, []string{"01-a"}, []string{r.Stages[0].ID()})
	for _, bad := range []string{`{"tag": "x", "on": "your X", "stages": ["03-c"]}`, `{"tag": "x", "on": "your X", "stages": ["02-b"]}`,
		`{"tag": "x", "on": "your X", "stages": ["09-z"]}`, `{"on": "your X", "stages": ["01-a"]}`} {
		_, err := loadWith(bad)
		assert.Error(t, err, "%s", bad)
	}

	course := load(t)
	for _, st := range course.Stages {
		for _, r := range st.Reruns {
			for _, earlier := range r.Stages {
				for _, base := range []string{"lab", "solution"} {
					found := false
					matches, _ := fs.Glob(course.FS(), path.Join(earlier.ID(), "bind_*_test.go"))
					for _, m := range matches {
						src, _ := fs.ReadFile(course.FS(), m)
						line, _, _ := strings.Cut(string(src), "\n")
						found = found || line == "//go:build "+base+" && "+r.Tag
					}
					assert.True(t, found, "stage %s reruns %s under %s, but it has no bind file with //go:build %s && %s", st.ID(), earlier.ID(), r.Tag, base, r.Tag)
				}
			}
		}
	}
}

// TestRerunTestTimeout pins that a rerun's tests get several times a
// stage test's time (each opens backends of its own), and that no limit
// stays no limit.
func TestRerunTestTimeout(t *testing.T) {
	var r catalog.Rerun
	assert.Equal(t, 80*time.Second, r.TestTimeout(20*time.Second))
	assert.Equal(t, time.Duration(0), r.TestTimeout(0))
}
