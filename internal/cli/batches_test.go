package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/flk-byo/course/internal/catalog"
)

// TestBatchesAnswerFastThenRace pins the passes of a run: the current
// stage alone and first, without the race detector; a second pass with it
// when its lesson is concurrency; the earlier stages without it; and with
// --race-all one pass of everything with it.
func TestBatchesAnswerFastThenRace(t *testing.T) {
	s1, s2, s3 := catalog.Stage{Number: 1}, catalog.Stage{Number: 2, Race: true}, catalog.Stage{Number: 3}
	cases := []struct {
		name      string
		stages    []catalog.Stage
		race, all bool
		want      []batch
	}{
		{"not a race stage", []catalog.Stage{s3, s2, s1}, true, false,
			[]batch{{stages: []catalog.Stage{s3}}, {stages: []catalog.Stage{s2, s1}}}},
		{"a race stage", []catalog.Stage{s2, s1}, true, false,
			[]batch{{stages: []catalog.Stage{s2}}, {stages: []catalog.Stage{s2}, race: true, racePass: true}, {stages: []catalog.Stage{s1}}}},
		{"a race stage alone", []catalog.Stage{s2}, true, false,
			[]batch{{stages: []catalog.Stage{s2}}, {stages: []catalog.Stage{s2}, race: true, racePass: true}}},
		{"no race detector here", []catalog.Stage{s2, s1}, false, false,
			[]batch{{stages: []catalog.Stage{s2}}, {stages: []catalog.Stage{s1}}}},
		{"--race-all", []catalog.Stage{s2, s1}, true, true,
			[]batch{{stages: []catalog.Stage{s2}, race: true}, {stages: []catalog.Stage{s1}, race: true}}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, batches(c.stages, c.race, c.all), c.name)
	}
}

// TestRerunBatchesFollowTheCatalogue pins the rerun passes of a run: one
// per rerun of every stage in it, in the catalogue's order, on that
// rerun's stages, with the race detector only when asked for everything.
func TestRerunBatchesFollowTheCatalogue(t *testing.T) {
	s1, s3 := catalog.Stage{Number: 1}, catalog.Stage{Number: 3}
	heap := catalog.Rerun{Tag: "statebackend_heap", Stages: []catalog.Stage{s1, s3}}
	pebble := catalog.Rerun{Tag: "statebackend_pebble", Stages: []catalog.Stage{s1, s3}}
	s12 := catalog.Stage{Number: 12, Reruns: []catalog.Rerun{heap, pebble}}
	assert.Empty(t, rerunBatches([]catalog.Stage{s3, s1}), "no stage with reruns")
	got := rerunBatches([]catalog.Stage{s12, s3, s1})
	if assert.Len(t, got, 2) {
		for i, want := range []catalog.Rerun{heap, pebble} {
			assert.Equal(t, want.Stages, got[i].stages)
			assert.Equal(t, want.Tag, got[i].rerun.Tag)
			assert.False(t, got[i].race)
			assert.False(t, got[i].racePass)
		}
	}
}
